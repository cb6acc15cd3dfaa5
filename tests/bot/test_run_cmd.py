"""`opsmemory run` with only part of the Slack credentials says exactly what is missing and how to
try the bot locally (issue 5, item 1; with none at all it starts the sandbox, issue 19)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from bot.cli.run_cmd import run_run
from bot.settings import Settings, SettingsError


async def test_run_with_half_the_tokens_names_the_missing_variables_and_the_local_way(
    make_settings: Callable[..., Settings],
) -> None:
    with pytest.raises(SettingsError) as err:
        await run_run(argparse.Namespace(port=None), make_settings(slack_bot_token="xoxb-1"))
    text = str(err.value)
    assert "SLACK_SIGNING_SECRET" in text and "SLACK_BOT_TOKEN" not in text
    assert "`opsmemory sandbox`" in text and "bench" not in text


async def test_socket_mode_needs_no_signing_secret(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(slack_app_token="xapp-1")
    with pytest.raises(SettingsError) as err:
        await run_run(argparse.Namespace(port=None), settings)
    assert "SLACK_SIGNING_SECRET" not in str(err.value)
    assert "SLACK_BOT_TOKEN" in str(err.value)
