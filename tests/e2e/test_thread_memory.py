"""Thread messages are memory (issue 14, items 3 and 4): what people said in the thread answers
mentions and `/incident recall` with who said it, when and a link; a later correction wins; an
unrelated question gets "nothing on that"."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bot.answer import messages
from bot.runtime import Runtime
from bot.scheduler import Jobs
from bot.standin import FakeSlack, SlackDriver
from memory.scopes import Requester
from tests.e2e.test_slash_commands import reply_to
from tests.e2e.workspace import (
    ALICE,
    BOB,
    BOSS,
    GENERAL,
    GUEST,
    INCIDENT,
    SECRET,
    TEAM,
    answered,
    eventually,
    finished,
)


def _memory_section(blocks: list[dict[str, Any]]) -> str:
    """The answer's *Memory* section as posted ("" when it has none)."""
    return next(
        (
            b["text"]["text"]
            for b in blocks
            if b.get("text", {}).get("text", "").startswith("*Memory*")
        ),
        "",
    )


async def _thread(driver: SlackDriver, slack: FakeSlack, lines: list[tuple[str, str]]) -> str:
    parent = slack.workspace.post(INCIDENT, "checkout is returning 503s since 10:02", user=ALICE)
    for user, text in lines:
        await driver.say(INCIDENT, user, text, thread_ts=parent.ts)
    return parent.ts


async def test_root_cause_said_in_the_thread_is_recalled_with_who_when_and_link(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _thread(
        driver,
        slack,
        [
            (BOB, "grafana shows checkout pods restarting every few minutes"),
            (ALICE, "root cause: v42 raised the DB pool from 20 to 200 and exhausted postgres"),
            (BOB, "action item: Bob owns a dashboard for postgres connection saturation"),
        ],
    )
    await finished(bot, answers=0, captured=3)
    _, answer = await answered(driver, slack, BOSS, "what was the root cause?")
    text = json.dumps(answer.blocks)
    summary = answer.text
    assert "Memory says" in summary and "v42 raised the DB pool" in summary
    assert "root cause · alice" in summary  # who said it leads the memory line
    link = slack.workspace.permalink(INCIDENT, "")[: -len("/p")]
    assert link in text  # linked to the message where it was said
    assert "UTC" in summary  # and when


async def test_a_later_correction_wins_over_what_it_corrects(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _thread(
        driver,
        slack,
        [
            (ALICE, "decision: roll back the checkout service to v40"),
            (BOB, "payments team confirms their side is healthy"),
            (ALICE, "scratch that, roll back checkout to v39 instead of v40, v40 has the bug too"),
        ],
    )
    await finished(bot, answers=0, captured=3)
    _, answer = await answered(driver, slack, BOSS, "which version do we roll checkout back to?")
    assert "v39" in answer.text.splitlines()[-1]  # the memory line quotes the correction
    # The answer's first line states what is true now, not how the correction opened.
    said = next(line for line in answer.text.splitlines() if line.startswith("Memory says"))
    assert said.endswith("): roll back checkout to v39 instead of v40, v40 has the bug too")
    memory = _memory_section(answer.blocks)
    assert memory.index("v39 instead of v40") < memory.index("roll back the checkout service")
    assert "superseded" in memory


async def test_an_unrelated_question_gets_nothing_from_memory_in_answers_and_recall(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _thread(
        driver,
        slack,
        [
            (ALICE, "root cause: v42 raised the DB pool from 20 to 200 and exhausted postgres"),
            (BOB, "mitigation: rolled back to v41, 503s stopped at 10:40"),
        ],
    )
    await finished(bot, answers=0, captured=2)
    _, answer = await answered(driver, slack, BOSS, "is there anything about payments fraud?")
    assert "Memory has nothing on that." in answer.text
    assert "v42" not in json.dumps(answer.blocks)

    reply = await reply_to(slack, driver, BOSS, INCIDENT, "recall payments fraud")
    assert reply == "Memory has nothing on that."

    reply = await reply_to(slack, driver, BOSS, INCIDENT, "recall what was the root cause")
    assert reply.startswith("• <https://") and "v42 raised the DB pool" in reply
    assert "root cause · alice" in reply


async def test_a_thread_rolls_up_into_an_episode_a_person_would_write_and_the_digest_uses_it(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    bot = await start_bot(digest_channel=GENERAL)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(INCIDENT, ALICE, "open sev2 Checkout 503s")
        root = await d.say(INCIDENT, ALICE, "checkout is returning 503s since 10:02")
        assert root.ts
        for user, text in [
            (BOB, "looks like the root cause is DNS for payments-api"),
            (ALICE, "scratch that, not DNS: root cause is v42 raising the DB pool to 200"),
            (BOB, "decision: roll back checkout to v41"),
            (ALICE, "action item: Bob owns an alert on postgres connection saturation"),
            (BOB, "status: resolved, 503s stopped at 10:40"),
        ]:
            await d.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=6)
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    (episode,) = await bot.deps.episodes.recent(Requester.public_audience(TEAM))
    summary = episode.summary
    assert summary.startswith("What happened: checkout is returning 503s since 10:02")
    assert "Root cause: not DNS: root cause is v42" in summary  # the correction won
    assert "Decisions: roll back checkout to v41" in summary
    assert "Actions: Bob owns an alert on postgres connection saturation" in summary
    assert "Status: resolved, 503s stopped at 10:40" in summary
    assert "Participants: alice, bob · under a minute" in summary and "6 messages" in summary
    assert "messages from" not in summary and "First report" not in summary

    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0].text
    head, *under = digest.splitlines()[1:]
    assert re.fullmatch(r"• \*inc-\d+\* Checkout 503s · sev2 · open", head)
    assert [x.strip().split(":")[0] for x in under] == [
        "Root cause",
        "Decision",
        "Thread says",  # the head says open: nobody ran `/incident status resolved`
        "Action",
    ]
    assert "Root cause: not DNS" in digest and "Thread says: resolved" in digest
    assert digest.count("roll back checkout to v41") == 1  # one incident, one block, said once


async def test_a_channel_nobody_declared_shows_the_severity_its_thread_said_in_the_digest(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """#inc-77-cart-500s is registered from its name, its severity chosen by nobody: the digest
    says "sev1 (said in the thread)", not the default it was stored with."""
    bot = await start_bot(digest_channel=GENERAL)
    slack.workspace.add_channel("C0INC77", "inc-77-cart-500s", members=[ALICE, BOB])
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        root = await d.say("C0INC77", ALICE, "cart-svc 500s, too many clients on pg-main")
        assert root.ts
        await d.say(
            "C0INC77", BOB, "sev1, opening a bridge. status: investigating", thread_ts=root.ts
        )
        await d.say("C0INC77", ALICE, "status: mitigated after the rollback", thread_ts=root.ts)
    await finished(bot, answers=0, captured=3)
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    assert await jobs.post_digest() is True
    head = slack.workspace.bot_messages(GENERAL)[0].text.splitlines()[1]
    assert re.fullmatch(r"• \*inc-77\* cart 500s · sev1 \(said in the thread\) · open", head), head


async def test_no_similar_past_incident_is_said_plainly(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    _, answer = await answered(driver, slack, BOSS, "checkout returns 503s, seen this before?")
    assert "No similar past incidents found." in json.dumps(answer.blocks)


async def _asked_in_thread(driver: SlackDriver, slack: FakeSlack, root: str, question: str) -> Any:
    """The bot's newest answer in the thread `root` after the boss asks `question` in it."""
    await driver.mention(INCIDENT, BOSS, question, thread_ts=root)
    return (await eventually(lambda: slack.workspace.bot_messages(INCIDENT, root)))[-1]


async def _then_a_new_incident(
    bot: Runtime,
    driver: SlackDriver,
    slack: FakeSlack,
    said: list[tuple[str, str]],
    later: str,
) -> str:
    """`said` as a thread of this incident, stored; then a next incident's channel, `later`."""
    await _thread(driver, slack, said)
    slack.workspace.add_channel(later, f"inc-{later[-2:]}-again", members=[ALICE, BOB, BOSS])
    await finished(bot, answers=0, captured=len(said))
    return later


async def test_what_we_decided_last_time_is_found_from_a_new_incident(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    said = [
        (BOB, "p99 on checkout is 4s, the payments client retries look stuck"),
        (ALICE, "decision: we roll checkout back to v41 and keep retries off until Monday"),
        (BOB, "rolling back now"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC44")
    _, answer = await answered(driver, slack, BOSS, "what did we decide last time?", later)
    shown = json.dumps(answer.blocks)
    assert "roll checkout back to v41" in shown
    assert f"/archives/{INCIDENT}/p" in shown  # linked to where it was said
    reply = await reply_to(slack, driver, BOSS, later, "recall the decision from last time")
    assert "roll checkout back to v41" in reply and "decision · alice" in reply
    # About this incident (nothing said here yet), the earlier one's decision is not the answer.
    _, here = await answered(driver, slack, BOSS, "what did we decide?", later)
    assert "roll checkout back to v41" not in here.text


async def test_what_we_did_last_time_shows_what_was_done_not_the_alert(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "What did we do last time?" names no kind and no words of what was done: the earlier
    incident's mitigations and decisions answer it, not the alert that opened its thread."""
    said = [
        (BOB, "[FIRING:1] KubeHpaMaxedOut search-api HPA at max replicas for 15 minutes"),
        (ALICE, "decision: raise maxReplicas for search-api from 20 to 40 as a stopgap"),
        (BOB, "we rolled back search-api to v12, latency is fine again"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC45")
    question = "search-api HPA is maxed out again, what did we do last time?"
    _, answer = await answered(driver, slack, BOSS, question, later)
    shown = json.dumps(answer.blocks)
    assert "raise maxReplicas for search-api from 20 to 40" in shown
    assert "rolled back search-api to v12" in shown
    # About what the team did, so memory leads the answer; the checkout runbook, which shares
    # only "latency" and "roll back" with it, is not shown beside it.
    lead = answer.text.split("\n")[0]
    assert lead.startswith("Memory says") and "FIRING" not in lead
    assert "checkout-latency" not in shown


async def test_questions_to_the_bot_are_no_episode_and_not_part_of_one(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A mention thread (question and the bot's answer) is not something that happened; in an
    incident thread a question to the bot is left out of its roll-up."""
    await driver.mention(INCIDENT, BOB, "what was the root cause?")
    root = await driver.say(INCIDENT, ALICE, "checkout is returning 503s since 10:02")
    assert root.ts
    await driver.say(INCIDENT, BOB, "root cause: v42 raised the DB pool to 200", thread_ts=root.ts)
    await driver.mention(INCIDENT, BOB, "is there a runbook for pgbouncer?", thread_ts=root.ts)
    await finished(bot, answers=2, captured=4)
    assert await Jobs(bot.deps, bot.app.client, team_id=TEAM).roll_up_threads() >= 1
    (episode,) = await bot.deps.episodes.recent(Requester.public_audience(TEAM))
    assert episode.thread_ts == root.ts and episode.message_count == 2
    assert "runbook for pgbouncer" not in episode.summary
    assert "what was the root cause" not in episode.summary


async def test_a_handover_named_by_the_item_id_wins_however_late_it_is_said(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "Who owns it now?" is answered by the handover, which names the action item only by its
    id: it shares no other word with the item and comes long after it."""
    filler = [(BOB, f"checked replica {n}, lag is under a second") for n in range(10)]
    await _thread(
        driver,
        slack,
        [
            (BOB, "AI-1: set idle_in_transaction_session_timeout on the recon roles. owner Bob"),
            *filler,
            (BOB, "AI-2: alert on pgbouncer cl_waiting above 50. owner Bob"),
            (ALICE, "fine, I'll take AI-1 myself, due 21 June"),
        ],
    )
    await finished(bot, answers=0, captured=13)
    _, answer = await answered(
        driver, slack, BOSS, "who owns the idle_in_transaction_session_timeout follow-up now?"
    )
    said = next(line for line in answer.text.splitlines() if line.startswith("Memory says"))
    assert "I'll take AI-1 myself" in said  # the handover leads
    memory = _memory_section(answer.blocks)
    assert memory.index("take AI-1 myself") < memory.index("idle_in_transaction")
    assert "superseded" in memory

    # The item said just before the handover is another one: AI-1 is not AI-2.
    _, answer = await answered(driver, slack, BOSS, "who owns the pgbouncer cl_waiting alert?")
    memory = _memory_section(answer.blocks)
    assert "cl_waiting above 50" in memory
    assert "take AI-1" not in memory and "superseded" not in memory


async def test_an_earlier_incident_named_by_its_title_answers_with_its_statements(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "What was the root cause of the checkout latency incident?" shares no word with the root
    cause it asks for: the incident is named by its title (inc-42-checkout-latency), and its root
    cause leads, not a message that happens to say "checkout latency"."""
    said = [
        (BOB, "checkout latency is at 4s, looking"),
        (ALICE, "turns out the synonyms cron flushes the query cache every hour"),
        (BOB, "paused the cron, p99 back to 300ms"),
        (ALICE, "postmortem draft for the checkout latency incident is in the wiki"),
        (BOB, "review of the checkout latency incident is on thursday"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC46")
    question = "what was the root cause of the checkout latency incident?"
    _, answer = await answered(driver, slack, BOSS, question, later)
    lead = next(line for line in answer.text.splitlines() if line.startswith("Memory says"))
    assert "synonyms cron flushes the query cache" in lead
    # An incident this question does not name gives nothing of its own.
    _, other = await answered(
        driver, slack, BOSS, "what was the root cause of the dns outage?", later
    )
    assert "synonyms cron" not in other.text


async def test_why_a_change_did_not_help_last_time_is_found_from_a_new_incident(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Chat drops apostrophes ("didnt") and points back ("last time"): neither is a word the
    earlier incident's notes would hold, so neither counts against them."""
    said = [
        (BOB, "search p99 at 4s, throttling alerts on every search-api pod"),
        (ALICE, "bumped the cpu limit 2 -> 4 on search-api at 14:10"),
        (ALICE, "no change, p99 still 3.8s. throttling is gone though so its not cpu"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC47")
    question = "why didnt raising the cpu limit help last time?"
    _, answer = await answered(driver, slack, BOSS, question, later)
    assert "Memory has nothing on that." not in answer.text
    assert "bumped the cpu limit" in json.dumps(answer.blocks)
    assert "its not cpu" in answer.text  # the reply that answers why


async def test_what_came_of_a_change_is_shown_under_it_from_the_reply_that_says_so(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The reply that reports the effect shares no word with the question ("did bumping the
    pool help?" / "nope, it's back"), comes a few messages later and from someone else: it is
    shown under the change, linked, and the answer's lead says it."""
    said = [
        (BOB, "pgbouncer cl_waiting at 340, billing-api timing out"),
        (ALICE, "raised pgbouncer default_pool_size for billing_db from 100 to 180"),
        (BOB, "ok, watching"),
        (ALICE, "grafana is slow for me, anyone else?"),
        (BOB, "nope, it's back. cl_waiting climbing again, recon-worker took the extra slots"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC48")
    _, answer = await answered(driver, slack, BOSS, "did raising the pool size help?", later)
    lead = answer.text.split("\n")
    assert lead[0].startswith("Memory says [S") and "default_pool_size" in lead[0]
    assert lead[1].startswith("What came of it [S") and "(note · bob ·" in lead[1]
    assert "nope, it's back" in lead[1]
    memory = _memory_section(answer.blocks)
    assert "what came of the item above" in memory
    assert memory.index("default_pool_size") < memory.index("nope, it's back")
    assert memory.count(f"/archives/{INCIDENT}/p") >= 2  # both linked to where they were said
    # Asked who did it, the reply is no answer.
    _, who = await answered(driver, slack, BOSS, "who raised the pool size?", later)
    assert "nope, it's back" not in who.text


async def test_whether_a_change_helped_leads_with_memory_over_a_matching_runbook(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The checkout runbook says to roll back a deploy; whether the rollback helped is only in
    what the team said, so memory leads and the runbook takes one line under it."""
    said = [
        (BOB, "checkout p99 at 4s since the deploy"),
        (ALICE, "rolled back the checkout deploy to v41"),
        (BOB, "p99 still 3.9s, no change"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC49")
    question = "why didn't rolling back the checkout deploy help?"
    _, answer = await answered(driver, slack, BOSS, question, later)
    lead = answer.text.split("\n")
    assert lead[0].startswith("Memory says [S") and "rolled back the checkout deploy" in lead[0]
    assert lead[1].startswith("What came of it [S") and "no change" in lead[1]
    assert lead[2].startswith("See *checkout-latency")  # a runbook under it takes one line
    assert len(lead[2].split("]: ", 1)[1].split()) >= 3  # words, never a bare "1."


async def test_how_to_fix_it_is_not_answered_by_the_alert_an_app_posted_last_time(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Last week's alert matches "cpu throttling" word for word and says nothing about a fix:
    a fix question gets what the team did, and the past incident under similar incidents."""
    alert, _ = await driver.app_post(
        INCIDENT,
        "Alertmanager",
        "[FIRING:1] CPUThrottlingHigh search-api: 62% throttling of CPU in namespace search",
    )
    await driver.say(
        INCIDENT, ALICE, "we raised the cpu limit to 4 on search-api", thread_ts=alert.ts
    )
    slack.workspace.add_channel("C0INC48", "inc-48-again", members=[ALICE, BOB, BOSS])
    await finished(bot, answers=0, captured=2)
    question = "how do i fix cpu throttling on search-api?"
    _, answer = await answered(driver, slack, BOSS, question, "C0INC48")
    memory = _memory_section(answer.blocks)
    assert "FIRING" not in memory and "62% throttling" not in answer.text.split("*Runbooks*")[0]
    assert "raised the cpu limit to 4" in memory


async def test_a_repeat_incident_with_the_same_title_answers_about_itself(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Asked in inc-50-checkout-latency, "the checkout latency" is this incident, not the
    earlier one of the same title."""
    said = [
        (BOB, "checkout latency is at 4s, looking"),
        (ALICE, "turns out the synonyms cron flushes the query cache every hour"),
    ]
    await _thread(driver, slack, said)
    slack.workspace.add_channel("C0INC50", "inc-50-checkout-latency", members=[ALICE, BOB, BOSS])
    parent = slack.workspace.post("C0INC50", "checkout latency again since 09:00", user=BOB)
    await driver.say(
        "C0INC50",
        ALICE,
        "root cause: the new payments sidecar adds 2s per call",
        thread_ts=parent.ts,
    )
    await finished(bot, answers=0, captured=3)
    question = "what was the root cause of the checkout latency incident?"
    _, answer = await answered(driver, slack, BOSS, question, "C0INC50")
    lead = next(line for line in answer.text.splitlines() if line.startswith("Memory says"))
    assert "payments sidecar" in lead


async def test_has_this_happened_before_leads_with_the_past_incident(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    said = [
        (BOB, "checkout p99 at 4s, pods throttled"),
        (ALICE, "root cause: the synonyms cron flushes the query cache every hour"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC51")
    _, answer = await answered(
        driver, slack, BOSS, "checkout p99 at 4s, has this happened before?", later
    )
    lead = answer.text.splitlines()[0]
    assert lead.startswith("Seen before: inc-42 checkout latency (")
    assert lead.endswith("— the synonyms cron flushes the query cache every hour")
    # What memory says still follows (it may be what this incident's responders said).
    assert any(line.startswith("Memory says") for line in answer.text.splitlines()[1:])
    # Any other question keeps memory's line.
    _, other = await answered(driver, slack, BOSS, "what was the checkout root cause?", later)
    assert other.text.startswith("Memory says")


async def test_a_structured_update_answers_each_question_and_rolls_up_without_its_markup(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """A team that posts "*Update*" blocks of bullets, signs follow-ups with @names, hands them
    over ("AI-1 is mine now", "handing off AI-3 to Bob") and asks to be pinged: "RC?" gets the
    cause bullet, the open items leave out the done one, and the roll-up and digest read the
    lines without their *bold* and emoji, each item once."""
    bot = await start_bot(digest_channel=GENERAL)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(INCIDENT, ALICE, "open sev2 etcd latency")
        root = await d.say(INCIDENT, ALICE, "etcd fsync p99 at 450ms on all members")
        for user, text in [
            (
                ALICE,
                "*Update 10:05* :rotating_light:\n• Cause: ceph-ssd-2 is shared with logging, too"
                " slow for etcd\n• Decision: move the master volumes back to ceph-masters-1",
            ),
            (BOB, "*Status: mitigated* 11:25 :pray:"),
            (
                ALICE,
                "*Follow-ups* :memo:\n1. AI-1 alert on etcd fsync p99 — @bob\n"
                "2. AI-2 document the masters pool — @alice\n"
                "3. AI-3 add an etcd latency check to storage migrations — @alice",
            ),
            (BOSS, "yep, AI-1 is mine now"),
            (ALICE, "AI-2 done, it is on the wiki"),
            (ALICE, "I won't make AI-3 before Friday, handing off AI-3 to Bob"),
            (BOB, "ping me when AI-1 is merged so I can link it"),
        ]:
            await d.say(INCIDENT, user, text, thread_ts=root.ts)
        await finished(bot, answers=0, captured=8)
        await d.mention(INCIDENT, BOB, "RC?", thread_ts=root.ts)
        await finished(bot, answers=1, captured=8)
        recall = await reply_to(slack, d, BOB, INCIDENT, "recall open action items")
    rc = slack.workspace.bot_messages(INCIDENT, root.ts)[-1].text
    assert rc.startswith("Memory says [S") and "ceph-ssd-2 is shared with logging" in rc
    assert "(root cause · alice ·" in rc
    assert "AI-2" not in recall
    assert recall.index("yep, AI-1 is mine now") < recall.index("AI-1 alert on etcd fsync")
    # The handover moves AI-3; asking to hear of AI-1 is no open item of its own.
    assert recall.index("handing off AI-3 to Bob") < recall.index("AI-3 add an etcd latency")
    assert "ping me when AI-1" not in recall
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    (episode,) = await bot.deps.episodes.recent(Requester.public_audience(TEAM))
    assert "Root cause: ceph-ssd-2 is shared with logging, too slow for etcd" in episode.summary
    assert "Decisions: move the master volumes back to ceph-masters-1" in episode.summary
    assert "Status: mitigated 11:25" in episode.summary
    assert "storage migrations — @alice → I won't make AI-3 before Friday" in episode.summary
    assert "| I won't make AI-3" not in episode.summary and "ping me" not in episode.summary
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0].text
    assert "AI-2 document the masters pool — @alice → done" in digest  # not crowded out
    assert "mitigated* " not in digest and ":pray:" not in digest and "• Decision" not in digest


async def test_catch_me_up_in_a_thread_says_where_it_stands_from_what_was_said_in_it(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Someone joining late asks for the thread so far: what happened, the root cause, the
    decision, the action with its owner and the status, from the thread's own messages (earlier
    questions to the bot are no part of it); asked at the top of the channel, it is a question
    like any other."""
    root = await _thread(
        driver,
        slack,
        [
            (BOB, "grafana shows checkout pods restarting every few minutes"),
            (ALICE, "root cause: v42 raised the DB pool from 20 to 200 and exhausted postgres"),
            (BOB, "decision: roll back checkout to v41"),
            (ALICE, "action item: Bob owns an alert on postgres connection saturation"),
            (BOB, "status: mitigated, 503s stopped at 10:40"),
        ],
    )
    await finished(bot, answers=0, captured=5)
    await driver.mention(INCIDENT, BOSS, "catch me up?", thread_ts=root)
    posted = (await eventually(lambda: slack.workspace.bot_messages(INCIDENT, root)))[-1]
    said = posted.text
    # No past incidents were looked for: the answer does not say none were found.
    assert "No similar past incidents" not in json.dumps(posted.blocks)
    lines = said.split("\n")
    assert lines[0].startswith("*Where this thread stands*")
    assert lines[1] == "What happened: grafana shows checkout pods restarting every few minutes"
    assert "Root cause: v42 raised the DB pool from 20 to 200 and exhausted postgres" in said
    assert "Decisions: roll back checkout to v41" in said
    assert "Actions: Bob owns an alert on postgres connection saturation" in said
    assert "Status: mitigated, 503s stopped at 10:40" in said
    assert "catch me up" not in said  # the question is no part of what happened
    _, top = await answered(driver, slack, BOSS, "catch me up on the rollback runbook")
    assert not top.text.startswith(("*Where this thread stands*", "*Where this channel stands*"))


async def test_a_fact_said_in_the_thread_leads_over_a_runbook_that_only_shares_its_subject(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Asked where something is (no fix, check or meaning asked), the answer is what covers
    the question: the thread message naming the rotated payments key leads, and the checkout
    runbook, which shares only "checkout" and "payments", is not shown beside it."""
    root = await _thread(
        driver,
        slack,
        [
            (BOB, "checkout p99 at 4s since the deploy"),
            (ALICE, "the payments sandbox key for checkout rotated at 09:58, new one is in vault"),
        ],
    )
    await finished(bot, answers=0, captured=2)
    question = "where is the new payments sandbox key for checkout?"
    answer = await _asked_in_thread(driver, slack, root, question)
    lead = answer.text.split("\n")
    assert lead[0].startswith("Memory says [S") and "new one is in vault" in lead[0]
    assert "checkout-latency" not in json.dumps(answer.blocks)


async def test_how_a_problem_was_fixed_is_the_decision_that_shares_its_words_not_the_report(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The question's words ("stuck partition") are in the message that reported the problem;
    the fix is the decision that names the same partition (p7) in other words. Asked what
    was stuck, the report itself answers."""
    said = [
        (BOB, "looks like every consumer is stuck on the same partition, p7. poison message?"),
        (ALICE, "decision: skip the bad offset on p7 with the reset tool, not a full replay"),
        (BOB, "decision: page the data team for the bulk import api after hours"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC51")
    _, answer = await answered(driver, slack, BOSS, "how did we fix the stuck partition?", later)
    lead = answer.text.split("\n")[0]
    assert lead.startswith("Memory says [S") and "skip the bad offset on p7" in lead, lead
    assert "every consumer is stuck" in _memory_section(answer.blocks)  # the report under it
    assert "page the data team" not in answer.text
    _, what = await answered(driver, slack, BOSS, "which partition was stuck?", later)
    assert "every consumer is stuck on the same partition" in what.text.split("\n")[0]


async def test_open_action_items_are_answered_with_the_list_and_each_handover(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "What are the open action items?" led with one of them; the lead is the list, each item
    a line, a handed-over one with the message that handed it over, a done one left out."""
    root = await _thread(
        driver,
        slack,
        [
            (BOB, "AI-1 add a 1MB cap on bulk import payloads — @bob"),
            (ALICE, "AI-2 dead letter topic for orders-events"),
            (ALICE, "AI-3 alert on per-partition offset lag"),
            (ALICE, "passing AI-2 to bob, I'm out tomorrow"),
            (BOB, "AI-3 done, alert is live"),
        ],
    )
    await finished(bot, answers=0, captured=5)
    answer = await _asked_in_thread(driver, slack, root, "what are the open action items?")
    lead = answer.text.split("*Memory*")[0]
    assert lead.startswith("Open items memory shows (2):"), lead
    assert re.search(
        r"AI-2 dead letter topic for orders-events → \[S\d\] passing AI-2 to bob", lead
    )
    assert "AI-1 add a 1MB cap" in lead and "per-partition" not in lead


async def test_a_runbook_that_adds_what_memory_lacks_stays_under_memorys_answer(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Team words ("prod-eu", "4512") are in no runbook, so a runbook rarely covers most of a
    question that names them; the checkout runbook still names what memory's answer does not
    ("pods", "slow") and stays, one line under it."""
    said = [(ALICE, "decision: roll back checkout in prod-eu to deploy 4509")]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC52")
    question = (
        "checkout pods in prod-eu keep getting slow after deploy 4512, what did we do last time?"
    )
    _, answer = await answered(driver, slack, BOSS, question, later)
    lead = answer.text.split("\n")
    assert lead[0].startswith("Memory says [S") and "deploy 4509" in lead[0], answer.text
    assert lead[1].startswith("See *checkout-latency"), answer.text


async def test_a_handed_over_item_leads_with_what_it_is_and_then_who_has_it(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A handover changes who owns an item, not what it is: asked about the item, the lead says
    what it is (the superseded action) and then the handover, not the handover alone."""
    root = await _thread(
        driver,
        slack,
        [
            (BOB, "AI-4 repoint the cert-renewer at acme-account-v2 — @bob"),
            (BOB, "Thanks all. Handing off AI-4 to Alice, I'm out from tomorrow"),
        ],
    )
    await finished(bot, answers=0, captured=2)
    answer = await _asked_in_thread(driver, slack, root, "what is AI-4 about and who has it?")
    lead = answer.text.split("\n")[0]
    assert re.match(
        r"Memory says \[S\d\] \(action · bob · [^)]*\): AI-4 repoint the cert-renewer at "
        r"acme-account-v2 — @bob → \[S\d\] \(correction · bob · [^)]*\): (?:… )?Handing off AI-4 "
        r"to Alice",
        lead,
    ), lead
    # A correction that gives something else to someone is no handover of the action.
    other = await _thread(
        driver,
        slack,
        [
            (BOB, "AI-3 add an alert on cert-renewer expiry — @bob"),
            (
                ALICE,
                "scratch that, the cert-renewer is fine, it was DNS. Dan owns the DNS check now",
            ),
        ],
    )
    await finished(bot, answers=1, captured=4)
    said = await _asked_in_thread(driver, slack, other, "who owns the cert-renewer alert?")
    assert " → [S" not in said.text.split("\n")[0], said.text


async def test_a_repeat_incident_with_nothing_said_yet_answers_from_the_one_it_repeats(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Asked in "checkout latency again" before anything was said there, "open action items
    from the checkout latency incident?" means the earlier one's; and "how did we fix it last
    time?" is answered by the earlier incident's decision although it names neither word."""
    said = [
        (BOB, "AI-1 page the db team when the pool passes 90% — @bob"),
        (ALICE, "AI-2 document the pool limits — @alice"),
        (ALICE, "decision: kill idle-in-transaction sessions older than 5 min"),
    ]
    await _thread(driver, slack, said)
    again = "C0INC53"
    slack.workspace.add_channel(again, "inc-53-checkout-latency", members=[ALICE, BOB, BOSS])
    await finished(bot, answers=0, captured=3)
    question = "any open action items from the checkout latency incident?"
    _, items = await answered(driver, slack, BOSS, question, again)
    assert items.text.startswith("Open items memory shows (2):"), items.text
    _, fixed = await answered(
        driver, slack, BOSS, "how did we fix checkout latency last time?", again
    )
    assert "kill idle-in-transaction sessions" in fixed.text.split("\n")[0], fixed.text


async def test_people_mentioned_in_a_message_are_kept_by_name_and_own_what_is_theirs(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Real Slack writes "TODO <@U0BOB>: …". Memory keeps it as "@bob" (a name the reader
    knows, pinging nobody when re-emitted) and reads Bob as the owner; an unticked "[ ]" box
    is an action item too."""
    root = await _thread(
        driver,
        slack,
        [
            (ALICE, f"TODO <@{BOB}>: add an alert on postgres connection saturation"),
            (BOB, f"- [ ] <@{ALICE}|alice> write the postmortem by friday"),
        ],
    )
    await finished(bot, answers=0, captured=2)
    answer = await _asked_in_thread(driver, slack, root, "what are the open action items?")
    posted = answer.text + json.dumps(answer.blocks)
    lead = answer.text.split("*Memory*")[0]
    assert lead.startswith("Open items memory shows (2):"), lead
    assert "TODO @bob: add an alert on postgres connection saturation" in lead
    assert "@alice write the postmortem by friday" in lead and "[ ]" not in lead
    assert "<@" not in posted and "&lt;@" not in posted

    recalled = await bot.deps.recall.relevant(
        Requester(f"{TEAM}/{BOSS}", TEAM, channel_id=INCIDENT), "who owns the saturation alert?"
    )
    assert recalled[0].text == "TODO @bob: add an alert on postgres connection saturation"


async def test_an_earlier_incident_named_by_what_it_was_about_gives_its_open_items(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "The checkout dns incident" is inc-42-checkout-latency, whose root cause was DNS: named by
    what it was about, not its title. Its open items are the answer, each with the reply that
    took it over, and no runbook is shown for a question about the team's own list."""
    said = [
        (BOB, "checkout p99 at 4s, lookups to payments-ledger time out"),
        (ALICE, "root cause: node-local-dns OOMKilled, so every lookup went to kube-dns"),
        (ALICE, f"TODO <@{BOB}>: raise the node-local-dns memory limit to 200Mi"),
        (BOB, "AI-1 alert on node-local-dns restarts — @alice"),
        (ALICE, f"<@{BOB}> I'm out next week, can you take the node-local-dns restarts alert?"),
        (BOB, "sure, I'll take the restarts alert"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC48")
    _, answer = await answered(
        driver, slack, BOSS, "are there open action items from the checkout dns incident?", later
    )
    lead = answer.text.split("*Memory*")[0]
    assert lead.startswith("Open items memory shows (2):"), lead
    assert "raise the node-local-dns memory limit" in lead
    # Bob took the alert over from Alice: the item, then the reply that handed it to him.
    assert re.search(
        r"AI-1 alert on node-local-dns restarts — @alice → \[S\d\] sure, I'll take", lead
    )
    assert "*Runbooks*" not in json.dumps(answer.blocks)
    # An incident nothing was said about is named by nothing.
    _, other = await answered(
        driver, slack, BOSS, "any open action items from the kafka incident?", later
    )
    assert "node-local-dns" not in other.text


async def test_the_digest_keeps_a_decision_a_theorys_correction_shares_words_with_and_one_handed_over_action(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """A thread in the shape people write: a theory, a decision that names the same job, the
    theory scratched, a checklist item handed over in chat. The digest shows the decision as
    decided (not the correction as a decision) and the postmortem once, with who took it."""
    bot = await start_bot(digest_channel=GENERAL)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        root = await d.say(INCIDENT, ALICE, "intermittent DNS timeouts from the payments namespace")
        assert root.ts
        for user, text in [
            (BOB, "theory: batch-etl opens a UDP socket per lookup and never closes it"),
            (ALICE, "Decision: cordon the 3 nodes and scale batch-etl to 0 until we know more"),
            (ALICE, "scratch that theory, batch-etl uses TCP. the node-local-dns cache crashed"),
            (ALICE, f"[ ] <@{BOSS}> write the postmortem by friday"),
            (BOB, "sure, I'll take the postmortem"),
        ]:
            await d.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=6)
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0].text
    decisions = [x.strip() for x in digest.splitlines() if x.strip().startswith("Decision")]
    assert decisions == ["Decision: cordon the 3 nodes and scale batch-etl to 0 until we know more"]
    actions = [x.strip() for x in digest.splitlines() if x.strip().startswith("Action")]
    assert len(actions) == 1 and "write the postmortem by friday →" in actions[0]
    assert "bob: sure, I'll take the postmortem" in actions[0]


async def test_what_was_done_about_a_decision_answers_which_and_marks_it_done_in_the_digest(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """ "which nodes did we cordon?" is answered by the decision and, under it, the reply that
    names the nodes; the open-items list shows an action with what was done about it; the
    digest says the decision and the action are done, each once."""
    bot = await start_bot(digest_channel=GENERAL)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        root = await d.say(INCIDENT, ALICE, "intermittent DNS timeouts from the payments namespace")
        assert root.ts
        for user, text in [
            (ALICE, "Decision: cordon the 3 nodes and scale batch-etl to 0 until we know more"),
            (BOB, "done, cordoned ip-10-2-3-4, ip-10-2-7-9, ip-10-2-8-1 :white_check_mark:"),
            (ALICE, f"TODO <@{BOB}>: raise node-local-dns memory limit to 200Mi and add an alert"),
            (BOB, "limit raised to 200Mi and rolled out to all nodes at 11:52"),
        ]:
            await d.say(INCIDENT, user, text, thread_ts=root.ts)
        await finished(bot, answers=0, captured=5)
        _, answer = await answered(d, slack, BOSS, "which nodes did we cordon?")
        memory = _memory_section(answer.blocks)
        decision = memory.index("cordon the 3 nodes")
        assert memory.index("cordoned ip-10-2-3-4, ip-10-2-7-9, ip-10-2-8-1") > decision
        assert "done as the item above said" in memory
        lead = answer.text.split("\n")
        assert "cordon the 3 nodes" in lead[0] and lead[1].startswith("Done [S")
        assert "): cordoned ip-10-2-3-4, ip-10-2-7-9, ip-10-2-8-1" in lead[1]
        _, listed = await answered(d, slack, BOSS, "are there open action items?")
        assert re.search(
            r"raise node-local-dns memory limit to 200Mi and add an alert → \[S\d\] limit raised "
            r"to 200Mi and rolled out",
            listed.text,
        ), listed.text
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0].text
    assert digest.count("cordon the 3 nodes") == 1
    assert (
        "Decision: cordon the 3 nodes and scale batch-etl to 0 until we know more → done" in digest
    )
    assert "add an alert → done" in digest


async def test_terse_chat_a_taken_back_value_and_ai_items_are_read_as_people_mean_them(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Chat written tersely: "nvm not 5min, 30s" takes the value back, so the answer gives 30s
    and marks 5min superseded; "AI @bob add …" is Bob's action item, and the open-items list
    shows action items only, not the alert beside them."""
    await _thread(
        driver,
        slack,
        [
            (ALICE, "lets set max_standby_streaming_delay to 5min so this can't block replay"),
            (BOB, "nvm not 5min, 30s — thats what the runbook says for reporting replicas"),
            (ALICE, f"AI <@{BOB}> add statement_timeout=10min for the analytics role"),
            (ALICE, f"AI <@{ALICE}> move the analytics dashboards to the reporting replica"),
        ],
    )
    await finished(bot, answers=0, captured=4)
    _, answer = await answered(
        driver, slack, BOSS, "what did we set max_standby_streaming_delay to?"
    )
    lead = answer.text.split("\n")[0]
    assert "30s" in lead and "nvm" not in lead, lead
    assert "superseded by the message above" in _memory_section(answer.blocks)
    _, listed = await answered(driver, slack, BOSS, "are there open action items?")
    items = [x for x in listed.text.split("\n") if x.startswith("• [S")]
    assert listed.text.startswith("Open items memory shows (2):"), listed.text
    assert "add statement_timeout=10min for the analytics role" in items[1]
    assert "move the analytics dashboards to the reporting replica" in items[0]


async def test_what_a_setting_is_now_is_answered_with_the_newest_value_said(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A limit bumped, put back, then named again by an action item: "what's it set to now?"
    leads with the value put back, here and from the next incident's channel."""
    said = [
        (BOB, "redis primary: connected_clients=10000, maxclients is 10000, pinned"),
        (BOB, "bumped maxclients to 20000 as a stopgap"),
        (ALICE, "decision: roll back search-api to 3.8.4"),
        (BOB, "maxclients back to 10000 at 09:55"),
        (ALICE, "AI @bob add an alert on connected_clients > 80% of maxclients by friday"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC45")
    for channel in (INCIDENT, later):
        _, answer = await answered(driver, slack, BOSS, "what's maxclients set to now?", channel)
        lead = next(line for line in answer.text.splitlines() if line.startswith("Memory says"))
        assert lead.endswith("): maxclients back to 10000 at 09:55"), lead
        assert f"/archives/{INCIDENT}/p" in _memory_section(answer.blocks)


async def test_seen_before_in_chat_words_leads_with_the_incident_and_says_its_cause_once(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    said = [
        (BOB, "logs full of redis ConnectionError: max number of clients reached"),
        (ALICE, "rc: 3.9.0 opens a new redis connection per request, maxclients exhausted"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC52")
    _, answer = await answered(driver, slack, BOSS, "has redis maxclients bitten us before?", later)
    lines = answer.text.splitlines()
    assert lines[0].startswith("Seen before: inc-42 "), lines[0]
    cause = "3.9.0 opens a new redis connection per request, maxclients exhausted"
    assert lines[0].endswith(cause)
    # The summary says it once: memory's line quoting the same cause is not repeated under it.
    summary = answer.text.split("*Memory*")[0]
    assert summary.count(cause) == 1, summary


async def test_who_owns_a_follow_up_asked_from_the_next_incident_gets_it_with_its_handover(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    said = [
        (BOB, "every homepage rebuild hit the db at once when the key expired"),
        (ALICE, "decision: single-flight lock on rebuild + stale copy kept for 1h"),
        (ALICE, "AI-1: implement the single-flight lock and stale copy in feed-api. owner Bob"),
        (ALICE, "AI-2: dashboard for rebuild duration. owner Alice"),
        (BOSS, "I'll take AI-1 from Bob, it's close to the refresher work anyway"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC53")
    question = "who owns the homepage lock follow-up?"
    _, answer = await answered(driver, slack, BOSS, question, later)
    memory = _memory_section(answer.blocks)
    assert "I'll take AI-1 from Bob" in memory and "implement the single-flight lock" in memory
    assert memory.index("I'll take AI-1 from Bob") < memory.index("implement the single-flight")
    assert f"/archives/{INCIDENT}/p" in memory  # linked to where it was said


async def test_a_lag_incident_is_answered_by_what_was_said_last_and_keeps_the_work_asked_for(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """A kafka lag day in chat words: the cause said as "…storm. thats the root cause imo",
    work asked of a person with a due date, a status line that also names the postmortem's
    owner. The root cause is quoted with what it points back at; "is the lag gone?" gets the
    last word on the lag; a clock time gets what was said at it; the postmortem's owner is
    found from the next incident's channel; the digest keeps the asked work as an action."""
    bot = await start_bot(digest_channel=GENERAL)
    cause = (
        "so consumers blow past the poll interval -&gt; rebalance storm. thats the root cause imo"
    )
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        root = await d.say(INCIDENT, ALICE, "KafkaConsumerLagHigh group=checkout-events lag > 50k")
        assert root.ts
        for user, text in [
            (BOB, "lag climbing since ~09:40, consumer pods processing 20 msg/s vs usual 2k"),
            (ALICE, "fraud-svc p99 went from 80ms to 4s at 09:38, their deploy v7.3 went out 09:35"),
            (BOB, "so consumers blow past the poll interval -> rebalance storm. thats the root cause imo"),
            (ALICE, f"<@{BOB}> can you add a timeout + circuit breaker on the fraud-check call? by thursday"),
            (BOB, "lag draining, 50k -> 8k"),
            (BOB, "lag at 0 as of 10:31. resolving"),
            (ALICE, "status: resolved 10:31. postmortem owner: alice"),
        ]:  # fmt: skip
            await d.say(INCIDENT, user, text, thread_ts=root.ts)
        await finished(bot, answers=0, captured=8)
        slack.workspace.add_channel("C0INC61", "inc-61-checkout-slow", members=[ALICE, BOSS])
        leads = {}
        questions = (
            "what was the root cause?",
            "is the consumer lag gone?",
            "what changed at 09:35?",
        )
        answers = {}
        for question in questions:
            _, answers[question] = await answered(d, slack, BOSS, question)
            leads[question] = answers[question].text.splitlines()[0]
        assert leads["what was the root cause?"].endswith(f"): {cause}")
        # The last word on the lag leads; the queue-backlog runbook its words match is no answer
        # to whether our lag is gone.
        assert leads["is the consumer lag gone?"].endswith("): lag at 0 as of 10:31. resolving")
        assert "*Runbooks*" not in json.dumps(answers["is the consumer lag gone?"].blocks)
        assert leads["what changed at 09:35?"].endswith("their deploy v7.3 went out 09:35")
        question = "who owns the postmortem for the checkout latency incident?"
        _, answer = await answered(d, slack, BOSS, question, "C0INC61")
        assert answer.text.splitlines()[0].endswith("): postmortem owner: alice"), answer.text
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)[0].text
    assert f"Root cause: {cause}" in digest
    actions = [x.strip() for x in digest.splitlines() if x.strip().startswith("Action")]
    assert any("circuit breaker on the fraud-check call? by thursday" in a for a in actions)
    assert "Action: postmortem owner: alice" in actions


async def test_whether_our_latency_is_back_is_answered_by_memory_alone(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The checkout runbook matches every word of "is checkout latency back to normal?", but only
    what the team said knows whether ours is: the newest report leads, and no runbook is shown."""
    await _thread(
        driver,
        slack,
        [
            (BOB, "checkout p99 at 4s since the deploy"),
            (ALICE, "rolled back the checkout deploy to v41"),
            (BOB, "checkout p99 back to 300ms, errors gone"),
        ],
    )
    await finished(bot, answers=0, captured=3)
    _, answer = await answered(driver, slack, BOSS, "is checkout latency back to normal?")
    assert answer.text.splitlines()[0].endswith("): checkout p99 back to 300ms, errors gone")
    assert "*Runbooks*" not in json.dumps(answer.blocks) and "checkout-latency" not in answer.text


async def test_what_do_i_owe_lists_the_askers_own_open_items_and_nothing_else(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "What do I owe here?" is answered by the items that name the asker (a request with a due
    date, an item opening with their name), not by the other people's; someone who owns none
    is told so, with no runbook in its place."""
    await _thread(
        driver,
        slack,
        [
            (ALICE, f"<@{BOB}> can you write the postmortem? by friday"),
            (BOSS, "action item: alice to rotate the checkout api key"),
            (ALICE, "action item: bob to add an alert on pool saturation"),
            (BOB, "decision: keep checkout on v41 until the pool fix ships"),
        ],
    )
    await finished(bot, answers=0, captured=4)
    _, answer = await answered(driver, slack, BOB, "what do I owe here?")
    said = answer.text + json.dumps(_memory_section(answer.blocks))
    assert "write the postmortem" in said and "alert on pool saturation" in said, said
    assert "rotate the checkout api key" not in said and "keep checkout on v41" not in said
    _, none = await answered(driver, slack, BOSS, "any items on me for the high latency?")
    assert none.text.startswith(messages.NOTHING_YOURS), none.text
    assert "Runbooks" not in json.dumps(none.blocks)


async def test_a_terse_status_question_gets_where_it_stands_and_no_runbook(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "whats the status" names nothing but the status: the newest status said, and no
    runbook found through the thread's opening (no runbook knows where ours stands)."""
    parent = slack.workspace.post(
        INCIDENT, "checkout p99 latency of the checkout service is above its SLO", user=ALICE
    ).ts
    await driver.say(INCIDENT, ALICE, "status: investigating, p99 at 4s", thread_ts=parent)
    await driver.say(INCIDENT, BOB, "status: mitigated, p99 back to 300ms", thread_ts=parent)
    await finished(bot, answers=0, captured=2)
    (m, _) = await driver.mention(INCIDENT, BOSS, "whats the status", thread_ts=parent)
    answer = (
        await eventually(
            lambda: [
                r for r in slack.workspace.bot_messages(INCIDENT, parent) if r.ts > (m.ts or "")
            ]
        )
    )[0]
    assert answer.text.startswith("Memory says") and "mitigated" in answer.text, answer.text
    assert "Runbooks" not in json.dumps(answer.blocks)


async def test_from_the_next_incident_a_span_said_without_the_services_name_answers_how_long(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """In #inc-42-checkout-latency nobody says "checkout" when saying how long it lasted; asked
    from the next incident, "how long was checkout down?" is answered by that message (its
    channel names the service), with a link, not by the roll-up or nothing."""
    said = [
        (BOB, "checkout pods throttled, p99 at 4s"),
        (ALICE, "checkout-api error rate at 40%, customers see the down page"),
        (BOB, "root cause: the synonyms cron flushes the checkout query cache every hour"),
        (ALICE, "checkout is back, all green"),
        (ALICE, "we were hard down for ~31 min (10:02-10:33)"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC52")
    _, answer = await answered(driver, slack, BOSS, "how long was checkout down?", later)
    lead = answer.text.splitlines()[0]
    assert lead.startswith("Memory says") and "hard down for ~31 min" in lead, answer.text
    assert slack.workspace.permalink(INCIDENT, "")[: -len("/p")] in json.dumps(answer.blocks)


async def test_asked_what_was_said_about_something_nobody_said_no_runbook_stands_in(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "Was there anything about a checkout token leak?" asks what the team said: with memory
    silent, the checkout runbook (about one of its three words) is no answer, and the bot says
    it found nothing; asked about what that runbook is about, it is shown."""
    said = [(BOB, "orders-db replica lag at 40s, reads are stale")]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC53")
    question = "was there anything about a checkout token leak?"
    _, answer = await answered(driver, slack, BOSS, question, later)
    assert answer.text.startswith(messages.NOTHING_FOUND), answer.text
    assert "checkout-latency" not in json.dumps(answer.blocks), answer.text
    # One word of two in common is too little to tell.
    question = "what was the root cause of the checkout logouts?"
    _, logouts = await answered(driver, slack, BOSS, question, later)
    assert "checkout-latency" not in json.dumps(logouts.blocks), logouts.text
    question = "was there anything about checkout latency?"
    _, about = await answered(driver, slack, BOSS, question, later)
    assert "checkout-latency ›" in about.text, about.text
    # Half of it is enough: a name of the team's ("eu-west") is in no runbook.
    question = "was there anything about checkout deploys in eu-west?"
    _, half = await answered(driver, slack, BOSS, question, later)
    assert "checkout-latency ›" in half.text, half.text


async def test_seen_this_before_under_a_long_report_finds_the_incident_that_said_it_in_parts(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Under "payments-events consumer group is 800k behind and kafka-5 disk is at 94%",
    "seen this before?" finds the lag incident whose messages said each part (the group behind,
    the broker disk), none the whole report, once its messages are embedded."""
    said = [
        (
            BOB,
            "orders consumers are lagging badly: consumer group orders-fulfilment is 2.1M behind",
        ),
        (ALICE, "broker kafka-3 is at 97% disk on /var/lib/kafka, retention on orders.v2 tripled"),
        (ALICE, "root cause: the 14-day retention change on orders.v2 had no capacity check"),
        (BOB, "I set retention.ms on orders.v2 to 259200000 (3 days), cleaner deleting segments"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC54")
    report = "payments-events consumer group is 800k behind and kafka-5 disk is at 94%"
    root = await driver.say(later, BOB, report)
    assert root.ts is not None
    await finished(bot, answers=0, captured=len(said) + 1)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()
    await driver.mention(later, BOSS, "seen this before?", thread_ts=root.ts)
    answer = (await eventually(lambda: slack.workspace.bot_messages(later, root.ts)))[-1]
    lead = answer.text.splitlines()[0]
    assert lead.startswith("Seen before: inc-42 "), answer.text
    assert lead.endswith("the 14-day retention change on orders.v2 had no capacity check"), lead


async def _a_report_after_two_incidents(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> tuple[str, str]:
    """A postgres-connections incident, then a later, unrelated DNS one, then a new incident
    whose thread reports what the first did: (its channel, its report's ts)."""
    said = [
        (BOB, "checkout pods log FATAL: sorry, too many clients already from pg-main"),
        (BOB, "root cause: 32 workers x 12 pods wanted 768 connections, max_connections is 500"),
        (ALICE, "rollback of checkout-api to v7.2.4 done, connections dropping 480 -> 210"),
        (ALICE, "resolved. ~37 min of checkout errors (12:53-13:30)"),
        (BOB, "side note: the grafana pg dashboard lagged 2 min behind all along"),
    ]
    await _thread(driver, slack, said)
    slack.workspace.add_channel("C0INC61", "inc-61-coredns", members=[ALICE, BOB, BOSS])
    dns = await driver.say("C0INC61", BOB, "internal dns lookups time out for svc.cluster.local")
    await driver.say("C0INC61", ALICE, "restarted coredns, lookups ok again", thread_ts=dns.ts)
    await driver.say("C0INC61", ALICE, "resolved, dns was out for 12 min", thread_ts=dns.ts)
    slack.workspace.add_channel("C0INC62", "inc-62-cart", members=[ALICE, BOB, BOSS])
    report = "cart-svc 500s, postgres logs FATAL: sorry, too many clients already"
    root = await driver.say("C0INC62", BOB, report)
    assert root.ts is not None
    await finished(bot, answers=0, captured=len(said) + 4)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()
    return "C0INC62", root.ts


async def _asked_under(
    driver: SlackDriver, slack: FakeSlack, channel: str, root: str, question: str
) -> Any:
    before = len(slack.workspace.bot_messages(channel, root))
    await driver.mention(channel, BOSS, question, thread_ts=root)
    return (await eventually(lambda: slack.workspace.bot_messages(channel, root)[before:]))[-1]


async def test_last_time_under_a_report_is_the_incident_like_it_not_the_latest_one(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Under "cart-svc 500s, postgres logs FATAL: sorry, too many clients already", "what fixed it last time?"
    and "how long were we down last time?" name nothing of their own: "last time" is the
    incident like this one (the connections one), not the latest (the DNS one). How long is what
    its status said, not a side remark's "2 min"; no runbook stands beside either answer."""
    channel, root = await _a_report_after_two_incidents(bot, driver, slack)
    fixed = await _asked_under(driver, slack, channel, root, "what fixed it last time?")
    lead = fixed.text.splitlines()[0]
    assert lead.startswith("Memory says") and "rollback of checkout-api" in lead, fixed.text
    assert "coredns" not in fixed.text
    took = await _asked_under(driver, slack, channel, root, "how long were we down last time?")
    lead = took.text.splitlines()[0]
    assert lead.startswith("Memory says") and "~37 min of checkout errors" in lead, took.text
    assert "2 min behind" not in took.text and "12 min" not in took.text
    assert "*Runbooks*" not in json.dumps(took.blocks), took.blocks
    # The incident it answered from is said to be like this one, never "nothing similar".
    for said in (fixed, took):
        assert messages.NOTHING_SIMILAR not in json.dumps(said.blocks), said.blocks
    # A question that names what it is about is not answered by the report's incident.
    other = "what was the root cause of the kafka lag last time?"
    kafka = await _asked_under(driver, slack, channel, root, other)
    assert "768 connections" not in kafka.text, kafka.text


async def test_what_the_team_decided_under_an_alert_gets_no_runbook_and_the_rc_is_the_root_cause(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "what did we decide?" and "what's the rc?" under a report ask what was said here: the
    runbook the report is near is no part of the answer; lower-case "rc" asks for the root
    cause, and "who owns the pgbouncer change?" is the action item that names it."""
    report = await driver.say(INCIDENT, ALICE, "checkout p99 latency is at 4s since 10:02")
    root = report.ts
    assert root is not None
    for user, text in [
        (BOB, "decision: roll checkout back to v41, leave the db pool size alone"),
        (ALICE, "rc: 32 workers x 12 pods x pool of 2 = 768 conns vs max_connections 500"),
        (BOB, "AI: bob to switch pgbouncer to transaction pooling"),
    ]:
        await driver.say(INCIDENT, user, text, thread_ts=root)
    await finished(bot, answers=0, captured=4)
    # The report is near a runbook: a question that names nothing is read with it.
    near = await _asked_under(driver, slack, INCIDENT, root, "next steps?")
    assert "checkout-latency ›" in near.text, near.text
    decided = await _asked_under(driver, slack, INCIDENT, root, "what did we decide?")
    assert decided.text.startswith("Memory says") and "roll checkout back" in decided.text
    assert "*Runbooks*" not in json.dumps(decided.blocks), decided.blocks
    rc = await _asked_under(driver, slack, INCIDENT, root, "what's the rc?")
    assert rc.text.startswith("Memory says") and "root cause" in rc.text.splitlines()[0], rc.text
    assert "768 conns" in rc.text.splitlines()[0]
    owner = await _asked_under(driver, slack, INCIDENT, root, "who owns the pgbouncer change?")
    lead = owner.text.splitlines()[0]
    assert lead.startswith("Memory says") and "switch pgbouncer" in lead, owner.text


async def test_why_it_was_slow_why_we_did_not_roll_back_and_how_long_it_lasted_are_this_incidents(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Prose, as a team writes up as it goes. "Why was it slow?" is this incident's root cause
    (its words say "cache", not "slow"); "why didn't we roll back?" asks what was decided, so
    memory leads over the checkout runbook's "roll back the deploy"; "how long did it last?"
    is the wrap-up's span."""
    report = await driver.say(INCIDENT, ALICE, "checkout p99 latency at 2.4s since 14:50")
    root = report.ts
    assert root is not None
    said = [
        (BOB, "the 14:45 deploy of checkout v3.8.0 changed the cache key format"),
        (
            ALICE,
            "decision: keep v3.8.0 and pre-warm the cache rather than rolling back, it has the tax fix",
        ),
        (
            BOB,
            "root cause: the v3.8.0 cache key change invalidated the whole cache and nothing warmed it",
        ),
        (
            ALICE,
            "wrap-up: impact was 39 minutes of slow checkout pages (14:50-15:29). status: resolved",
        ),
    ]
    for user, text in said:
        await driver.say(INCIDENT, user, text, thread_ts=root)
    await finished(bot, answers=0, captured=len(said) + 1)
    why = await _asked_under(driver, slack, INCIDENT, root, "why was it slow?")
    # What made this incident slow is no runbook's: none stands beside the root cause.
    assert "*Runbooks*" not in json.dumps(why.blocks), why.blocks
    assert (
        why.text.startswith("Memory says")
        and "invalidated the whole cache" in why.text.splitlines()[0]
    ), why.text
    kept = await _asked_under(driver, slack, INCIDENT, root, "why didn't we roll back?")
    assert (
        kept.text.startswith("Memory says")
        and "rather than rolling back" in kept.text.splitlines()[0]
    ), kept.text
    took = await _asked_under(driver, slack, INCIDENT, root, "how long did it last?")
    assert took.text.startswith("Memory says") and "39 minutes" in took.text.splitlines()[0], (
        took.text
    )


async def test_seen_this_before_reads_a_metric_named_with_a_number_as_a_word(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "catalog p99 jumped to 3s right after the v5.2 deploy, cache hit ratio fell off a cliff":
    "p99" names what was measured, as "latency" would; "3s" and "v5.2" are this incident's own
    readings. The orders incident said "p99", "cache hit ratio" and "deploy" in its messages."""
    said = [
        (BOB, "orders p99 latency at 2.4s, error rate flat"),
        (ALICE, "cache hit ratio dropped from 94% to 61% at 14:49"),
        (BOB, "the 14:45 deploy of orders-api v3.8.0 changed the cache key format"),
        (ALICE, "root cause: the v3.8.0 cache key change invalidated the whole cache"),
    ]
    later = await _then_a_new_incident(bot, driver, slack, said, "C0INC55")
    report = (
        "catalog p99 jumped to 3s right after the v5.2 deploy, cache hit ratio fell off a cliff"
    )
    root = await driver.say(later, BOB, report)
    assert root.ts is not None
    await finished(bot, answers=0, captured=len(said) + 1)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()
    answer = await _asked_under(driver, slack, later, root.ts, "seen this before?")
    assert answer.text.startswith("Seen before: inc-42 "), answer.text


async def test_a_question_someone_asked_in_the_thread_is_no_answer_to_it(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "any customer impact on checkout? need it for the exec update" shares every word of
    "what's the customer impact on checkout?" and says nothing of it: it never answers, the
    message that states the impact does."""
    await _thread(
        driver,
        slack,
        [
            (BOSS, "any customer impact on checkout? need it for the exec update"),
            (BOB, "impact: 30% of card payments failed from 10:02"),
        ],
    )
    await finished(bot, answers=0, captured=2)
    _, answer = await answered(driver, slack, ALICE, "what's the customer impact on checkout?")
    said = next(line for line in answer.text.splitlines() if line.startswith("Memory says"))
    assert "30% of card payments failed" in said, answer.text
    assert "need it for the exec update" not in answer.text


async def test_what_do_i_owe_quotes_the_sentence_of_a_handover_that_names_the_asker(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await _thread(
        driver,
        slack,
        [
            (
                ALICE,
                "I'm going off shift. handing IC over to @boss. open items: AI-1 add a CI check"
                " on pool limits (owner bob), AI-2 postmortem doc (owner boss)",
            ),
        ],
    )
    await finished(bot, answers=0, captured=1)
    _, answer = await answered(driver, slack, BOB, "what do I owe?")
    assert "AI-1 add a CI check on pool limits (owner bob)" in answer.text.splitlines()[0]
    assert "going off shift" not in answer.text.splitlines()[0]


async def test_when_it_started_and_when_it_was_fixed_are_each_answered_from_the_thread(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """No message says "start" or "fixed": the report's "since 10:02" and the reply that says
    things recovered, with its time, answer."""
    root = await driver.say(INCIDENT, ALICE, "checkout is returning 503s since 10:02")
    for user, text in [
        (BOB, "grafana shows checkout pods restarting, deploy of v42 went out 09:55"),
        (BOSS, "any ETA? I need something for the 11:00 exec update"),
        (ALICE, "decision: roll back checkout to v41"),
        (BOB, "rollback done 10:40, 503s gone, pods healthy"),
    ]:
        await driver.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=5)
    _, answer = await answered(driver, slack, BOSS, "when did it start and when was it fixed?")
    began, recovered = answer.text.splitlines()[:2]
    assert began.startswith("Began [S") and "since 10:02" in began, answer.text
    assert recovered.startswith("Recovered [S") and "rollback done 10:40" in recovered


async def test_the_impact_and_what_to_tell_customers_come_from_what_the_team_said(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A manager's "what's the customer impact?" gets the update that states it (no message
    says "customer impact"), and support's "what can I tell customers?" gets where the incident
    stands, with no runbook before it: no runbook knows either."""
    root = await driver.say(INCIDENT, ALICE, "checkout is returning 503s since 10:02")
    for user, text in [
        (BOSS, "any customer impact? need something for the exec update"),
        (BOB, "Update 10:45\nimpact: 30% of card payments failed from 10:02 to 10:40"),
        (ALICE, "status: resolved, you can tell customers payments work again since 10:40"),
    ]:
        await driver.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=4)
    _, impact = await answered(driver, slack, BOSS, "what's the customer impact?")
    lead = impact.text.splitlines()[0]
    assert lead.startswith("Memory says") and "30% of card payments failed" in lead, impact.text
    _, tell = await answered(driver, slack, GUEST, "what can I tell customers?")
    assert tell.text.startswith("Memory says") and "payments work again" in tell.text
    assert "Runbooks" not in json.dumps(tell.blocks)


async def test_what_happened_asked_at_the_top_of_a_channel_that_talks_without_threads(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A team that talks at the channel's top level writes one message per thread: "what
    happened?" asked there gets where the whole channel stands, and "what do I owe?" finds the
    item a list of items signs with the asker's name in parentheses."""
    for user, text in [
        (ALICE, "search p99 went from 300ms to 8s at 12:52, 30% of queries time out"),
        (BOB, "root cause: ES heap set to 31g in the last chef run; should be 16g"),
        (ALICE, "decision: pause the nightly reindex until the cluster is green"),
        (
            ALICE,
            "status: mitigated. AI-1 revert the heap in chef (bob), AI-2 alert on node loss (boss)",
        ),
    ]:
        await driver.say(INCIDENT, user, text)
    await finished(bot, answers=0, captured=4)
    _, answer = await answered(driver, slack, BOSS, "what happened?")
    said = answer.text
    assert said.startswith("*Where this channel stands*"), said
    assert "Root cause: ES heap set to 31g in the last chef run; should be 16g" in said
    assert "Decisions: pause the nightly reindex until the cluster is green" in said
    assert "Status: mitigated." in said
    _, polite = await answered(driver, slack, BOSS, "catch me up please, just joined")
    assert polite.text.startswith("*Where this channel stands*"), polite.text
    _, owed = await answered(driver, slack, BOB, "what do I owe?")
    assert "AI-1 revert the heap in chef (bob)" in owed.text.splitlines()[0], owed.text


async def test_last_time_is_never_answered_by_this_incidents_own_report(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "How did we promote a replica last time?" shares "replica" with the report it is asked
    under and little with what was done last time: "last time" is the incident like it, read
    for what the question names."""
    ws = slack.workspace
    ws.add_channel("C0INC71", "inc-71-orders-db-down", members=[ALICE, BOB, BOSS])
    past = await driver.say(
        "C0INC71", BOB, "paged: orders-api 100% 5xx on writes, reads ok. mysql-orders-01 down"
    )
    for text in [
        "ssh to mysql-orders-01 hangs, console shows I/O errors on nvme1n1. disk is dead",
        "me. promoting mysql-orders-02: `orchestrator-client -c graceful-master-takeover-auto`",
        "02:31 mysql-orders-02 is primary now, orders-api writes going through",
        "root cause: NVMe failure on mysql-orders-01",
    ]:
        await driver.say("C0INC71", ALICE, text, thread_ts=past.ts)
    ws.add_channel("C0INC72", "inc-72-orders-replica-lag", members=[ALICE, BOB, BOSS])
    report = "mysql-orders-04 replica lag 900s and growing, orders-api reads stale"
    root = await driver.say("C0INC72", BOB, report)
    assert root.ts is not None
    await finished(bot, answers=0, captured=6)
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    await jobs.index_vectors()
    await jobs.roll_up_threads()
    asked = "how did we promote a replica last time?"
    said = await _asked_under(driver, slack, "C0INC72", root.ts, asked)
    lead = said.text.splitlines()[0]
    assert lead.startswith("Memory says") and "promoting mysql-orders-02" in lead, said.text
    assert "replica lag 900s" not in said.text


async def test_whats_next_and_are_we_still_degraded_are_answered_from_where_the_incident_is(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "whats next?" gets what was done and the open items; "are we still degraded?" names
    nothing but the outage, so the newest report answers it (no message says "degraded")."""
    root = await driver.say(INCIDENT, ALICE, "orders-api 100% 5xx on writes, mysql-orders-01 down")
    for user, text in [
        (BOB, "02:31 mysql-orders-02 is primary now, writes going through"),
        (ALICE, "we run with 1 replica only now, rebuilding one from backup takes ~3h"),
        (BOB, "root cause: NVMe failure on mysql-orders-01"),
        (ALICE, "AI-1 re-enable orchestrator recovery (bob), AI-2 rebuild the replica (alice)"),
        (BOB, "thanks all, grabbing coffee, back in 5"),  # says nothing of how it stands
    ]:
        await driver.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=6)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()
    still = await _asked_under(driver, slack, INCIDENT, root.ts, "are we still degraded?")
    lead = still.text.splitlines()[0]
    assert lead.startswith("Memory says") and "1 replica only now" in lead, still.text
    ahead = await _asked_under(driver, slack, INCIDENT, root.ts, "whats next?")
    memory = _memory_section(ahead.blocks)
    assert "AI-1 re-enable orchestrator recovery" in memory, memory


async def test_what_do_i_owe_from_the_next_incident_finds_an_open_item_of_an_earlier_one(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Asked in a new incident's channel that owes the asker nothing, "what do I owe?" finds
    the open items of earlier incidents that name them; a list of items stays open until each
    is done ("AI-3 done" closes AI-3 only)."""
    await _thread(
        driver,
        slack,
        [
            (
                ALICE,
                "action items: AI-1 re-enable recovery (bob), AI-2 pool checks (boss), AI-3 rebuild replica (alice)",
            ),
            (ALICE, "AI-3 done, new replica in sync"),
        ],
    )
    slack.workspace.add_channel("C0INC81", "inc-81-replica-lag", members=[ALICE, BOB, BOSS])
    await driver.say("C0INC81", BOB, "replica lag 900s and growing")
    await finished(bot, answers=0, captured=3)
    (m, _) = await driver.mention("C0INC81", BOB, "what do I owe?")
    owed = (await eventually(lambda: slack.workspace.bot_messages("C0INC81", m.ts)))[0]
    lead = owed.text.splitlines()[0]
    assert lead.startswith("Memory says") and "AI-1 re-enable recovery (bob)" in lead, owed.text
    assert "inc-42" in lead  # said where it is owed


async def test_the_bridge_link_what_was_tried_the_timeline_and_is_it_fixed(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Questions a manager joining the bridge asks: the link said in the thread's opening, what
    was tried so far, the timeline, and whether it is fixed (a status-page note is no state)."""
    root = await driver.say(
        INCIDENT,
        ALICE,
        "payments p99 at 9s since 13:52, card auth timing out. I'm IC, bridge: https://meet.example.com/x",
    )
    for user, text in [
        (BOB, "tried bumping the proxy pool to 1024 at 14:05, no change"),
        (ALICE, "decision: roll back payments-api to v5.1"),
        (BOB, "rollback done 14:21, p99 back to 400ms, timeouts gone"),
        (ALICE, "status: mitigated. status page updated 14:25"),
        (ALICE, "paged the payments team at 14:02, they own the fix"),
    ]:
        await driver.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=6)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()

    async def lead(question: str) -> str:
        said = await _asked_under(driver, slack, INCIDENT, root.ts, question)
        return str(said.text)

    assert "meet.example.com/x" in (await lead("whats the bridge link?")).splitlines()[0]
    tried = await lead("what have we tried so far?")
    assert tried.startswith("Memory says") and "Memory has nothing" not in tried, tried
    timeline = (await lead("timeline?")).splitlines()
    assert timeline[0].startswith("Began [S") and "since 13:52" in timeline[0]
    assert timeline[1].startswith("Recovered [S") and "rollback done 14:21" in timeline[1]
    fixed = (await lead("is it fixed?")).splitlines()[0]
    assert "status page updated" not in fixed and "own the fix" not in fixed, fixed
    assert "mitigated" in fixed or "timeouts gone" in fixed, fixed
    # In another thread, "it" is what that thread opened with, not the outage.
    job = await driver.say(INCIDENT, BOB, "kicking off the ledger reindex job for the stuck cards")
    await finished(bot, answers=4, captured=7)
    running = await _asked_under(driver, slack, INCIDENT, job.ts, "is it still running?")
    lead = running.text.splitlines()[0]
    assert "rollback done" not in lead and "mitigated" not in lead, running.text
