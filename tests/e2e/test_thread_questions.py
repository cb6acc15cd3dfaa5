"""Short questions asked in an incident thread opened by an alert, through the real Bolt stack:
what the thread said answers "what did we decide?" and "who owns it?", "next steps?" is read
with the alert (and shows what was decided), and "seen this before?" under a new alert finds
the earlier incident."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.answer.messages import NOTHING_FOUND
from bot.runtime import Runtime
from bot.scheduler import Jobs
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, BOB, INCIDENT, SECRET, TEAM, eventually, finished

CORPUS = Path(__file__).parent / "runbook_sections"
AGAIN = "C0INC44"


def alert(pod: str) -> list[dict[str, Any]]:
    return [
        {
            "fallback": f"[FIRING:1] CPUThrottlingHigh checkout/{pod}",
            "title": f"[FIRING:1] CPUThrottlingHigh checkout/{pod}",
            "text": f"60% throttling of CPU in namespace checkout for container {pod}.",
        }
    ]


THREAD = [
    (BOB, "on it, throttling since the 10:02 deploy"),
    (ALICE, "decision: raise the api CPU limit to 2 cores until the profiling is done"),
    (BOB, "AI: Bob profiles the JSON encoder hot path"),
    (ALICE, "rca: the v42 encoder change tripled CPU per request"),
]


@pytest.fixture
async def bot(start_bot: Callable[..., Any]) -> Runtime:
    return await start_bot(runbooks_dir=CORPUS, runbooks_url="https://runbooks.example.com")


@pytest.fixture
async def driver(bot: Runtime, slack: FakeSlack) -> AsyncIterator[SlackDriver]:
    slack.workspace.add_channel(AGAIN, "inc-44-checkout-throttled-again", members=[ALICE, BOB])
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        yield d


async def worked_thread(bot: Runtime, driver: SlackDriver) -> str:
    """The alert's thread in the incident channel, with what the team said in it."""
    root, _ = await driver.app_post(INCIDENT, "Alertmanager", "", attachments=alert("api"))
    for user, text in THREAD:
        await driver.say(INCIDENT, user, text, thread_ts=root.ts)
    await finished(bot, answers=0, captured=1 + len(THREAD))
    return root.ts


async def ask(driver: SlackDriver, slack: FakeSlack, channel: str, root: str, q: str) -> str:
    before = len(slack.workspace.bot_messages(channel, root))
    await driver.mention(channel, ALICE, q, thread_ts=root)
    got = await eventually(lambda: slack.workspace.bot_messages(channel, root)[before:] or None)
    return f"{got[0].text}\n{got[0].blocks}"


async def test_what_the_thread_decided_and_who_owns_the_action_are_answered_from_it(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    root = await worked_thread(bot, driver)
    decided = await ask(driver, slack, INCIDENT, root, "what did we decide?")
    assert decided.startswith("Memory says"), decided[:200]
    assert "raise the api CPU limit to 2 cores" in decided.split("\n")[0]
    owns = await ask(driver, slack, INCIDENT, root, "who owns it?")
    assert "Bob profiles the JSON encoder hot path" in owns.split("\n")[0], owns[:200]


async def test_next_steps_under_an_alert_gets_that_alerts_fix(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    root = await worked_thread(bot, driver)
    text = await ask(driver, slack, INCIDENT, root, "next steps?")
    assert text.startswith("*cpu-throttling-high › Mitigation"), text[:200]
    # … and what the thread already decided, under the runbook's steps.
    assert "*Runbooks*" in text
    assert "raise the api CPU limit to 2 cores" in text.split("*Runbooks*")[0]


async def test_a_short_question_asking_something_else_is_not_answered_with_the_plan(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "Was it dns?" asks what happened, "who should I escalate to?" whom to call: the thread's
    decision answers neither, and memory says it has nothing. Nor does the alert's CPU runbook
    answer whether it was DNS: with memory silent on what happened, nothing is shown."""
    root, _ = await driver.app_post(INCIDENT, "Alertmanager", "", attachments=alert("api"))
    await driver.say(INCIDENT, ALICE, THREAD[1][1], thread_ts=root.ts)  # the decision only
    await finished(bot, answers=0, captured=2)
    for question in ("was it dns?", "who is on call?", "who should I escalate to?"):
        text = await ask(driver, slack, INCIDENT, root.ts, question)
        assert "raise the api CPU limit" not in text, (question, text[:300])
        # "who is on call?" gets no runbook either (runbooks name no people), nor "was it dns?"
        # (the CPU runbook is not about DNS): nothing at all.
        asks_how = question == "who should I escalate to?"
        nothing = "Memory has nothing on that." if asks_how else NOTHING_FOUND
        assert nothing in text, (question, text[:300])


async def test_a_question_that_names_its_subject_is_searched_by_its_own_words(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Asked under the CPU alert, "how do I fix a crashlooping pod?" names its own subject:
    the alert does not steer its runbook, nor its similar incidents."""
    root = await worked_thread(bot, driver)
    text = await ask(driver, slack, INCIDENT, root, "how do I fix a crashlooping pod?")
    assert text.startswith("*kube-pod-crash-looping › Mitigation"), text[:200]
    assert "cpu-throttling-high ›" not in text.split("*Runbooks*")[0]


async def test_seen_this_before_under_a_new_alert_finds_the_earlier_incident(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    await worked_thread(bot, driver)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()  # the minute's job
    again, _ = await driver.app_post(AGAIN, "Alertmanager", "", attachments=alert("web"))
    await finished(bot, answers=0, captured=2 + len(THREAD))
    found = await ask(driver, slack, AGAIN, again.ts, "seen this before?")
    assert "Similar past incidents" in found, found
    similar = found[found.index("Similar past incidents") :]
    assert "inc-42" in similar, found
    assert "the v42 encoder change tripled CPU per request" in similar


async def test_seen_slowness_like_this_before_is_read_with_the_alert_it_points_at(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "Like this" is the alert the thread opened with: the question's own words ("slow
    requests") are in no note of the earlier incident, its alert's are."""
    await worked_thread(bot, driver)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()  # the minute's job
    again, _ = await driver.app_post(AGAIN, "Alertmanager", "", attachments=alert("web"))
    await finished(bot, answers=0, captured=2 + len(THREAD))
    found = await ask(
        driver, slack, AGAIN, again.ts, "have we seen slow requests like this before?"
    )
    assert "Similar past incidents" in found, found
    assert "inc-42" in found[found.index("Similar past incidents") :], found
    assert found.startswith("Seen before: inc-42"), found[:200]


async def test_what_did_we_decide_answers_from_the_thread_it_is_asked_in(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """One incident channel, two alerts' threads, each with its decision: asked in the first
    thread, its own decision answers, not the newer one of the other thread."""
    first = await worked_thread(bot, driver)
    disk = [{"title": "[FIRING:1] NodeFilesystemSpaceFillingUp db-3", "text": "/var 91% full"}]
    other, _ = await driver.app_post(INCIDENT, "Alertmanager", "", attachments=disk)
    await driver.say(
        INCIDENT, BOB, "decision: move the db-3 WAL to the new volume", thread_ts=other.ts
    )
    await finished(bot, answers=0, captured=len(THREAD) + 3)
    here = await ask(driver, slack, INCIDENT, first, "what did we decide?")
    assert "raise the api CPU limit to 2 cores" in here.split("\n")[0], here[:200]
    assert "db-3 WAL" not in here.split("*Memory*")[0]
    there = await ask(driver, slack, INCIDENT, other.ts, "what did we decide?")
    assert "move the db-3 WAL to the new volume" in there.split("\n")[0], there[:200]


async def test_the_alert_a_thread_opened_with_answers_which_alert_fired_only(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """The asker is looking at the alert: quoting it back answers "which alert fired?", not
    "what should we adjust?"."""
    root, _ = await driver.app_post(INCIDENT, "Alertmanager", "", attachments=alert("api"))
    await finished(bot, answers=0, captured=1)
    how = await ask(
        driver, slack, INCIDENT, root.ts, "checkout api CPU is throttled, what should we adjust?"
    )
    assert "CPUThrottlingHigh checkout/api" not in how.split("*Runbooks*")[0], how[:300]
    which = await ask(driver, slack, INCIDENT, root.ts, "which alert fired?")
    assert "CPUThrottlingHigh checkout/api" in which.split("\n")[0], which[:300]


async def test_a_question_whose_own_words_find_no_runbook_is_read_with_the_alert(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """ "is it spiking hourly?" under the CPU alert: no runbook uses its words, so alone it finds
    nothing; with the alert it gets the alert's runbook, whose diagnosis says to check for
    periodic spikes."""
    root = await worked_thread(bot, driver)
    text = await ask(driver, slack, INCIDENT, root, "is it spiking hourly?")
    assert "cpu-throttling-high › Diagnosis" in text, text[:300]
    assert "periodic spikes" in text


async def test_the_alerts_runbook_is_not_given_to_a_question_about_something_else(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Read with the alert, "anything about payments fraud?" would get the CPU runbook, which
    says nothing about payments or fraud: the answer says nothing was found."""
    root = await worked_thread(bot, driver)
    text = await ask(driver, slack, INCIDENT, root, "is there anything about payments fraud?")
    assert "cpu-throttling-high" not in text, text[:300]
    assert "I found nothing in the runbooks or in memory" in text


async def test_who_owns_it_when_the_root_cause_and_the_status_get_memory_and_no_runbook(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """No runbook knows who owns a follow-up, what this incident's root cause was, when the
    team did something or where it stands; "root cause" itself is a word runbooks use, so searching the question found one."""
    root = await worked_thread(bot, driver)
    await driver.say(INCIDENT, BOB, "We consider the incident mitigated.", thread_ts=root)
    await finished(bot, answers=0, captured=2 + len(THREAD))
    # "the CPU limit" alone finds the CPU runbook; who owns the follow-up is not in it.
    owns = await ask(driver, slack, INCIDENT, root, "who owns the CPU limit follow-up?")
    cause = await ask(driver, slack, INCIDENT, root, "what was the root cause?")
    assert "the v42 encoder change tripled CPU per request" in cause.split("\n")[0], cause[:300]
    status = await ask(driver, slack, INCIDENT, root, "what is the current status?")
    assert "We consider the incident mitigated." in status.split("\n")[0], status[:300]
    # When the team did something is in what it said, never in a procedure.
    when = await ask(driver, slack, INCIDENT, root, "when did we raise the CPU limit?")
    assert "raise the api CPU limit to 2 cores" in when.split("\n")[0], when[:300]
    for text in (owns, cause, status, when):
        assert "*Runbooks*" not in text and "cpu-throttling-high" not in text, text[:300]
