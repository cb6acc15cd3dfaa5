"""A stop drains (issue 18): /healthz turns 503 first, new deliveries are refused, accepted work
finishes before the database closes, and work that outlives the grace period is named."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from memory.store.db import Database
from tests.e2e.process import BotProcess
from tests.e2e.workspace import ALICE, BOB, INCIDENT, SECRET, eventually_async

CAPTURED = "SELECT count(*) FROM memory_thread_messages"


async def count(database: Path, sql: str) -> int:
    """Count from a fresh connection: what a restarted bot would find."""
    db = await Database.open(database, migrate=False)
    try:
        return int(await db.scalar(sql))
    finally:
        await db.close()


async def health(session: aiohttp.ClientSession, port: int | None) -> tuple[int, Any]:
    async with session.get(f"http://127.0.0.1:{port}/healthz") as r:
        return r.status, await r.json()


async def burst(d: SlackDriver, n: int) -> list[str]:
    """A root message and n-1 concurrent replies in its thread, all acknowledged (200); returns
    their event ids."""
    root = await d.say(INCIDENT, ALICE, "checkout p99 is 4 s since the deploy")
    replies = await asyncio.gather(
        *(d.say(INCIDENT, BOB, f"update {i}: pool at 80", thread_ts=root.ts) for i in range(n - 1))
    )
    deliveries = [root, *replies]
    assert {x.status for x in deliveries} == {200}
    return [str(x.event_id) for x in deliveries]


async def test_every_acknowledged_message_is_stored_when_stop_follows_at_once(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """300 acknowledged, then stop: the issue saw 0 stored and a ValueError in the log."""
    bot: Runtime = await start_bot()
    gate = slack.hold("conversations.info")  # every capture waits here, so all are in flight
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await burst(d, 300)
        stopping = asyncio.create_task(bot.stop())
        gate.set()
        report = await stopping
    assert report.clean and report.listeners == []
    assert await count(bot.settings.database_path, CAPTURED) == 300


async def test_health_turns_503_and_new_deliveries_are_refused_while_draining(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    bot: Runtime = await start_bot()
    gate = slack.hold("conversations.info")
    async with (
        SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d,
        aiohttp.ClientSession() as http,
    ):
        assert (await health(http, bot.port))[0] == 200
        await burst(d, 3)
        stopping = asyncio.create_task(bot.stop())
        draining = await eventually_async(lambda: health(http, bot.port), lambda h: h[0] == 503)
        assert draining == (503, {"ok": False, "draining": True})
        late = await d.say(INCIDENT, ALICE, "arrives after the stop began")
        assert late.status == 503  # not acknowledged, so Slack delivers it again later
        note = await d.command(INCIDENT, ALICE, "note arrives after the stop began")
        assert note.status == 503
        assert not stopping.done()  # still waiting for the three held captures
        gate.set()
        report = await stopping
    assert report.clean
    assert await count(bot.settings.database_path, CAPTURED) == 3
    # Each stored thread message is also a note (issue 14); the late slash note is not stored.
    assert await count(bot.settings.database_path, "SELECT count(*) FROM memory_notes") == 3


async def test_work_outliving_the_grace_period_is_cancelled_and_named_by_id(
    start_bot: Callable[..., Any], slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    bot: Runtime = await start_bot(shutdown_grace_s=0.2)
    gate = slack.hold("conversations.info")  # never answered before the grace period ends
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        event_ids = await burst(d, 3)
    with caplog.at_level(logging.INFO, logger="opsmemory"):
        report = await bot.stop()
    gate.set()
    assert not report.clean
    assert sorted(str(w.event_id) for w in report.listeners) == sorted(event_ids)
    assert {w.kind for w in report.listeners} == {"message"}
    (abandoned,) = [r for r in caplog.records if r.getMessage() == "drain_abandoned"]
    assert abandoned.event_ids == sorted(event_ids)  # type: ignore[attr-defined]
    assert abandoned.listeners == 3  # type: ignore[attr-defined]
    assert "pool at 80" not in caplog.text  # ids only, never message text
    assert not [r for r in caplog.records if r.getMessage() == "listener_failed"]


async def test_sigterm_after_a_burst_stores_every_acknowledged_message_and_exits_0(
    slack: FakeSlack, tmp_path: Path
) -> None:
    bot = BotProcess(slack, tmp_path / "data")
    await bot.start()
    try:
        async with SlackDriver(bot.events_url, SECRET, slack) as d:
            note = await d.command(INCIDENT, ALICE, "note raised the pool to 80 on checkout-db")
            await burst(d, 200)
            bot.signal(signal.SIGTERM)  # captures are still queued for the writer here
        assert note.status == 200 and note.json()["text"].startswith("Saved note note:")
        assert await bot.wait() == 0
    finally:
        await bot.kill()
    assert bot.events("drain_done") and not bot.events("listener_failed")
    assert await count(bot.database, CAPTURED) == 200
    # The slash note plus every stored thread message as a note (issue 14).
    assert await count(bot.database, "SELECT count(*) FROM memory_notes") == 201


async def test_sigterm_with_work_stuck_past_the_grace_period_exits_1_naming_it(
    slack: FakeSlack, tmp_path: Path
) -> None:
    bot = BotProcess(slack, tmp_path / "data", OPSMEMORY_SHUTDOWN_GRACE_S="0.5")
    await bot.start()
    gate = slack.hold("conversations.info")
    try:
        async with SlackDriver(bot.events_url, SECRET, slack) as d:
            event_ids = await burst(d, 2)
            await slack.wait_for(lambda: slack.calls_to("conversations.info"))
            bot.signal(signal.SIGTERM)
            assert await bot.wait() == 1
    finally:
        gate.set()
        await bot.kill()
    (abandoned,) = bot.events("drain_abandoned")
    assert abandoned["event_ids"] == sorted(event_ids)
    assert abandoned["listener_kinds"] == ["message"]


async def test_a_second_signal_stops_waiting_for_stuck_work_and_exits_1(
    slack: FakeSlack, tmp_path: Path
) -> None:
    """The first SIGTERM drains with a long grace period; a second one (an impatient operator,
    or the orchestrator's escalation) abandons the wait at once and names what was left."""
    bot = BotProcess(slack, tmp_path / "data", OPSMEMORY_SHUTDOWN_GRACE_S="120")
    await bot.start()
    gate = slack.hold("conversations.info")
    try:
        async with SlackDriver(bot.events_url, SECRET, slack) as d:
            event_ids = await burst(d, 2)
            await slack.wait_for(lambda: slack.calls_to("conversations.info"))
            bot.signal(signal.SIGTERM)
            await eventually_async(
                lambda: asyncio.sleep(0, bot.events("drain_started")), lambda e: bool(e)
            )
            bot.signal(signal.SIGTERM)
            assert await bot.wait(within_s=30) == 1  # long before the 120 s grace period
    finally:
        gate.set()
        await bot.kill()
    assert bot.events("stop_hurried")
    (abandoned,) = bot.events("drain_abandoned")
    assert abandoned["event_ids"] == sorted(event_ids)


async def test_socket_mode_stop_drains_acked_frames_and_leaves_new_ones_unacked(
    bot_settings: Callable[..., Any], slack: FakeSlack
) -> None:
    """Over Socket Mode, frames acknowledged before the stop are stored; a frame arriving while
    draining gets no ack, so Slack redelivers it to a live connection."""
    from bot.app import build_app

    runtime = await build_app(bot_settings(slack_app_token=slack.workspace.app_token))
    await runtime.warm_up()
    await runtime.start_socket_mode()
    await slack.sockets.wait_connected()
    driver = SlackDriver("unused", SECRET, slack)
    gate = slack.hold("conversations.info")
    root = slack.workspace.post(INCIDENT, "checkout p99 is 4 s since the deploy", user=ALICE)
    replies = [
        slack.workspace.post(INCIDENT, f"update {i}: pool at 80", user=BOB, thread_ts=root.ts)
        for i in range(20)
    ]
    for msg in [root, *replies]:
        payload = driver.envelope(driver._message_event(msg, "message"), user=msg.user)
        assert (await slack.sockets.push("events_api", payload))["envelope_id"]
    stopping = asyncio.create_task(runtime.stop())
    await eventually_async(
        lambda: asyncio.sleep(0, runtime.inflight.accepting), lambda accepting: not accepting
    )
    late = slack.workspace.post(INCIDENT, "arrives while draining", user=ALICE)
    late_payload = driver.envelope(driver._message_event(late, "message"), user=ALICE)
    with pytest.raises(TimeoutError):
        await slack.sockets.push("events_api", late_payload, within_s=0.5)
    assert not stopping.done()  # the 21 acked captures wait on the held channel lookup
    gate.set()
    report = await stopping
    assert report.clean
    assert await count(runtime.settings.database_path, CAPTURED) == 21
