"""Socket Mode: the same app answers over the stand-in's WebSocket; first deliveries carry retry
number 0 and still get answered, a redelivery is not answered twice (issue 5, items 1 and 5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aiohttp

from bot.app import build_app
from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, INCIDENT, SECRET, eventually


async def test_mention_over_socket_mode_is_answered_once_despite_redelivery(
    bot_settings: Callable[..., Settings], slack: FakeSlack
) -> None:
    runtime = await build_app(bot_settings(slack_app_token=slack.workspace.app_token))
    try:
        await runtime.warm_up()
        await runtime.start_socket_mode()
        await slack.sockets.wait_connected()
        driver = SlackDriver("unused", SECRET, slack)
        msg = slack.workspace.post(INCIDENT, "<@U0BOT> disk full on db-3?", user=ALICE)
        payload: dict[str, Any] = driver.envelope(
            driver._message_event(msg, "app_mention"), user=ALICE
        )
        ack = await slack.sockets.push("events_api", payload, retry_attempt=0)
        assert ack["envelope_id"]
        await slack.sockets.push("events_api", payload, retry_attempt=1)
        answers = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, msg.ts))
        assert "disk-full › " in str(answers[0].blocks)
        assert (
            runtime.deps.metrics.sample(
                "opsmemory_events_total", kind="app_mention", outcome="duplicate"
            )
            == 1
        )
        assert len(slack.workspace.bot_messages(INCIDENT, msg.ts)) == 1
    finally:
        await runtime.stop()


async def test_socket_mode_serves_health_and_metrics_but_no_events_url(
    bot_settings: Callable[..., Settings], slack: FakeSlack
) -> None:
    """/healthz works in both modes (Docker health check); in Socket Mode nothing can be POSTed
    to /slack/events, so no request can bypass the socket."""
    runtime = await build_app(bot_settings(slack_app_token=slack.workspace.app_token))
    try:
        await runtime.start_socket_mode()
        port = await runtime.start_http(host="127.0.0.1", port=0, slack_events=False)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/healthz") as resp:
                assert resp.status == 200
            async with session.get(f"http://127.0.0.1:{port}/metrics") as resp:
                assert resp.status == 200
            async with session.post(f"http://127.0.0.1:{port}/slack/events", data="{}") as resp:
                assert resp.status == 404
    finally:
        await runtime.stop()
