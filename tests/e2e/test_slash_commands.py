"""`/incident` subcommands through signed form posts; replies arrive on response_url
(issue 5, item 6)."""

from __future__ import annotations

import asyncio

from bot.runtime import Runtime
from bot.scheduler import Jobs
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import (
    ALICE,
    BOB,
    EXTERNAL,
    GENERAL,
    GUEST,
    INCIDENT,
    PRIVATE,
    TEAM,
    eventually,
)


def ephemerals(slack: FakeSlack, user: str) -> list[str]:
    return [e.text for e in slack.workspace.ephemerals_for(user)]


async def reply_to(slack: FakeSlack, driver: SlackDriver, user: str, channel: str,
                   text: str) -> str:  # fmt: skip
    """Run a command and return the one reply the user sees (ephemeral or in channel)."""
    before = len(slack.calls_to("response_url"))
    d = await driver.command(channel, user, text)
    assert d.status == 200
    if d.body:  # writes answer in the ack itself, after their commit (issue 18)
        return str(d.json()["text"])
    calls = await eventually(lambda: slack.calls_to("response_url")[before:])
    return str(calls[0].body["text"])


async def test_bad_input_gets_an_ephemeral_message_naming_the_problem_and_usage(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "frobnicate")
    texts = await eventually(lambda: ephemerals(slack, ALICE))
    assert "`frobnicate` is not an /incident subcommand" in texts[0]
    assert "Usage: `/incident <subcommand>" in texts[0]
    assert slack.workspace.bot_messages(INCIDENT) == []


async def test_note_then_recall_finds_it_in_this_incident(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    saved = await reply_to(slack, driver, ALICE, INCIDENT, "decision fail over db-3 to db-4")
    assert saved.startswith("Saved decision note:") and "inc-42" in saved
    found = await reply_to(slack, driver, ALICE, INCIDENT, "recall fail over db-3")
    assert "fail over db-3 to db-4" in found


async def test_open_status_and_help(driver: SlackDriver, slack: FakeSlack) -> None:
    opened = await reply_to(slack, driver, ALICE, GENERAL, "open sev2 Checkout is down")
    assert "(sev2): Checkout is down" in opened
    status = await reply_to(slack, driver, ALICE, GENERAL, "status mitigated")
    assert " is mitigated " in status
    usage = await reply_to(slack, driver, ALICE, GENERAL, "help")
    assert "`whoami`" in usage


async def test_runbook_lookup_cites_slug_and_section(driver: SlackDriver, slack: FakeSlack) -> None:
    text = await reply_to(slack, driver, ALICE, INCIDENT, "runbook disk full on a node")
    assert "disk-full › " in text


async def test_remember_whoami_and_forget(driver: SlackDriver, slack: FakeSlack) -> None:
    saved = await reply_to(slack, driver, ALICE, INCIDENT, "remember I own the checkout service")
    item = saved.split("(item ")[1].split(")")[0]
    who = await reply_to(slack, driver, ALICE, INCIDENT, "whoami")
    assert "I own the checkout service" in who
    forgot = await reply_to(slack, driver, ALICE, INCIDENT, f"forget {item}")
    assert forgot == f"Forgot item {item}."
    assert "remember nothing" in await reply_to(slack, driver, ALICE, INCIDENT, "whoami")


async def test_guest_cannot_write_but_is_told_why(driver: SlackDriver, slack: FakeSlack) -> None:
    text = await reply_to(slack, driver, GUEST, INCIDENT, "note the cache is cold")
    assert "Guests and people from other organisations" in text
    found = await reply_to(slack, driver, ALICE, INCIDENT, "recall cache is cold")
    assert "nothing" in found


async def test_guest_cannot_change_an_incident_status(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await reply_to(slack, driver, ALICE, INCIDENT, "open sev2 Checkout latency")
    text = await reply_to(slack, driver, GUEST, INCIDENT, "status resolved")
    assert "Guests and people from other organisations" in text
    status = await reply_to(slack, driver, ALICE, INCIDENT, "status")
    assert "open" in status and "resolved" not in status


async def test_private_channel_memory_is_never_shown_elsewhere(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await reply_to(slack, driver, ALICE, PRIVATE, "note rotated the zebra signing key")
    inside = await reply_to(slack, driver, ALICE, PRIVATE, "recall zebra signing key")
    assert "zebra" in inside
    outside = await reply_to(slack, driver, ALICE, INCIDENT, "recall zebra signing key")
    assert "zebra" not in outside
    (d, _) = await driver.mention(INCIDENT, ALICE, "what happened to the zebra signing key?")
    answer = await eventually(lambda: slack.workspace.bot_messages(INCIDENT, d.ts))
    assert "zebra" not in str(answer[0].blocks)


async def test_user_from_another_organisation_cannot_write_even_under_their_own_team_id(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    """In a shared channel Slack sends the other organisation's team id with their requests;
    the bot's own team (auth.test at start-up) still marks them external."""
    text = await reply_to(slack, driver, EXTERNAL, INCIDENT, "note the cache is cold")
    assert "Guests and people from other organisations" in text
    found = await reply_to(slack, driver, ALICE, INCIDENT, "recall cache is cold")
    assert "nothing" in found


async def test_command_is_acked_before_its_reply_is_sent(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    """Slack's 3-second rule: the ack may not wait for the work (the reply is held here)."""
    gate = slack.hold("response_url")
    async with asyncio.timeout(10):  # a bot that answered before acking would hang here
        d = await driver.command(INCIDENT, ALICE, "help")
    assert (d.status, d.body) == (200, "")
    await eventually(lambda: slack.calls_to("response_url"))
    assert ephemerals(slack, ALICE) == []
    gate.set()
    assert "Usage" in (await eventually(lambda: ephemerals(slack, ALICE)))[0]


async def test_an_incident_title_is_echoed_to_the_channel_inert(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    """The confirmation goes to the whole channel: a title with <!here> must not ping it."""
    opened = await reply_to(slack, driver, ALICE, GENERAL, "open sev2 <!here> checkout & cart")
    assert "&lt;!here&gt; checkout &amp; cart" in opened
    assert "<!here>" not in opened


async def test_a_note_stays_found_once_embedded_whatever_form_of_the_verb_is_asked(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Found as a person drove it: "what did we roll back?" found the note until the index job
    embedded it, then memory said it had nothing (the words rolled / roll did not meet, and the
    vector alone stayed under the floor); "rollback" never found it."""
    saved = await reply_to(slack, driver, ALICE, INCIDENT, "note rolled back payments-api to v41")
    assert saved.startswith("Saved note")
    await reply_to(slack, driver, ALICE, INCIDENT, "note paged the db team, Carol is on it")
    assert await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors() == 2
    for question in ("recall what did we roll back?", "recall rollback"):
        found = await reply_to(slack, driver, BOB, INCIDENT, question)
        assert "rolled back payments-api to v41" in found, question
        assert "Carol" not in found, question
    nothing = await reply_to(
        slack, driver, BOB, INCIDENT, "recall is the CDN certificate expiring?"
    )
    assert nothing == "Memory has nothing on that."


async def test_recall_lists_every_item_above_the_floor_not_only_the_best_ones_neighbours(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """`/incident recall payments kafka disk lag` in a new lag incident: the note posted here
    and the earlier incident's note on the same broker disk are both memory on it, listed
    together (an answer keeps the items close to the best; a list keeps what passes the
    floor)."""
    await reply_to(slack, driver, ALICE, INCIDENT, "note kafka-3 disk at 97%, retention tripled")
    await reply_to(slack, driver, ALICE, INCIDENT, "note paged the db team, Carol is on it")
    slack.workspace.add_channel("C0INC60", "inc-60-payments-lag", members=[ALICE, BOB])
    await reply_to(slack, driver, BOB, "C0INC60", "open sev2 payments events lag")
    await reply_to(slack, driver, BOB, "C0INC60", "note payments-events lag 800k, kafka-5 disk 94%")
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()
    found = await reply_to(slack, driver, BOB, "C0INC60", "recall payments kafka disk lag")
    assert "kafka-5 disk 94%" in found and "kafka-3 disk at 97%" in found, found
    assert "Carol" not in found, found
