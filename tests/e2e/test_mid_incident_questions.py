"""Questions people ask mid-incident in a consumer-lag thread, through the real Bolt stack: the
current reading, the dashboard's link, what to tell customers, when it began and ended, and
what the asker owes, each answered from what the thread said, with no runbook where none can
know the answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import knowledge
from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, BOB, BOSS, INCIDENT, answered, finished

REPORT = "order-events consumer lag climbing since ~08:00, now 1.2M msgs behind"
THREAD = [
    (BOB, "on it. grafana: https://grafana.example.com/d/kafka-lag?var-group=order-confirm"),
    (BOB, "consumers rebalancing every ~40s, CommitFailedException in the logs"),
    (ALICE, "fwiw we shipped order-confirm 3.14 at 07:52, it renders PDFs in the consumer loop"),
    (
        BOB,
        "that'd do it - PDF render takes ~6s per batch, max.poll.interval.ms is 5000 so the"
        " broker kicks them out",
    ),
    (ALICE, "decision: roll back order-confirm to 3.13"),
    (BOSS, "status page posted: 'Order emails are delayed. Orders themselves are not affected.'"),
    (ALICE, "rollback done, 3.13 running on all 6 pods. no more rebalances"),
    (BOB, "lag draining ~40k/min, 700k behind now"),
    (BOB, "lag back to 0 at 09:07. all delayed confirmations sent"),
    (
        ALICE,
        "follow-ups: move PDF rendering to a worker (bob), alert on rebalance rate (boss),"
        " add a poll-interval check to the release checklist (alice)",
    ),
]

#: The runbooks the bot ships with: the queue-backlog one is what search finds for "lag".
BUNDLED = Path(knowledge.__file__).parent / "runbooks"


@pytest.fixture
async def bot(start_bot: Callable[..., Any]) -> Runtime:
    return await start_bot(runbooks_dir=BUNDLED)


async def _lag_thread(bot: Runtime, driver: SlackDriver, upto: int = len(THREAD)) -> None:
    await driver.command(INCIDENT, ALICE, "open sev2 orders consumer lag, confirmations delayed")
    root = await driver.say(INCIDENT, ALICE, REPORT)
    for user, text in THREAD[:upto]:
        await driver.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=1 + upto)


def _runbook_shown(blocks: list[dict[str, object]]) -> bool:
    return "*Runbooks*" in json.dumps(blocks)


async def test_whats_the_lag_now_leads_with_the_newest_reading_and_no_runbook(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _lag_thread(bot, driver, upto=8)
    _, answer = await answered(driver, slack, BOSS, "whats the lag now")
    first = answer.text.splitlines()[0]
    assert "700k behind now" in first, answer.text
    assert not _runbook_shown(answer.blocks), answer.text  # no runbook knows our lag


async def test_a_link_question_gets_the_message_with_the_link_not_a_runbook_without_one(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _lag_thread(bot, driver, upto=8)
    _, answer = await answered(driver, slack, BOSS, "link to the lag dashboard?")
    assert "grafana.example.com/d/kafka-lag" in answer.text.splitlines()[0], answer.text
    assert not _runbook_shown(answer.blocks), answer.text


async def test_what_to_tell_customers_with_their_question_gets_the_status(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _lag_thread(bot, driver, upto=6)  # the status is the newest word
    _, answer = await answered(
        driver, slack, BOSS, "what should I tell customers? are orders lost?"
    )
    assert "status page posted" in answer.text.splitlines()[0], answer.text
    assert "Orders themselves are not affected" in json.dumps(answer.blocks), answer.text
    assert not _runbook_shown(answer.blocks), answer.text


async def test_when_it_began_and_when_it_was_over(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _lag_thread(bot, driver)
    _, answer = await answered(driver, slack, BOSS, "when did it start and when was it over?")
    assert "Began [S1]" in answer.text and "since ~08:00" in answer.text, answer.text
    assert "Recovered [S2]" in answer.text and "back to 0 at 09:07" in answer.text, answer.text


async def test_each_owner_of_a_list_of_follow_ups_signed_in_parentheses_owes_theirs(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _lag_thread(bot, driver)
    _, answer = await answered(driver, slack, BOSS, "what do I owe?")
    assert "alert on rebalance rate (boss)" in answer.text, answer.text


async def test_why_before_any_root_cause_is_labelled_gets_the_reply_that_explained_it(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The explanation shares no word with the question; it follows the report it explains."""
    await _lag_thread(bot, driver, upto=8)
    _, answer = await answered(driver, slack, BOSS, "why did the consumers keep rebalancing?")
    first = answer.text.splitlines()[0]
    assert "that'd do it" in first.replace("&#39;", "'"), answer.text
    assert "consumers rebalancing every ~40s" in json.dumps(answer.blocks), answer.text


async def test_a_link_to_a_runbook_is_still_the_runbook(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _lag_thread(bot, driver, upto=8)
    _, answer = await answered(driver, slack, BOSS, "link to the queue backlog runbook?")
    assert "queue-backlog" in json.dumps(answer.blocks), answer.text
