"""Neighbour context joins notes of a conversation only (memory.notes.exchange, issue 4)."""

from __future__ import annotations

import random

from memory.notes.exchange import WINDOW, in_exchange
from memory.notes.notes import NoteDraft, Notes
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store.notes import exchange_sql
from tests.memory.contexts import ALICE, BOB, ctx


async def test_sql_and_python_agree_on_which_notes_are_in_an_exchange(db, redactor):
    """Search (SQL) and saving (Python) must draw the same line, or a back-filled vector would
    differ from the one saved online."""
    rng = random.Random(7)
    authors = [rng.choice((ALICE, BOB)) for _ in range(40)]
    await Notes(db, redactor, None).save_many(
        [NoteDraft(ctx("C1", author=a), f"step {i}") for i, a in enumerate(authors)]
    )
    sql = f"SELECT {exchange_sql('n', window=WINDOW)} FROM memory_notes n ORDER BY n.id"
    rows = await db.fetchall(sql)
    ids = [a.subject_id for a in authors]
    expected = [in_exchange(ids[i], ids[:i][::-1]) for i in range(len(ids))]
    assert [bool(r[0]) for r in rows] == expected
    assert True in expected and False in expected


async def test_a_two_part_answer_still_carries_the_question(db, redactor, embedder):
    """Bob asks, alice answers in two messages: the second one is still part of the exchange,
    so it is found through bob's words and keeps them as keyword context."""
    await Notes(db, redactor, embedder).save_many(
        [
            NoteDraft(ctx("C1", author=BOB), "which consumer group is lagging on orders?"),
            NoteDraft(ctx("C1", author=ALICE), "checking now"),
            NoteDraft(ctx("C1", author=ALICE), "the billing-sync one, partition 7"),
        ]
    )
    context = await db.scalar("SELECT context FROM memory_notes ORDER BY id DESC LIMIT 1")
    assert "which consumer group is lagging on orders?" in context
    asker = Requester("T1/U1", "T1", channel_id="C1")
    hits = await Recall(db, embedder).recall(asker, "lagging consumer group", mode="keyword")
    assert "the billing-sync one, partition 7" in [h.text for h in hits]
