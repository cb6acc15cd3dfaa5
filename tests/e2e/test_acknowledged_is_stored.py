"""A slash-command write is committed before its confirmation is sent, and the confirmation is
the ack itself: Slack never retries a slash command, so a confirmed note must survive a kill -9
right after it, and a note that was not stored must say so in the ack (issue 18)."""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from memory.store.db import Database
from tests.e2e.process import BotProcess
from tests.e2e.workspace import ALICE, GUEST, INCIDENT, SECRET


async def note_texts(database: Path) -> list[str]:
    db = await Database.open(database, migrate=False)
    try:
        return [str(r[0]) for r in await db.fetchall("SELECT text FROM memory_notes ORDER BY id")]
    finally:
        await db.close()


async def test_a_confirmed_note_survives_kill_9_right_after_its_confirmation(
    slack: FakeSlack, tmp_path: Path
) -> None:
    bot = BotProcess(slack, tmp_path / "data")
    await bot.start()
    texts = [f"step {i}: drained connections from db-{i}" for i in range(5)]
    try:
        async with SlackDriver(bot.events_url, SECRET, slack) as d:
            replies = [await d.command(INCIDENT, ALICE, f"note {t}") for t in texts[:-1]]
            replies.append(await d.command(INCIDENT, ALICE, f"note {texts[-1]}"))
            bot.signal(signal.SIGKILL)  # nothing after the last confirmation gets to run
    finally:
        await bot.kill()
    assert [r.status for r in replies] == [200] * 5
    confirmations = [e.text for e in slack.workspace.ephemerals_for(ALICE)]
    assert len(confirmations) == 5
    assert all(c.startswith("Saved note note:") and "inc-42" in c for c in confirmations)
    assert await note_texts(bot.database) == texts


async def test_an_opened_incident_is_confirmed_in_the_ack_for_the_channel(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    d = await driver.command(INCIDENT, ALICE, "open sev2 Checkout latency")
    assert d.json()["response_type"] == "in_channel"
    assert re.fullmatch(r"Opened inc-\d+ \(sev2\): Checkout latency", d.json()["text"])
    assert slack.calls_to("response_url") == []  # the ack was the reply
    assert [m.text for m in slack.workspace.bot_messages(INCIDENT)] == [d.json()["text"]]


async def test_a_note_that_was_not_stored_says_so_in_the_ack(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    bot: Runtime = await start_bot(note_max_chars=100)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        too_long = await d.command(INCIDENT, ALICE, "note " + "x" * 150)
        guest = await d.command(INCIDENT, GUEST, "note the cache is cold")
    assert too_long.status == 200 and "at most 100 characters" in too_long.json()["text"]
    assert guest.status == 200 and "Guests" in guest.json()["text"]
    assert {too_long.json()["response_type"], guest.json()["response_type"]} == {"ephemeral"}
    assert slack.calls_to("response_url") == []
    assert await bot.deps.db.scalar("SELECT count(*) FROM memory_notes") == 0
