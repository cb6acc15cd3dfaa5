"""What was done about a decision or action item: "done, cordoned ip-10-2-3-4, ip-10-2-7-9"
after "cordon the 3 nodes" says which nodes, and is shown under the decision it carries out
(recall) and marks the item done (roll-up)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.episodes.done import carries_out
from memory.episodes.summary import summarise
from memory.notes.notes import Notes
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store import notes as note_store
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx, store_returning_personal_rows
from tests.memory.test_summary import _thread as _said

ASKER = Requester("T1/UASK", "T1", channel_id="C1")
PARENT = "1700000001.000100"


def _soon_after_the_thread() -> datetime:
    """The clock of the thread's day: notes are dated when said (their ts), so recall reads
    them as people did then, not years later."""
    return datetime(2023, 11, 14, 23, 0, tzinfo=UTC)


CORDON = "Decision: cordon the 3 nodes and scale batch-etl to 0 until we know more"
CORDONED = "done, cordoned ip-10-2-3-4, ip-10-2-7-9, ip-10-2-8-1"
RAISE = "TODO @dev: raise node-local-dns memory limit to 200Mi and add an alert on its restarts"


@pytest.mark.parametrize(
    ("item", "report"),
    [
        (CORDON, CORDONED),
        (RAISE, "limit raised to 200Mi and rolled out to all nodes at 11:52"),
        (RAISE, "raised it to 200Mi"),
        (RAISE, "raised it to 200Mi, went in at 11:52"),  # "went" is no "n't"
        (CORDON, "batch-etl scaled to 0"),
        ("@kim write the postmortem by friday", "postmortem written, link in the topic"),
        ("roll back checkout to v41", "rolled back to v41, errors dropping"),
        ("Ana to restart the ingress pods", "restarted ingress-nginx pods one at a time"),
    ],
)
def test_a_report_of_doing_what_the_item_said_carries_it_out(item: str, report: str) -> None:
    assert carries_out(item, report)


@pytest.mark.parametrize(
    ("item", "report"),
    [
        (CORDON, "not cordoned yet, waiting on kim"),
        (CORDON, "should we cordon them?"),
        (RAISE, "once the limit is raised ping me"),
        (CORDON, "timeouts dropping, p99 back to 600ms"),
        (CORDON, "scaled checkout to 10 yesterday"),  # another subject
        (RAISE, "we raised the alarm with the vendor"),
        ("roll back checkout to v41", "v41 deploy failed, rolled forward instead"),
        ("@kim write the postmortem by friday", "I wrote down the timeline"),
        ("restart the pods", "restarted pods would lose state, careful"),
        (RAISE, "haven't raised the limit to 200Mi yet"),
        (RAISE, "havent raised the limit"),
        ("roll back to v41", "we rolled back last week too, different issue"),
    ],
)
def test_talk_that_does_not_report_the_item_done_does_not_carry_it_out(
    item: str, report: str
) -> None:
    assert not carries_out(item, report)


def test_the_roll_up_marks_the_action_and_the_decision_carried_out_and_lists_no_report() -> None:
    s = summarise(
        _said(
            "intermittent DNS timeouts from the payments namespace",
            CORDON,
            CORDONED,
            RAISE,
            "limit raised to 200Mi and rolled out to all nodes at 11:52",
        )
    )
    assert s.sections["decisions"] == [
        "cordon the 3 nodes and scale batch-etl to 0 until we know more → done: cordoned "
        "ip-10-2-3-4, ip-10-2-7-9, ip-10-2-8-1"
    ]
    (action,) = s.sections["actions"]
    assert action.endswith(" → done: limit raised to 200Mi and rolled out to all nodes at 11:52")


def test_a_report_of_not_done_leaves_the_item_open() -> None:
    s = summarise(_said("dns timeouts", RAISE, "limit not raised yet, waiting on review"))
    assert s.sections["actions"] == [RAISE]


async def _thread(db, redactor, embedder, lines: list[tuple[object, str]]) -> Recall:
    """Messages of one incident thread in C1, captured as the bot captures them."""
    from memory.incidents import Incidents

    notes = Notes(db, redactor, embedder, clock=_soon_after_the_thread)
    threads = Threads(db, redactor, _soon_after_the_thread, notes=notes)
    inc = await Incidents(db, redactor=redactor).open(
        ctx("C1", author=ALICE), title="dns timeouts", channel_id="C1"
    )
    for n, (author, text) in enumerate(lines):
        ts = PARENT if n == 0 else f"17000000{n + 1:02d}.000100"
        await threads.capture(
            ctx("C1", author=author),
            ts=ts,
            thread_ts=None if n == 0 else PARENT,
            text=text,
            incident=inc.id,
        )
    return Recall(db, embedder, clock=_soon_after_the_thread)


async def test_which_nodes_gets_the_decision_and_the_report_that_names_them(
    db, redactor, embedder
) -> None:
    recall = await _thread(
        db,
        redactor,
        embedder,
        [
            (ALICE, "intermittent DNS timeouts from the payments namespace"),
            (ALICE, CORDON),
            (BOB, CORDONED),
            (BOB, "timeouts dropping, p99 back to 600ms"),
        ],
    )
    items = await recall.relevant(ASKER, "which nodes did we cordon?")
    texts = [i.text for i in items]
    assert texts[:2] == [CORDON, CORDONED], texts
    assert items[1].done_for == items[0].id and items[1].author_name == "bob"


async def test_a_personal_report_the_store_returned_is_never_shown_under_a_shared_decision(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the replies query to return a personal note, recall drops it."""
    recall = await _thread(
        db, redactor, embedder, [(ALICE, "intermittent DNS timeouts"), (ALICE, CORDON)]
    )
    mine = ctx("C1", scope="user", user="UASK", source_ts="1700000003.000100")
    await Notes(db, redactor, embedder, clock=_soon_after_the_thread).save(
        mine, "done, cordoned my own test nodes", "note"
    )
    monkeypatch.setattr(note_store, "replies_to", await store_returning_personal_rows(db))
    items = await recall.relevant(ASKER, "which nodes did we cordon?")
    assert items and all(i.scope != "user" for i in items)
    assert not any(i.done_for for i in items)
