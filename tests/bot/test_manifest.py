"""manifest.yml and the registered listeners stay in step, both ways (issue 5, item 2)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from bot.answer import render
from bot.answer.compose import Answer, ProposedAction

ROOT = Path(__file__).resolve().parents[2]
LISTENERS = ROOT / "bot" / "listeners"
# Slack subscribes to message events per conversation type; Bolt registers plain "message".
EVENT_SUBSCRIPTIONS = {"message": {"message.channels", "message.groups"}}


def registered(kind: str) -> set[str]:
    pattern = re.compile(rf'\bapp\.{kind}\("([^"]+)"\)')  # decorator or register() call
    return {m for f in LISTENERS.glob("*.py") for m in pattern.findall(f.read_text())}


def manifest() -> dict:
    return yaml.safe_load((ROOT / "manifest.yml").read_text())


def test_every_registered_event_is_subscribed_and_back() -> None:
    declared = set(manifest()["settings"]["event_subscriptions"]["bot_events"])
    expected = set()
    for event in registered("event"):
        expected |= EVENT_SUBSCRIPTIONS.get(event, {event})
    assert expected == declared


def test_every_registered_command_is_declared_and_back() -> None:
    declared = {c["command"] for c in manifest()["features"]["slash_commands"]}
    assert registered("command") == declared


def test_every_registered_shortcut_is_declared_and_back() -> None:
    declared = {s["callback_id"] for s in manifest()["features"]["shortcuts"]}
    assert registered("shortcut") == declared


def _a_request() -> tuple[Any, Any, list[Any], frozenset[str]]:
    from datetime import UTC, datetime
    from pathlib import Path

    from bot.guarded.catalogue import load_catalogue
    from bot.guarded.requests import Request

    action = load_catalogue(Path(__file__).parents[2] / "actions.example.yml").actions["rollback"]
    now = datetime(2026, 12, 1, tzinfo=UTC)
    request = Request(1, "T1", "C1", None, "1.2", "inc-1", "rollback", {"service": "checkout"},
                      "h", "T1/U1", "U1", "/incident run", "high", 2, True, "requested", now,
                      now, None)  # fmt: skip
    return request, action, [], frozenset({"U0BOSS"})


def test_actions_need_interactivity_and_every_rendered_button_has_a_listener() -> None:
    assert manifest()["settings"]["interactivity"]["is_enabled"] is True
    rendered = str(render.answer(Answer("s", actions=(ProposedAction("rollback", "r", "x"),))))
    rendered += str(render.guarded_request(*_a_request()))
    rendered += str(render.home(counts={}, facts=[], notes=[], episodes=[]))
    buttons = set(re.findall(r"'action_id': '([a-z_]+)'", rendered))
    listened = registered("action")
    assert buttons <= listened
    assert listened - buttons == {"delete_item"}  # rendered only next to an item


def test_every_modal_the_bot_opens_has_a_submission_listener() -> None:
    opened = {
        render.save_modal("t", channel_id="C1", message_ts="1.2")["callback_id"],
        render.forget_everything_modal()["callback_id"],
    }
    assert opened == registered("view")


def test_scopes_cover_what_the_bot_calls() -> None:
    scopes = set(manifest()["oauth_config"]["scopes"]["bot"])
    needed = {
        "app_mentions:read",
        "chat:write",
        "commands",
        "channels:history",
        "groups:history",
        "users:read",
        "channels:read",
        "groups:read",
    }
    assert needed <= scopes
