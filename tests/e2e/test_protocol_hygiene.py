"""What Slack's request URL answers to bad requests (issue 18): the signature is checked before
the body is read as text, so unsigned junk is 401 and signed junk 400, never a 500; events the
bot does not handle, and mentions by bots or workflows, are acknowledged and left alone."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import time
from urllib.parse import urlencode

import aiohttp
import pytest

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, INCIDENT, SECRET, answered, eventually_async

# Tables every accepted request writes to, one way or another (events are claimed for dedupe).
WRITTEN = (
    "memory_notes",
    "memory_thread_messages",
    "memory_incidents",
    "memory_audit",
    "bot_events",
)
SLACK_WRITES = ("chat.postMessage", "chat.postEphemeral", "chat.update", "response_url")


async def post(
    bot: Runtime,
    body: bytes,
    *,
    content_type: str = "application/json",
    secret: str | None = SECRET,
) -> tuple[int, str]:
    """POST raw bytes to /slack/events, signed over those exact bytes unless `secret` is None."""
    ts = str(int(time.time()))
    headers = {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts}
    if secret is not None:
        mac = hmac.new(secret.encode(), f"v0:{ts}:".encode() + body, hashlib.sha256)
        headers["X-Slack-Signature"] = "v0=" + mac.hexdigest()
    async with aiohttp.ClientSession() as s:
        url = f"http://127.0.0.1:{bot.port}/slack/events"
        async with s.post(url, data=io.BytesIO(body), headers=headers) as r:
            return r.status, await r.text()


async def stored(bot: Runtime) -> dict[str, int]:
    return {t: int(await bot.deps.db.scalar(f"SELECT count(*) FROM {t}")) for t in WRITTEN}


def slack_writes(slack: FakeSlack) -> list[str]:
    return [c.method for c in slack.calls if c.method in SLACK_WRITES]


def command_form(driver: SlackDriver, text: str) -> bytes:
    """A slash command body exactly as Slack form-encodes it (fields of slash_command.json)."""
    return urlencode(
        {
            "token": "legacy-verification-token",
            "team_id": driver.ws.team_id,
            "team_domain": driver.ws.domain,
            "channel_id": INCIDENT,
            "channel_name": driver.ws.channels[INCIDENT].name,
            "user_id": ALICE,
            "user_name": "alice",
            "command": "/incident",
            "text": text,
            "api_app_id": "A0STANDIN",
            "is_enterprise_install": "false",
            "response_url": driver.slack.response_url(f"{INCIDENT}~{ALICE}~~1"),
            "trigger_id": driver.trigger_id(),
        }
    ).encode()


BROKEN_JSON = b'{"type": "event_callback", "event": {"type": "app_mention", '
NOT_UTF8 = b'{"type": "event_callback", "event": {"text": "\xff\xfe caf\xe9"}}'


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (BROKEN_JSON, "application/json"),
        (NOT_UTF8, "application/json"),
        (b"[1, 2, 3]", "application/json"),
        (b'"just a string"', "application/json"),
        (b"payload=%7B%22type%22%3A%20%22block_actions%22%2C", "application/x-www-form-urlencoded"),
        (b"payload=%5B1%5D", "application/x-www-form-urlencoded"),
        (b"nothing=slack&would=send", "application/x-www-form-urlencoded"),
    ],
    ids=[
        "broken-json",
        "not-utf8",
        "json-array",
        "json-string",
        "broken-payload",
        "payload-array",
        "no-type-or-command",
    ],
)
async def test_unsigned_junk_is_401_and_signed_junk_is_400_with_nothing_stored(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack, body: bytes, content_type: str
) -> None:
    before = await stored(bot)
    assert (await post(bot, body, content_type=content_type, secret=None))[0] == 401
    assert (await post(bot, body, content_type=content_type, secret="wrong"))[0] == 401
    assert (await post(bot, body, content_type=content_type))[0] == 400
    assert await stored(bot) == before
    assert slack_writes(slack) == []


async def test_a_forged_note_command_is_401_and_nothing_is_saved_or_said(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    before = await stored(bot)
    body = command_form(driver, "note forged: the root cause was alice")
    assert (await post(bot, body, content_type="application/x-www-form-urlencoded", secret=None))[
        0
    ] == 401
    assert (
        await post(
            bot, body, content_type="application/x-www-form-urlencoded", secret="not-" + SECRET
        )
    )[0] == 401
    assert await stored(bot) == before
    assert slack_writes(slack) == []
    # The same bytes, signed: saved and confirmed, so the refusals above were the signature's.
    status, reply = await post(bot, body, content_type="application/x-www-form-urlencoded")
    assert status == 200
    assert (await stored(bot))["memory_notes"] == before["memory_notes"] + 1
    assert "inc-42" in (reply + json.dumps([c.body for c in slack.calls]))


async def test_an_oversized_body_is_413_signed_or_not_with_nothing_stored(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    event = driver.envelope(
        {
            "type": "app_mention",
            "user": ALICE,
            "channel": INCIDENT,
            "ts": driver.ws.next_ts(),
            "text": "x" * (2 * 1024 * 1024),
        }
    )
    body = json.dumps(event).encode()
    before = await stored(bot)
    assert (await post(bot, body))[0] == 413
    assert (await post(bot, body, secret=None))[0] == 413
    assert await stored(bot) == before
    assert slack_writes(slack) == []


async def test_an_event_type_the_bot_does_not_handle_is_acknowledged_with_200(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A 404 here made Slack retry the delivery (and count failures against the app)."""
    joined = driver.envelope(
        {
            # member_joined_channel is handled now (bot/listeners/membership.py); this one is not.
            "type": "emoji_changed",
            "subtype": "add",
            "name": "rollback",
            "value": "https://emoji.example/rollback.png",
            "event_ts": driver.ws.next_ts(),
        }
    )
    assert (await post(bot, json.dumps(joined).encode()))[0] == 200
    limited = {
        "token": "t",
        "type": "app_rate_limited",
        "team_id": driver.ws.team_id,
        "minute_rate_limited": 1518467820,
        "api_app_id": "A0STANDIN",
    }
    assert (await post(bot, json.dumps(limited).encode()))[0] == 200
    await eventually_async(
        lambda: metrics(bot), lambda t: _count(t, "emoji_changed", "ignored") == 1
    )
    assert _count(await metrics(bot), "app_rate_limited", "ignored") == 1
    assert slack_writes(slack) == []


async def test_a_mention_by_a_bot_or_workflow_without_a_user_is_acknowledged_and_not_answered(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Shape of a workflow step's post: bot_id and bot_profile, no `user` (it raised KeyError)."""
    ws = driver.ws
    ts = ws.next_ts()
    workflow = driver.envelope(
        {
            "type": "app_mention",
            "bot_id": "B0WORKFLOW",
            "text": f"<@{ws.bot_user_id}> status?",
            "ts": ts,
            "channel": INCIDENT,
            "event_ts": ts,
            "team": ws.team_id,
            "bot_profile": {
                "id": "B0WORKFLOW",
                "app_id": "A0WF",
                "name": "Workflow Builder",
                "team_id": ws.team_id,
                "deleted": False,
            },
        }
    )
    bot_user = dict(
        workflow,
        event_id="Ev9999999999",
        event={**workflow["event"], "user": "U0OTHERBOT", "ts": ws.next_ts()},
    )
    for envelope in (workflow, bot_user):
        assert (await post(bot, json.dumps(envelope).encode()))[0] == 200
    await eventually_async(
        lambda: metrics(bot), lambda t: _count(t, "app_mention", "not_a_person") == 2
    )
    assert _count(await metrics(bot), "internal", None) == 0
    assert slack_writes(slack) == []
    # A person's mention right after is still answered.
    _, answer = await answered(driver, slack, ALICE, "what changed?")
    assert answer.bot_id == ws.bot_id


async def metrics(bot: Runtime) -> str:
    async with aiohttp.ClientSession() as s, s.get(f"http://127.0.0.1:{bot.port}/metrics") as r:
        return await r.text()


def _count(text: str, kind: str, outcome: str | None) -> float:
    """One counter from /metrics: events by (kind, outcome), or errors by type when no outcome."""
    if outcome is None:
        prefix = f'opsmemory_errors_total{{kind="{kind}"}} '
    else:
        prefix = f'opsmemory_events_total{{kind="{kind}",outcome="{outcome}"}} '
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line.removeprefix(prefix))
    return 0.0
