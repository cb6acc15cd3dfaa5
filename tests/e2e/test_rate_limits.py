"""Slack's 429 + Retry-After is honoured: the post still lands, after the wait (issue 5, item 10)."""

from __future__ import annotations

import asyncio

from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, INCIDENT, eventually


async def test_rate_limited_post_lands_after_retry_after(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    """The stand-in refuses (429 again) any post made before Retry-After has passed, so exactly
    two calls mean the bot waited; the delivery is acked before the post can land."""
    slack.rate_limit("chat.postMessage", retry_after=1, enforce=True)
    (d, _) = await driver.mention(INCIDENT, ALICE, "disk full on db-3?")
    assert d.status == 200
    assert slack.workspace.bot_messages(INCIDENT, d.ts) == []  # acked before the answer landed
    answers = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, d.ts), within_s=5)
    assert len(answers) == 1
    assert len(slack.calls_to("chat.postMessage")) == 2


async def test_mention_is_acked_while_its_answer_is_still_being_posted(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    gate = slack.hold("chat.postMessage")
    async with asyncio.timeout(10):  # a bot that answered before acking would hang here
        (d, _) = await driver.mention(INCIDENT, ALICE, "disk full on db-3?")
    assert d.status == 200
    await eventually(lambda: slack.calls_to("chat.postMessage"))  # the answer is on its way
    assert slack.workspace.bot_messages(INCIDENT, d.ts) == []
    gate.set()
    await eventually(lambda: slack.workspace.bot_messages(INCIDENT, d.ts))


async def test_slack_error_is_shown_only_to_the_person_with_a_reference(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    slack.fail("chat.postMessage", "channel_is_archived")
    (d, _) = await driver.mention(INCIDENT, ALICE, "disk full on db-3?")
    texts = await eventually(lambda: [e.text for e in slack.workspace.ephemerals_for(ALICE)])
    assert texts[0].startswith("Something went wrong on our side (ref ")
    assert slack.workspace.bot_messages(INCIDENT, d.ts) == []
