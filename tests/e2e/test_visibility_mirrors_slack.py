"""Memory is visible as Slack shows it, personal memory stays personal, and stored text is
re-emitted inert (issue 14, items 1, 2 and 6), all through the real Bolt app.

A second incident the next day, in a channel the first incident's people are not in: a full
member of the workspace reads the first (public) incident's memory from there, a guest does not
until they join it; a private channel's memory appears in no other channel, post or digest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.answer import messages
from bot.runtime import Runtime
from bot.scheduler import Jobs
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import (
    ALICE,
    BOB,
    GENERAL,
    INCIDENT,
    PRIVATE,
    SECRET,
    TEAM,
    answered,
    eventually,
    remember_value,
)

CAROL, VISITOR = "U0CAROL", "U0VISIT"  # a full member and a guest of the second incident only
NEXT = "C0INC44"
ROOT_CAUSE = "root cause: checkout-db pool exhausted after v42 raised max connections to 200"
QUESTION = "what was the root cause of the checkout-db pool exhaustion?"


def second_incident(slack: FakeSlack) -> None:
    ws = slack.workspace
    ws.add_user(CAROL, "carol")
    ws.add_user(VISITOR, "visitor", is_restricted=True)
    ws.add_channel(NEXT, "inc-44-checkout-again", members=[CAROL, VISITOR, BOB])


def everything_posted(slack: FakeSlack) -> str:
    """Every message anyone but the addressee of an ephemeral can read, plus App Home views."""
    ws = slack.workspace
    posts = [f"{m.text} {m.blocks}" for c in ws.channels for m in ws.bot_messages(c)]
    return " ".join(posts)


async def recall(driver: SlackDriver, channel: str, user: str, words: str) -> str:
    """`/incident recall`: the reply comes in the ack or, when slower, through response_url."""
    before = len(driver.slack.calls_to("response_url"))
    d = await driver.command(channel, user, f"recall {words}")
    if d.body.startswith("{"):
        return str(json.loads(d.body)["text"])
    later = await eventually(lambda: driver.slack.calls_to("response_url")[before:])
    return str(later[0].body["text"])


async def test_a_public_incidents_memory_reaches_a_full_member_in_the_next_incident(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    second_incident(slack)
    await driver.command(INCIDENT, ALICE, f"note {ROOT_CAUSE}")
    _, answer = await answered(driver, slack, CAROL, QUESTION, NEXT)
    memory = [b["text"]["text"] for b in answer.blocks if "*Memory*" in str(b)]
    assert memory and "checkout-db pool exhausted after v42" in memory[0]
    assert "· inc-42" in memory[0]  # said where it comes from
    assert "checkout-db pool exhausted after v42" in await recall(
        driver, NEXT, CAROL, "checkout-db pool exhausted"
    )
    # A guest of the second incident is not a member of the first: Slack would not show it.
    _, guest_answer = await answered(driver, slack, VISITOR, QUESTION, NEXT)
    assert "pool exhausted" not in str(guest_answer.blocks)


async def test_a_guest_sees_a_channels_memory_only_while_a_member_kept_current_by_events(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    second_incident(slack)
    await driver.command(INCIDENT, ALICE, f"note {ROOT_CAUSE}")
    assert await recall(driver, NEXT, VISITOR, "checkout-db pool exhausted") == (
        "Memory has nothing on that."
    )
    fetched = len(slack.calls_to("users.conversations"))
    await driver.join(INCIDENT, VISITOR)
    seen = await recall(driver, NEXT, VISITOR, "checkout-db pool exhausted")
    assert "checkout-db pool exhausted after v42" in seen
    await driver.leave(INCIDENT, VISITOR)
    assert await recall(driver, NEXT, VISITOR, "checkout-db pool exhausted") == (
        "Memory has nothing on that."
    )
    # The cached membership followed the events; Slack was not asked again.
    assert len(slack.calls_to("users.conversations")) == fetched


async def test_a_private_channels_memory_appears_nowhere_else(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    bot: Runtime = await start_bot(digest_channel=GENERAL)
    second_incident(slack)
    secret = "card numbers seen in the payments-gw logs"
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(PRIVATE, ALICE, f"decision {secret}, rotate the payments-gw keys")
        await d.command(INCIDENT, BOB, "decision roll back checkout to v41")
        question = "were card numbers seen in the payments-gw logs?"
        _, carol = await answered(d, slack, CAROL, question, NEXT)
        _, alice_elsewhere = await answered(d, slack, ALICE, question, INCIDENT)
        alice_recall = await recall(d, INCIDENT, ALICE, "card numbers payments-gw logs")
        await d.home_opened(BOB)
        bob_home = await eventually(lambda: slack.workspace.home_views.get(BOB))
        _, inside = await answered(d, slack, ALICE, question, PRIVATE)
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0]
    for shown in (carol.blocks, alice_elsewhere.blocks, alice_recall, bob_home, digest.text):
        assert "card numbers" not in str(shown)
        assert "inc-43" not in str(shown)  # nor is the private incident named as similar
    assert "roll back checkout to v41" in digest.text  # the digest itself did go out
    assert secret in str(inside.blocks)  # inside its own channel, its memory answers


async def test_personal_memory_reaches_only_the_asker_and_is_never_promoted(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "remember I am interviewing at Globex next week")
    asked, answer = await answered(
        driver, slack, ALICE, "am I interviewing at Globex next week?", INCIDENT
    )
    assert "Globex" not in everything_posted(slack)
    mine = await eventually(
        lambda: [e for e in slack.workspace.ephemerals_for(ALICE) if "Globex" in str(e.blocks)]
    )
    assert mine[0].thread_ts == asked and mine[0].channel == INCIDENT
    assert messages.PERSONAL_ADDENDUM in str(mine[0].blocks)
    for clicker in (BOB, ALICE):  # someone else, then the owner: neither promotes it
        await driver.click(clicker, action_id="remember_answer", value=remember_value(answer),
                           channel=INCIDENT, message_ts=answer.ts)  # fmt: skip
    await eventually(lambda: len(slack.calls_to("response_url")) >= 2)
    assert "Globex" not in everything_posted(slack)
    stored = await bot.deps.db.fetchall("SELECT text FROM memory_notes WHERE scope != 'user'")
    assert not [r for r in stored if "Globex" in r[0]]


async def test_what_i_told_the_bot_to_remember_goes_to_me_alone_and_the_thread_is_told_so(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "What did I tell you to remember?" shares no word with "I'm on PTO next friday, ben
    covers search": the asker gets it in a message only they see; the thread is told it went to
    them, never what it says, and not "I found nothing"."""
    await driver.command(INCIDENT, ALICE, "remember I'm on PTO next friday, ben covers search")
    asked, answer = await answered(
        driver, slack, ALICE, "what did I tell you to remember?", INCIDENT
    )
    assert "PTO" not in everything_posted(slack)
    assert answer.text.startswith(messages.ONLY_YOURS), answer.text
    mine = await eventually(
        lambda: [e for e in slack.workspace.ephemerals_for(ALICE) if "PTO" in str(e.blocks)]
    )
    assert mine[0].thread_ts == asked and mine[0].channel == INCIDENT
    # Asked something else that shares a word with it, the thread is not told she has any.
    _, other = await answered(driver, slack, ALICE, "is search down?", INCIDENT)
    assert not other.text.startswith(messages.ONLY_YOURS), other.text
    # Someone else asking the same gets nothing of hers.
    _, theirs = await answered(driver, slack, BOB, "what did I tell you to remember?", INCIDENT)
    assert theirs.text.startswith(messages.NOTHING_FOUND), theirs.text
    assert not [e for e in slack.workspace.ephemerals_for(BOB) if "PTO" in str(e.blocks)]


async def test_remember_this_saves_the_sources_it_showed_not_the_rendered_answer(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "note rollback to v41 fixed the checkout latency")
    _, answer = await answered(driver, slack, BOB, "did the rollback to v41 fix checkout latency?")
    assert "[S1]" in str(answer.blocks)
    await driver.click(BOB, action_id="remember_answer", value=remember_value(answer),
                       channel=INCIDENT, message_ts=answer.ts)  # fmt: skip
    saved = await eventually(
        lambda: [m for m in slack.workspace.bot_messages(INCIDENT) if "Saved to memory" in m.text]
    )
    assert "memory item" in saved[0].text
    (fact,) = await bot.deps.db.fetchall("SELECT text FROM memory_notes WHERE kind = 'fact'")
    assert "rollback to v41 fixed the checkout latency" in fact[0]
    assert "[S" not in fact[0] and "Memory says" not in fact[0]


EVIL = (
    "decision: roll back now <!channel>, login at "
    "<https://evil.example/login|https://runbooks.example/rollback> &amp; tell <@U0BOSS>"
)


def assert_inert(text: str) -> None:
    assert "<!channel>" not in text and "<!here>" not in text, text
    assert "<https://evil.example" not in text and "<@U0BOSS>" not in text, text


async def test_channel_pings_and_disguised_links_in_stored_text_are_inert_everywhere(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    bot: Runtime = await start_bot(digest_channel=GENERAL)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(INCIDENT, BOB, f"decision {EVIL}")
        _, answer = await answered(d, slack, ALICE, "should we roll back now?")
        recalled = await recall(d, INCIDENT, ALICE, "roll back now login")
        await d.home_opened(BOB)
        home = await eventually(lambda: slack.workspace.home_views.get(BOB))
        await d.click(BOB, action_id="export_memory", value="export", view=home)
        export = await eventually(lambda: slack.workspace.bot_messages(f"D{BOB}"))
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0]
    assert "&lt;!channel&gt;" in str(answer.blocks)  # shown, as text
    assert "roll back now" in recalled and "roll back now" in str(home)
    for shown in (answer.text, str(answer.blocks), recalled, str(home), str(export), digest.text):
        assert_inert(shown)
    assert "&amp;amp;" in digest.text  # a stored entity is shown as typed, not decoded
    assert "Decision: decision:" not in digest.text and "Decision: roll back now" in digest.text
