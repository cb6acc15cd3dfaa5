"""Slack's 429 + Retry-After is honoured: the post still lands, after the wait (issue 5, item 10)."""

from __future__ import annotations

from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, INCIDENT, eventually


async def test_rate_limited_post_lands_after_retry_after(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    slack.rate_limit("chat.postMessage", retry_after=1)
    (d, _) = await driver.mention(INCIDENT, ALICE, "disk full on db-3?")
    assert d.status == 200 and d.elapsed_s < 0.5
    answers = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, d.ts), within_s=5)
    assert len(answers) == 1
    posts = slack.calls_to("chat.postMessage")
    assert len(posts) == 2
    assert posts[1].at - posts[0].at >= 1.0


async def test_slack_error_is_shown_only_to_the_person_with_a_reference(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    slack.fail("chat.postMessage", "channel_is_archived")
    (d, _) = await driver.mention(INCIDENT, ALICE, "disk full on db-3?")
    texts = await eventually(lambda: [e.text for e in slack.workspace.ephemerals_for(ALICE)])
    assert texts[0].startswith("Something went wrong on our side (ref ")
    assert slack.workspace.bot_messages(INCIDENT, d.ts) == []
