"""Upgrading keeps what people told the bot: today's bot started on a database written by the
previous release answers from its notes, and still keeps its private channel private (issue 20)."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, BOB, PRIVATE, SECRET, answered

RELEASE_DB = Path(__file__).parents[1] / "fixtures" / "release-0.1.0.db.gz"


async def test_a_database_from_the_previous_release_answers_after_the_upgrade(
    bot_settings: Callable[..., Settings], start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    settings = bot_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    settings.database_path.write_bytes(gzip.decompress(RELEASE_DB.read_bytes()))
    bot = await start_bot()
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        _, answer = await answered(d, slack, BOB, "what did we decide about rolling back checkout?")
        text = str(answer.blocks)
        assert "roll back checkout to v41" in text
        assert "card numbers" not in text  # the private channel's note stays there

        _, inside = await answered(d, slack, ALICE, "what was seen in the payments logs?", PRIVATE)
        assert "card numbers seen in the payments logs" in str(inside.blocks)
