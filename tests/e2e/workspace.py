"""The e2e Slack world: ids, the seeded workspace, and a poll-until-timeout helper."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bot.standin import FakeSlack, Message, SlackDriver

if TYPE_CHECKING:
    from bot.runtime import Runtime

T = TypeVar("T")
TEAM = "T0STANDIN"

SECRET = "e2e-signing-secret-0123456789"
RUNBOOKS = Path(__file__).parent / "runbooks"
INCIDENT, PRIVATE, GENERAL = "C0INC42", "G0INC43", "C0GENERAL"
ALICE, BOB, GUEST, EXTERNAL, BOSS = "U0ALICE", "U0BOB", "U0GUEST", "U0EXT", "U0BOSS"


def seed(slack: FakeSlack) -> None:
    """A workspace with an incident channel, a private incident channel and #general."""
    ws = slack.workspace
    ws.add_user(ALICE, "alice", real_name="Alice Example")
    ws.add_user(BOB, "bob")
    ws.add_user(BOSS, "boss")
    ws.add_user(GUEST, "guest", is_restricted=True)
    ws.add_user(EXTERNAL, "ext", team_id="T0OTHERORG")
    everyone = [ALICE, BOB, BOSS, GUEST, EXTERNAL]
    ws.add_channel(INCIDENT, "inc-42-checkout-latency", members=everyone)
    ws.add_channel(PRIVATE, "inc-43-payments-breach", private=True, members=[ALICE])
    ws.add_channel(GENERAL, "general", members=everyone)


async def eventually(predicate: Callable[[], Any], within_s: float = 10.0) -> Any:
    """Poll until `predicate()` is truthy (returning it) or fail after `within_s` seconds."""
    deadline = time.monotonic() + within_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


async def answered(
    driver: SlackDriver, slack: FakeSlack, user: str, question: str, channel: str = INCIDENT
) -> tuple[str, Message]:
    """Mention the bot and wait for its answer in the thread: (mention ts, answer message)."""
    (m, _) = await driver.mention(channel, user, question)
    answer = (await eventually(lambda: slack.workspace.bot_messages(channel, m.ts)))[0]
    return m.ts, answer


async def finished(
    bot: Runtime,
    *,
    answers: int = 1,
    duplicates: int = 0,
    already_answered: int = 0,
    captured: int = 0,
    within_s: float = 10.0,
) -> None:
    """Wait until every delivery has reached its last step, as the bot counts them: answers
    posted (`answers_total{stage=cited}`), retries dropped (`outcome=duplicate`), second
    deliveries of an answered message refused (`outcome=already_answered`) and `message`
    deliveries stored (the redaction histogram's count). "Never twice" checks assert on the
    stand-in's calls after this, so a late duplicate cannot slip past a fixed sleep (issue 18)."""
    metrics = bot.deps.metrics
    wanted = [
        (answers, "opsmemory_answers_total", {"stage": "cited"}),
        (duplicates, "opsmemory_events_total", {"kind": "app_mention", "outcome": "duplicate"}),
        (
            already_answered,
            "opsmemory_events_total",
            {"kind": "app_mention", "outcome": "already_answered"},
        ),
        (captured, "opsmemory_redaction_seconds_count", {}),
    ]
    await eventually(
        lambda: all(metrics.sample(name, **labels) >= n for n, name, labels in wanted), within_s
    )


async def eventually_async(
    read: Callable[[], Awaitable[T]], ok: Callable[[T], bool], within_s: float = 10.0
) -> T:
    """Poll an async read until `ok(value)` holds (returning the value) or fail with the last one."""
    deadline = time.monotonic() + within_s
    while True:
        value = await read()
        if ok(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met in time; last value: {value!r}")
        await asyncio.sleep(0.02)


def remember_value(answer: Message) -> str:
    """The value of the answer's "Remember this" button, as Slack sends it back on a click."""
    for block in answer.blocks:
        for element in block.get("elements", []):
            if element.get("action_id") == "remember_answer":
                return str(element["value"])
    raise AssertionError("the answer has no Remember this button")
