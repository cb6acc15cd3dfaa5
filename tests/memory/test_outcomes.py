"""What came of a change (issue 14, item 3): "did bumping the limit help?" is answered by the
change and the reply in its thread that reports the effect, each layer on its own."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.outcomes import asks_outcome, reports_outcome
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store import notes as note_store
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx, store_returning_personal_rows

ASKER = Requester("T1/UASK", "T1", channel_id="C1")
ELSEWHERE = Requester("T1/UASK", "T1", channel_id="C9")

CHANGE = "bumped the cpu limit 2 -> 4 on search-api at 14:10"
EFFECT = "no change, p99 still 3.8s. throttling is gone though so its not cpu"


@pytest.mark.parametrize(
    "question",
    [
        "did bumping the cpu limit help?",
        "why didnt raising the cpu limit help last time?",
        "Why didn't the rollback fix it?",
        "would disabling retries have been enough?",
        "did the restart work?",
        "what did switching off retries achieve?",
    ],
)
def test_a_question_about_whether_a_change_worked_asks_its_outcome(question: str) -> None:
    assert asks_outcome(question)


@pytest.mark.parametrize(
    "question",
    [
        "who bumped the cpu limit?",
        "How long did it take to work through the backlog?",
        "does restarting help?",
        "would it help to page the db team?",
        "is there a known fix?",
        "does the vendor have a fix?",
        "has anyone got a fix?",
        "How did our estimate of warehouse work change overnight?",
        "when did we roll back?",
        "what did we change in pgbouncer?",
    ],
)
def test_a_question_about_something_else_asks_no_outcome(question: str) -> None:
    assert not asks_outcome(question)


def test_a_reply_reports_an_effect_when_it_says_better_worse_or_none() -> None:
    for said in (
        EFFECT,
        "nope, it's back. cl_waiting climbing again",
        "rollback done, handshake failures are unchanged",
        "dropped from 61% to 38%",
        "scaling made it worse",
        "errors are gone",
        "DB still pinned at 98%",
        "warming done 11:40, hit ratio back to 88%",  # a measure returned
        "p99 back under 200ms",
        "restart done 02:38, 5xx back to 0",  # a named measure, back to a reading
        "lag back under 1k",
    ):
        assert reports_outcome(said), said
    for said in (
        "did it help?",
        "bumped the cpu limit 2 -> 4",
        "looking at the dashboards",
        "still investigating",
        "still waiting on the vendor",
        "nope not me",
        "no luck finding the runbook",
        "the link doesn't work",
        "maxclients back to 10000 at 09:55",  # a setting put back
        "replicas back to 3",
    ):
        assert not reports_outcome(said), said


async def _thread(db, redactor, embedder, lines) -> Recall:
    """Thread messages of an incident in C1, captured as the bot captures them: `lines` are
    (author, ts, thread_ts, text)."""
    from memory.incidents import Incidents

    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    inc = await Incidents(db, redactor=redactor).open(
        ctx("C1", author=ALICE), title="search latency", channel_id="C1"
    )
    for author, ts, thread_ts, text in lines:
        await threads.capture(
            ctx("C1", author=author), ts=ts, thread_ts=thread_ts, text=text, incident=inc.id
        )
    return Recall(db, embedder)


PARENT = "1700000001.000100"


def _under_the_alert(*replies: tuple[object, str]) -> list[tuple[object, str, str | None, str]]:
    """The CPU alert's thread: the alert, then `replies` (author, text) in order."""
    alert = (ALICE, PARENT, None, "[FIRING:1] CPUThrottlingHigh search/search-api")
    return [alert] + [
        (a, f"17000000{n + 2:02d}.000100", PARENT, t) for n, (a, t) in enumerate(replies)
    ]


async def test_an_outcome_question_gets_the_change_and_then_what_came_of_it(
    db, redactor, embedder
) -> None:
    recall = await _thread(
        db,
        redactor,
        embedder,
        _under_the_alert((BOB, CHANGE), (ALICE, "watching the dashboards"), (BOB, EFFECT)),
    )
    items = await recall.relevant(ASKER, "did bumping the cpu limit help?")
    assert [i.text for i in items[:2]] == [CHANGE, EFFECT]
    assert items[1].follows == items[0].id and items[1].author_name == "bob"
    # Asked about something else, the reply is not brought.
    other = await recall.relevant(ASKER, "who bumped the cpu limit?")
    assert EFFECT not in [i.text for i in other]


async def test_a_reply_in_another_thread_is_not_what_came_of_the_change(
    db, redactor, embedder
) -> None:
    other = "1700000009.000100"
    recall = await _thread(
        db,
        redactor,
        embedder,
        [
            *_under_the_alert((BOB, CHANGE)),
            (ALICE, other, None, "[FIRING:1] KafkaLagHigh orders"),
            (ALICE, "1700000010.000100", other, "restarted the consumers, no change"),
        ],
    )
    items = await recall.relevant(ASKER, "did bumping the cpu limit help?")
    assert items and items[0].text == CHANGE
    assert not any(i.follows for i in items)


async def test_an_action_item_after_the_change_is_not_its_outcome(db, redactor, embedder) -> None:
    recall = await _thread(
        db,
        redactor,
        embedder,
        _under_the_alert((BOB, CHANGE), (ALICE, "AI-2: alert before throttling made it worse")),
    )
    items = await recall.relevant(ASKER, "did bumping the cpu limit help?")
    assert items and items[0].text == CHANGE
    assert not any(i.follows for i in items)


async def _personal_effect(db, redactor, embedder) -> Recall:
    """The change, captured in the incident's thread; a later message of the thread that the
    asker saved to their own memory only (stored, noted as personal, never as channel memory)."""
    from memory.incidents import Incidents

    notes = Notes(db, redactor, embedder)
    threads = Threads(db, redactor, notes=notes)
    inc = await Incidents(db, redactor=redactor).open(
        ctx("C1", author=ALICE), title="search latency", channel_id="C1"
    )
    said = [
        (PARENT, None, CHANGE, inc.id),
        ("1700000002.000100", PARENT, "no change, I'm off", None),
    ]
    for ts, thread_ts, text, incident in said:
        await threads.capture(
            ctx("C1", author=BOB), ts=ts, thread_ts=thread_ts, text=text, incident=incident
        )
    mine = ctx("C1", scope="user", user="UASK", source_ts="1700000002.000100")
    await notes.save(mine, "no change, I'm interviewing elsewhere", "note")
    return Recall(db, embedder)


async def test_a_personal_note_is_never_read_as_what_came_of_a_shared_change(
    db, redactor, embedder
) -> None:
    """SQL layer: the replies query reads no personal row, even one misfiled into the change's
    own partition, even for the note's owner."""
    await _personal_effect(db, redactor, embedder)
    (change,) = await db.fetchall(
        "SELECT id, partition_key FROM memory_notes WHERE scope = 'channel'"
    )
    (mine,) = await db.fetchall("SELECT owner_subject_id FROM memory_notes WHERE scope = 'user'")
    owner = Requester(mine["owner_subject_id"], "T1", channel_id="C1")
    assert await note_store.replies_to(db, owner, int(change["id"]), limit=8) == []
    await db.execute(
        "UPDATE memory_notes SET partition_key = :p WHERE scope = 'user'",
        {"p": change["partition_key"]},
    )
    assert await note_store.replies_to(db, owner, int(change["id"]), limit=8) == []


async def test_a_personal_note_the_store_returned_is_still_not_shown_as_the_outcome(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the store to return a personal note, recall drops it."""
    recall = await _personal_effect(db, redactor, embedder)
    unfiltered = await store_returning_personal_rows(db)
    monkeypatch.setattr(note_store, "replies_to", unfiltered)
    items = await recall.relevant(ASKER, "did bumping the cpu limit help?")
    assert items and items[0].text == CHANGE
    assert all(i.scope != "user" for i in items)


async def test_a_private_channels_reply_is_not_read_from_elsewhere(db, redactor, embedder) -> None:
    """The replies query applies the visibility rule: a private channel's reply is not read for
    someone asking from another channel, however the change's id is reached."""
    from memory.incidents import Incidents

    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    inc = await Incidents(db, redactor=redactor).open(
        ctx("CPRIV", author=ALICE, private=True), title="secret", channel_id="CPRIV"
    )
    for ts, thread_ts, text in [(PARENT, None, CHANGE), ("1700000002.000100", PARENT, EFFECT)]:
        await threads.capture(
            ctx("CPRIV", author=BOB, private=True),
            ts=ts,
            thread_ts=thread_ts,
            text=text,
            incident=inc.id,
        )
    change = await db.scalar("SELECT id FROM memory_notes WHERE text = :t", {"t": CHANGE})
    assert await note_store.replies_to(db, ELSEWHERE, int(change), limit=8) == []
    inside = Requester("T1/UASK", "T1", channel_id="CPRIV")
    replies = await note_store.replies_to(db, inside, int(change), limit=8)
    assert [r["text"] for r in replies] == [EFFECT]


async def test_a_change_said_in_the_channel_itself_is_answered_by_the_channels_next_message(
    db, redactor, embedder
) -> None:
    """Said at the top of the channel, not in a thread: the effect is the channel's next
    message that reports one."""
    recall = await _thread(
        db,
        redactor,
        embedder,
        [
            (BOB, "1700000002.000100", None, CHANGE),
            (ALICE, "1700000003.000100", None, "looking at the dashboards"),
            (BOB, "1700000004.000100", None, EFFECT),
        ],
    )
    items = await recall.relevant(ASKER, "did bumping the cpu limit help?")
    assert [i.text for i in items[:2]] == [CHANGE, EFFECT] and items[1].follows == items[0].id


WARMED = "warming done 11:40, hit ratio back to 88%"
WARMING_DAY = [
    (BOB, "decision: block the v1 script in CI and warm the cache from the top-10k list"),
    (ALICE, "origin autoscaler max replicas bumped to 60 as a stopgap"),
    (BOB, WARMED),
    (ALICE, "p99 dropped from 3s to 200ms after the cpu change"),  # another change's effect
    (ALICE, "the restart didn't help, p99 still 3s"),  # says "help" of another change
]


def _keeping_nothing(recall: Recall) -> Recall:
    """The same recall with a floor no candidate passes: what a question that shares a word or
    two with its answer meets ("did the warming help?")."""
    from dataclasses import replace

    from memory.recall.floor import FLOORS

    floors = {k: replace(v, floor=0.999) for k, v in FLOORS.items()}
    return Recall(recall._db, recall._embedder, replace(recall._config, floors=floors))


async def test_with_nothing_kept_a_message_that_names_the_change_and_its_effect_answers(
    db, redactor, embedder
) -> None:
    recall = _keeping_nothing(await _thread(db, redactor, embedder, _under_the_alert(*WARMING_DAY)))
    assert [i.text for i in await recall.relevant(ASKER, "did the warming help?")] == [WARMED]
    # a question that asks no outcome gets nothing from it
    assert await recall.relevant(ASKER, "who did the warming?") == []


async def test_an_effect_of_another_change_never_answers_for_the_one_asked_about(
    db, redactor, embedder
) -> None:
    """Nobody reported on the warming: the restart "didn't help" is no answer to whether the
    warming did, though it says "help"."""
    day = [line for line in WARMING_DAY if line[1] != WARMED]
    recall = _keeping_nothing(await _thread(db, redactor, embedder, _under_the_alert(*day)))
    assert await recall.relevant(ASKER, "did the warming help?") == []


async def test_a_personal_effect_among_the_candidates_never_answers_an_outcome_question(
    db, redactor, embedder
) -> None:
    """Code layer: the asker's own note is among the ranked candidates (they may see it); it
    is never the shared answer an outcome question falls back to."""
    recall = _keeping_nothing(
        await _thread(db, redactor, embedder, _under_the_alert((BOB, CHANGE)))
    )
    mine = ctx("C1", scope="user", user="UASK", source_ts="1700000009.000100")
    await Notes(db, redactor, embedder).save(mine, "my warming test: hit ratio back to 90%", "note")
    owner = (await db.fetchall("SELECT owner_subject_id FROM memory_notes WHERE scope = 'user'"))[0]
    asker = Requester(owner["owner_subject_id"], "T1", channel_id="C1")
    assert await recall.relevant(asker, "did the warming help?") == []


def test_asked_why_a_root_cause_leads_then_what_says_because() -> None:
    from datetime import UTC, datetime

    from memory.recall.recall import RecallItem, explanations_first

    def item(i: int, kind: str, text: str) -> RecallItem:
        return RecallItem(
            i, kind, text, "channel", None, "C1", "T1/U1", datetime.now(UTC), None, 1.0
        )

    forced = item(1, "mitigation", "graceful takeover fails, old master unreachable")
    why = item(2, "mitigation", "no fail over, because orchestrator recovery is disabled")
    cause = item(3, "root_cause", "root cause: NVMe failure")
    assert explanations_first([forced, why]) == [why, forced]
    assert explanations_first([forced, why, cause]) == [cause, why, forced]
