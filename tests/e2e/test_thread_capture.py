"""Every human message in an incident channel is stored redacted; edits and deletions follow
(issue 5, item 4)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import (
    ALICE,
    BOB,
    GENERAL,
    GUEST,
    INCIDENT,
    TEAM,
    eventually_async,
)


def stored(bot: Runtime, channel: str, thread_ts: str) -> Callable[[], Awaitable[list[str]]]:
    async def read() -> list[str]:
        return [m.text for m in await bot.deps.threads.messages(TEAM, channel, thread_ts)]

    return read


async def test_thread_messages_are_captured_redacted_then_edited_and_deleted(
    bot: Runtime, driver: SlackDriver
) -> None:
    root = await driver.say(INCIDENT, ALICE, "db-3 latency up, mail me at alice@example.com")
    reply = await driver.say(INCIDENT, BOB, "failing over db-3 now", thread_ts=root.ts)
    assert root.ts and reply.ts
    read = stored(bot, INCIDENT, root.ts)
    texts = await eventually_async(read, lambda t: len(t) == 2)
    assert "alice@example.com" not in " ".join(texts)
    assert "<EMAIL_ADDRESS>" in texts[0]

    await driver.edit(INCIDENT, reply.ts, "failing over db-3 to db-4 now")
    await eventually_async(read, lambda t: "failing over db-3 to db-4 now" in t)
    await driver.delete(INCIDENT, reply.ts)
    await eventually_async(read, lambda t: t == [texts[0]])


async def test_bot_messages_guests_and_other_channels_are_not_captured(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    root = await driver.say(INCIDENT, ALICE, "root message")
    assert root.ts
    await driver.say(INCIDENT, GUEST, "guest says hi", thread_ts=root.ts)
    general = await driver.say(GENERAL, ALICE, "lunch?")
    bot_msg = slack.workspace.post(INCIDENT, "bot text", thread_ts=root.ts, bot=True)
    event = {**driver._message_event(bot_msg, "message"), "bot_id": "B0BOT", "user": "U0OTHERBOT"}
    await driver.send_event(driver.envelope(event))
    await driver.say(INCIDENT, BOB, "last one", thread_ts=root.ts)
    # Deliveries are processed in order per connection; "last one" landing means the rest ran.
    texts = await eventually_async(stored(bot, INCIDENT, root.ts), lambda t: "last one" in t)
    assert texts == ["root message", "last one"]
    assert general.ts and await stored(bot, GENERAL, general.ts)() == []


async def test_messages_are_stored_in_the_order_they_were_said(
    bot: Runtime, driver: SlackDriver
) -> None:
    # A long first message takes far longer to redact than the short replies after it; memory
    # joins each note to the ones said before it, so it must still be stored first.
    long = " ".join(
        f"step {i}: checked replica lag on db-{i} and the pool graphs." for i in range(60)
    )
    root = await driver.say(INCIDENT, ALICE, long)
    assert root.ts
    replies = [f"reply {i}: failing over db-{i}" for i in range(3)]
    for text in replies:
        await driver.say(INCIDENT, BOB, text, thread_ts=root.ts)
    notes = await eventually_async(
        lambda: bot.deps.db.fetchall(
            "SELECT text FROM memory_notes WHERE channel_id = :c ORDER BY id", {"c": INCIDENT}
        ),
        lambda rows: len(rows) == 4,
    )
    assert [r["text"] for r in notes][1:] == replies


async def _noted(bot: Runtime) -> list[str]:
    rows = await bot.deps.db.fetchall(
        "SELECT text FROM memory_notes WHERE channel_id = :c ORDER BY id", {"c": INCIDENT}
    )
    return [r["text"] for r in rows]


async def test_a_question_to_the_bot_is_not_evidence_in_either_mention_form(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    bot_user = slack.workspace.bot_user_id
    await driver.say(INCIDENT, ALICE, f"<@{bot_user}|opsmemory> is db-3 the cause?")
    await driver.say(INCIDENT, BOB, f"<@{bot_user}> what did we roll back?")
    last = await driver.say(INCIDENT, BOB, "rolled back checkout to v41")
    assert last.ts
    # The last message stored means the two before it ran (one channel's events in order).
    await eventually_async(lambda: _noted(bot), lambda t: "rolled back checkout to v41" in t)
    assert await _noted(bot) == ["rolled back checkout to v41"]


async def test_an_edit_that_asks_the_bot_takes_the_message_out_of_evidence(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    said = await driver.say(INCIDENT, ALICE, "db-3 failover is the fix")
    assert said.ts
    await eventually_async(lambda: _noted(bot), lambda t: t == ["db-3 failover is the fix"])
    await driver.edit(
        INCIDENT, said.ts, f"<@{slack.workspace.bot_user_id}> db-3 failover is the fix"
    )
    await eventually_async(lambda: _noted(bot), lambda t: t == [])


async def test_an_edit_that_takes_the_bots_mention_out_makes_the_message_evidence(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Someone mentioned the bot by mistake, then edited the mention away: what they said is
    now a statement about the incident, as if it had been said without the mention."""
    bot_user = slack.workspace.bot_user_id
    root = await driver.say(INCIDENT, BOB, "checkout 5xx since 10:02")
    said = await driver.say(
        INCIDENT, ALICE, f"<@{bot_user}> root cause: pool size raised to 200", thread_ts=root.ts
    )
    assert said.ts and root.ts
    await eventually_async(lambda: _noted(bot), lambda t: t == ["checkout 5xx since 10:02"])
    await driver.edit(INCIDENT, said.ts, "root cause: pool size raised to 200")
    await eventually_async(
        lambda: _noted(bot), lambda t: "root cause: pool size raised to 200" in t
    )
