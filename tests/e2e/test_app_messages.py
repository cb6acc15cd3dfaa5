"""Alerts other apps post into an incident channel are memory, through the real Bolt stack: the
thread an Alertmanager post opens is about that alert, an app's update replaces what it said,
and this bot's own posts, apps' posts outside incidents and other organisations' apps are never
stored. Redaction applies to them as to people."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, GENERAL, INCIDENT, SECRET, eventually, finished

CORPUS = Path(__file__).parent / "runbook_sections"

ALERT = [
    {
        "fallback": "[FIRING:1] CPUThrottlingHigh checkout/api",
        "title": "[FIRING:1] CPUThrottlingHigh checkout/api",
        "text": "60% throttling of CPU in namespace checkout for container api in the last 15m.",
        "color": "danger",
    }
]


@pytest.fixture
async def bot(start_bot: Callable[..., Any]) -> Runtime:
    return await start_bot(runbooks_dir=CORPUS, runbooks_url="https://runbooks.example.com")


@pytest.fixture
async def driver(bot: Runtime, slack: FakeSlack) -> AsyncIterator[SlackDriver]:
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        yield d


async def stored(bot: Runtime) -> list[str]:
    rows = await bot.deps.db.fetchall("SELECT text FROM memory_thread_messages ORDER BY id")
    return [str(r["text"]) for r in rows]


async def test_a_vague_question_under_an_alertmanager_post_gets_that_alerts_runbook(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    root, _ = await driver.app_post(INCIDENT, "Alertmanager", "", attachments=ALERT)
    await finished(bot, answers=0, captured=1)
    await driver.mention(INCIDENT, ALICE, "what do we do now?", thread_ts=root.ts)
    (answer,) = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, root.ts))
    assert str(answer.text).startswith("*cpu-throttling-high › Mitigation"), answer.text[:200]


async def test_what_an_alert_said_is_recalled_with_the_app_as_its_author(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.app_post(INCIDENT, "Alertmanager", "", attachments=ALERT)
    await finished(bot, answers=0, captured=1)
    (d, *_) = await driver.mention(INCIDENT, ALICE, "which alert fired for checkout/api?")
    (answer,) = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, d.ts))
    shown = str(answer.blocks)
    assert "CPUThrottlingHigh checkout/api" in shown
    assert "note · Alertmanager (app)" in shown  # the memory item's label: who said it


async def test_an_apps_post_is_plain_talk_whatever_its_words_say(
    bot: Runtime, driver: SlackDriver
) -> None:
    """A pager's "Assigned to Ana" owns nothing and "[RESOLVED]" is no one's status call: an
    app's post is never filed as an action, decision, mitigation, status or correction."""
    pager = "Incident #88 triggered: checkout 5xx. Assigned to Ana. Deployment paused."
    root, _ = await driver.app_post(INCIDENT, "PagerDuty", pager)
    await finished(bot, answers=0, captured=1)
    first = await bot.deps.db.fetchall("SELECT kind FROM memory_notes")
    assert [r["kind"] for r in first] == ["note"]  # as posted, before any update
    resolved = [{**ALERT[0], "title": "[RESOLVED] CPUThrottlingHigh checkout/api"}]
    await driver.edit(INCIDENT, root.ts, "", attachments=resolved)
    await stored_once(bot, lambda t: "[RESOLVED]" in " ".join(t))
    # The note is replaced after the thread message is (its own write): wait for it as well.
    deadline = time.monotonic() + 10.0
    query = "SELECT kind, author_name, text FROM memory_notes"
    rows = await bot.deps.db.fetchall(query)
    while not any("[RESOLVED]" in str(r["text"]) for r in rows):
        assert time.monotonic() < deadline, f"the note was never updated: {rows}"
        await asyncio.sleep(0.02)
        rows = await bot.deps.db.fetchall(query)
    assert [(r["kind"], r["author_name"]) for r in rows] == [("note", "PagerDuty (app)")]


async def test_an_apps_update_replaces_what_it_said(bot: Runtime, driver: SlackDriver) -> None:
    root, _ = await driver.app_post(INCIDENT, "Alertmanager", "", attachments=ALERT)
    await finished(bot, answers=0, captured=1)
    resolved = [{**ALERT[0], "title": "[RESOLVED] CPUThrottlingHigh checkout/api"}]
    await driver.edit(INCIDENT, root.ts, "", attachments=resolved)
    texts = await stored_once(bot, lambda t: "[RESOLVED]" in " ".join(t))
    assert not any("[FIRING:1]" in t for t in texts)


async def stored_once(bot: Runtime, ok: Callable[[list[str]], bool]) -> list[str]:
    """The stored message texts once `ok` holds for them (the edit lands after its ack)."""
    deadline = time.monotonic() + 10.0
    while not ok(texts := await stored(bot)):
        assert time.monotonic() < deadline, f"never stored as expected: {texts}"
        await asyncio.sleep(0.02)
    return texts


async def test_this_bots_own_posts_are_never_stored(bot: Runtime, driver: SlackDriver) -> None:
    """Slack sends `message` events for the bot's own answers too (new, and edited when the
    model's version replaces the cited one): memory of its own words would quote itself back
    as evidence. Sent with its bot id, with only its user id, and as an edit. Bolt's own
    self-event filter drops these first; `from_event`'s check, the second layer, is tested in
    tests/bot/test_app_messages.py."""
    ws = driver.ws
    own = ws.post(INCIDENT, "Memory says: the rollback to v41 finished", bot=True)
    event = {**own.as_api(), "channel": INCIDENT, "event_ts": own.ts, "channel_type": "channel"}
    by_user = {**event, "bot_id": "B0OTHERID", "user": ws.bot_user_id}
    edited = {
        "type": "message",
        "subtype": "message_changed",
        "channel": INCIDENT,
        "ts": ws.next_ts(),
        "event_ts": ws.next_ts(),
        "message": {**own.as_api(), "text": "Memory says: the rollback to v40 finished"},
        "channel_type": "channel",
    }
    for sent in (event, by_user, edited):
        await driver.send_event(driver.envelope(sent))
    await driver.app_post(INCIDENT, "Alertmanager", "", attachments=ALERT)
    await finished(bot, answers=0, captured=1)
    await eventually(lambda: bot.inflight.idle)
    assert await stored(bot) == [
        "[FIRING:1] CPUThrottlingHigh checkout/api\n"
        "60% throttling of CPU in namespace checkout for container api in the last 15m."
    ]


async def test_apps_outside_incidents_and_of_other_organisations_are_not_stored(
    bot: Runtime, driver: SlackDriver
) -> None:
    """#general is no incident; in an incident channel shared with a vendor (Slack Connect),
    the vendor's pager and an app naming no team are refused, a person's message is kept."""
    shared = "C0SHARED"
    driver.ws.add_channel(shared, "inc-45-shared-with-vendor", ext_shared=True, members=[ALICE])
    await driver.app_post(GENERAL, "Alertmanager", "", attachments=ALERT)
    await driver.app_post(shared, "Alertmanager", "", attachments=ALERT)  # names no team
    foreign = driver.ws.post_app(shared, "Their pager", app="Their pager", bot_id="B0THEIRS")
    event = {
        **foreign.as_api(),
        "bot_profile": {"id": "B0THEIRS", "name": "Their pager", "team_id": "T0OTHER"},
        "channel": shared,
        "event_ts": foreign.ts,
        "channel_type": "channel",
    }
    await driver.send_event(driver.envelope(event))
    await driver.say(shared, ALICE, "checkout is throttled, looking")
    await finished(bot, answers=0, captured=1)
    await eventually(lambda: bot.inflight.idle)  # every other delivery has run to its end too
    assert await stored(bot) == ["checkout is throttled, looking"]


async def test_an_apps_post_is_redacted_before_it_is_stored(
    bot: Runtime, driver: SlackDriver
) -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    await driver.app_post(INCIDENT, "deploy-bot", f"deploy failed: credentials {key} rejected")
    await finished(bot, answers=0, captured=1)
    (text,) = await stored(bot)
    assert key not in text
    assert text.startswith("deploy failed: credentials")
