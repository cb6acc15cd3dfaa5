"""A healthy start logs no warnings (issue 18 item 5): Bolt's "`token` will be unused", logged at
every start because Bolt reads SLACK_BOT_TOKEN from the environment itself, is gone."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.standin.server import FakeSlack

NOTICE = "As you gave `client` as well, `token` will be unused."


def test_bolt_itself_warns_when_the_token_is_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Guards the test below: in this environment, plain Bolt does log the notice."""
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-standin-token")
    with caplog.at_level(logging.WARNING):
        AsyncApp(
            client=AsyncWebClient(token="xoxb-standin-token"),
            signing_secret="s",
            logger=logging.getLogger("tests.plain_bolt"),
        )
    assert NOTICE in caplog.messages


async def test_start_with_the_token_in_the_environment_logs_no_warning(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    start_bot: Callable[..., Any],
    slack: FakeSlack,
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", slack.workspace.bot_token)  # as in production
    with caplog.at_level(logging.WARNING):
        await start_bot()
    warnings = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []
