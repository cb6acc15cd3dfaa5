"""Requests are verified exactly as Slack signs them (issue 5): bad signature or stale → 401."""

from __future__ import annotations

import time

import aiohttp

from bot.runtime import Runtime
from bot.standin import SlackDriver
from tests.e2e.workspace import INCIDENT, SECRET


async def test_bad_signature_is_refused_with_401(driver: SlackDriver) -> None:
    envelope = driver.envelope({"type": "app_home_opened", "user": "U0ALICE", "tab": "home"})
    d = await driver.send_event(envelope, secret="not-" + SECRET)
    assert d.status == 401


async def test_timestamp_older_than_5_minutes_is_refused_with_401(driver: SlackDriver) -> None:
    envelope = driver.envelope({"type": "app_home_opened", "user": "U0ALICE", "tab": "home"})
    d = await driver.send_event(envelope, timestamp=int(time.time()) - 6 * 60)
    assert d.status == 401


async def test_correctly_signed_command_is_accepted(driver: SlackDriver) -> None:
    d = await driver.command(INCIDENT, "U0ALICE", "help")
    assert d.status == 200


async def test_url_verification_challenge_is_echoed(driver: SlackDriver) -> None:
    import json

    body = json.dumps({"token": "t", "challenge": "abc123", "type": "url_verification"})
    d = await driver.send(body, content_type="application/json")
    assert (d.status, d.json()) == (200, {"challenge": "abc123"})


async def test_healthz_and_metrics_are_served(bot: Runtime, driver: SlackDriver) -> None:
    await driver.command(INCIDENT, "U0ALICE", "help")
    async with aiohttp.ClientSession() as s:
        async with s.get(f"http://127.0.0.1:{bot.port}/healthz") as r:
            assert (r.status, await r.json()) == (200, {"ok": True})
        async with s.get(f"http://127.0.0.1:{bot.port}/metrics") as r:
            text = await r.text()
    assert r.headers["Content-Type"].startswith("text/plain")
    assert 'opsmemory_events_total{kind="command",outcome="accepted"} 1' in text
