"""A mention in an incident channel gets one threaded, cited answer (issue 5, items 3 and 5)."""

from __future__ import annotations

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, GENERAL, INCIDENT, eventually, finished


async def test_mention_in_thread_gets_one_threaded_answer_citing_the_runbook_section(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    parent = slack.workspace.post(INCIDENT, "checkout p99 is 4s since 10:02", user=ALICE)
    await driver.mention(
        INCIDENT, ALICE, "what should we check for checkout latency?", thread_ts=parent.ts
    )
    await finished(bot, answers=1, captured=1)
    answers = slack.workspace.bot_messages(INCIDENT, parent.ts)
    assert len(answers) == 1
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert answers[0].thread_ts == parent.ts
    text = str(answers[0].blocks)
    assert "checkout-latency › " in text
    assert "Remember this" in text and "Not helpful" in text


async def test_top_level_mention_is_answered_in_its_own_thread(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    (d, _) = await driver.mention(INCIDENT, ALICE, "disk is full on db-3, what now?")
    answers = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, d.ts))
    assert answers[0].thread_ts == d.ts
    assert "disk-full › " in str(answers[0].blocks)


async def test_retried_event_is_answered_once(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "<@U0BOT> checkout latency?", user=ALICE)
    envelope = driver.envelope(driver._message_event(msg, "app_mention"), user=ALICE)
    first = await driver.send_event(envelope)
    retry = await driver.send_event(envelope, retry_num=1, retry_reason="http_timeout")
    assert (first.status, retry.status) == (200, 200)
    await finished(bot, answers=1, duplicates=1)
    assert len(slack.workspace.bot_messages(INCIDENT, msg.ts)) == 1
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert (
        bot.deps.metrics.sample("opsmemory_events_total", kind="app_mention", outcome="duplicate")
        == 1
    )


async def test_app_mention_plus_message_double_delivery_is_answered_once(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    deliveries = await driver.mention(
        INCIDENT, ALICE, "checkout latency after deploy?", also_message=True
    )
    ts = deliveries[0].ts
    await finished(bot, answers=1, captured=1)
    assert len(slack.workspace.bot_messages(INCIDENT, ts)) == 1
    assert len(slack.calls_to("chat.postMessage")) == 1


async def test_one_message_delivered_under_two_event_ids_is_answered_once(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The answer claim alone (issue 18): a second app_mention with a fresh event id (as after
    the first id was pruned) passes the event-id layer and is refused by (team, channel, ts)."""
    msg = slack.workspace.post(INCIDENT, "<@U0BOT> checkout latency?", user=ALICE)
    event = driver._message_event(msg, "app_mention")
    await driver.send_event(driver.envelope(event, user=ALICE))
    await driver.send_event(driver.envelope(event, user=ALICE))
    await finished(bot, answers=1, already_answered=1)
    assert len(slack.workspace.bot_messages(INCIDENT, msg.ts)) == 1
    assert len(slack.calls_to("chat.postMessage")) == 1


async def test_mention_outside_an_incident_channel_explains_how_to_use_the_bot(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    (d, _) = await driver.mention(GENERAL, ALICE, "hello?")
    answers = await eventually(lambda: slack.workspace.bot_messages(GENERAL, d.ts))
    assert "/incident open" in answers[0].text
