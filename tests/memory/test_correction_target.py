"""A correction corrects one statement: the one it says most about among everything said
before it in its channel, not whichever shown statement shares a few of its words."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, store_returning_personal_rows

ASKER = Requester("T1/UASK", "T1", channel_id="C1")
THEORY = "theory: batch-etl opens a UDP socket per lookup and never closes it, filling conntrack"
CORDON = "cordon the 3 nodes and scale batch-etl to 0 until we know more"
FIX = (
    "scratch that theory, batch-etl uses TCP. it's the node-local-dns cache that crashed on"
    " those 3 nodes, so every pod there fell back to conntrack-heavy UDP to kube-dns"
)


async def _said(notes: Notes, *, theory_scope: str = "channel") -> None:
    await notes.save(ctx("C1"), "3 of 12 nodes have a full conntrack table, all run batch-etl")
    await notes.save(ctx("C1", scope=theory_scope), THEORY)  # type: ignore[arg-type]
    await notes.save(ctx("C1"), CORDON, "decision")
    await notes.save(ctx("C1"), "done, cordoned ip-10-2-3-4, ip-10-2-7-9, ip-10-2-8-1")
    await notes.save(ctx("C1"), FIX, "correction")


@pytest.fixture
async def recall(db, redactor, embedder) -> Recall:
    await _said(Notes(db, redactor, embedder))
    return Recall(db, embedder)


async def test_a_decision_sharing_the_corrections_words_is_not_marked_superseded(
    recall: Recall,
) -> None:
    items = await recall.relevant(ASKER, "which nodes did we cordon?")
    assert CORDON in [i.text for i in items]
    assert all(i.superseded_by is None for i in items)
    assert FIX not in [i.text for i in items]


async def test_the_statement_the_correction_names_is_shown_under_it_superseded(
    recall: Recall,
) -> None:
    items = await recall.relevant(ASKER, "what was the theory about batch-etl, was it right?")
    by_text = {i.text: i for i in items}
    assert FIX in by_text and THEORY in by_text
    assert by_text[THEORY].superseded_by == by_text[FIX].id
    assert CORDON not in by_text or by_text[CORDON].superseded_by is None


async def test_the_statements_before_a_correction_are_read_without_personal_ones(
    db, redactor, embedder
) -> None:
    """SQL layer: the query of what was said before a correction returns no personal note."""
    await _said(Notes(db, redactor, embedder), theory_scope="user")
    fix_id = await db.scalar("SELECT id FROM memory_notes WHERE kind = 'correction'")
    rows = await note_store.earlier_in_channel(
        db, ASKER, channel_id="C1", before_id=int(fix_id), limit=60
    )
    assert rows and all(r["scope"] != "user" for r in rows)
    assert THEORY not in [r["text"] for r in rows]


async def test_a_personal_note_the_store_returned_is_never_what_a_correction_brings(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were that query to return a personal note, the answer still shows none."""
    await _said(Notes(db, redactor, embedder), theory_scope="user")
    monkeypatch.setattr(note_store, "earlier_in_channel", await store_returning_personal_rows(db))
    items = await Recall(db, embedder).relevant(ASKER, "was the batch-etl theory right?")
    assert items and all(i.scope != "user" for i in items)
    assert THEORY not in [i.text for i in items]


async def test_a_reply_taking_the_work_on_hands_the_item_over(db, redactor, embedder) -> None:
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1"), "@kim write the postmortem by friday", "action")
    await notes.save(ctx("C1"), "@noa I can't do the postmortem this week, @dev can you take it?")
    await notes.save(ctx("C1"), "sure, I'll take the postmortem", "action")
    items = await Recall(db, embedder).relevant(ASKER, "who is writing the postmortem?")
    assert [i.text for i in items[:2]] == [
        "sure, I'll take the postmortem",
        "@kim write the postmortem by friday",
    ]
    assert items[1].superseded_by == items[0].id


async def test_taking_work_on_never_supersedes_a_decision(db, redactor, embedder) -> None:
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1"), "roll back checkout to v41", "decision")
    await notes.save(ctx("C1"), "ok, I'll take the checkout rollback", "action")
    items = await Recall(db, embedder).relevant(ASKER, "what did we decide about checkout?")
    assert "roll back checkout to v41" in [i.text for i in items]
    assert all(i.superseded_by is None for i in items)


def test_what_claims_work() -> None:
    from memory.episodes.statements import claims_work

    assert claims_work("sure, I'll take the postmortem")
    assert claims_work("ok ok I can own that")
    assert claims_work("*I will handle it*")
    assert not claims_work("I'll take a look at the postmortem")
    assert not claims_work("you take the postmortem")
    assert not claims_work("the postmortem: I'll write it later")
