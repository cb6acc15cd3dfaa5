"""Exactly-once: each layer alone refuses a repeat, and a restart in between changes nothing
(issue 18, item 6). Layers: the event_id (in memory, then persisted) and the asking message's
(team, channel, ts) answer claim."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from pathlib import Path

import pytest

from bot.state import dedupe as dedupe_module
from bot.state.dedupe import Dedupe
from memory.store.db import Database


async def test_a_retry_is_refused_while_its_first_claim_is_not_yet_persisted(db: Database) -> None:
    """The in-memory layer alone: a held write lock keeps the first claim from persisting, and
    the claim never waits for that lock (it runs before Slack gets its ack)."""
    dedupe = Dedupe(db)
    async with db.transaction():
        assert await dedupe.claim_event("Ev1") is True
        assert await dedupe.claim_event("Ev1") is False
        assert await dedupe.claim_event("Ev2") is True
    await dedupe.drain()


async def test_a_retry_after_a_restart_is_refused(tmp_path: Path) -> None:
    """The persisted layer alone: a new process (new Dedupe, database closed and reopened)."""
    path = tmp_path / "opsmemory.db"
    db = await Database.open(path)
    first = Dedupe(db)
    assert await first.claim_event("Ev1") is True
    await first.drain()
    await db.close()
    db = await Database.open(path)
    try:
        assert await Dedupe(db).claim_event("Ev1") is False
        assert await Dedupe(db).claim_event("Ev2") is True
    finally:
        await db.close()


async def test_one_asking_message_is_answered_by_one_delivery(db: Database) -> None:
    """app_mention and message (or a retry under a new event id) deliver one message twice."""
    dedupe = Dedupe(db)
    assert await dedupe.claim_answer("T1", "C1", "1.0") is True
    assert await dedupe.claim_answer("T1", "C1", "1.0") is False
    assert await dedupe.claim_answer("T2", "C1", "1.0") is True  # another team's message
    assert await dedupe.claim_answer("T1", "C1", "2.0") is True


async def test_an_answered_message_stays_answered_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "opsmemory.db"
    db = await Database.open(path)
    first = Dedupe(db)
    assert await first.claim_answer("T1", "C1", "1.0")
    await first.record_answer("T1", "C1", "1.0", "1.5")
    await db.close()
    db = await Database.open(path)
    try:
        assert await Dedupe(db).claim_answer("T1", "C1", "1.0") is False
    finally:
        await db.close()


async def test_pruning_forgets_old_event_ids_only(db: Database, clock) -> None:  # type: ignore[no-untyped-def]
    old = Dedupe(db, clock)
    assert await old.claim_event("EvOld")
    await old.drain()
    clock.advance(days=3)
    assert await old.claim_event("EvNew")
    await old.drain()
    assert await old.prune(keep=timedelta(days=2)) == 1
    restarted = Dedupe(db, clock)  # no in-memory ids: only what is persisted counts
    assert await restarted.claim_event("EvOld") is True
    assert await restarted.claim_event("EvNew") is False
    await restarted.drain()


async def test_memory_of_recent_ids_is_bounded_and_forgets_the_oldest_first(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the bound at 2 (50,000 in production): the newest ids stay refused in memory."""
    monkeypatch.setattr(dedupe_module, "RECENT_EVENT_IDS", 2)
    dedupe = Dedupe(db)
    async with db.transaction():  # nothing persists: only memory answers
        assert await dedupe.claim_event("Ev1") and await dedupe.claim_event("Ev2")
        assert not await dedupe.claim_event("Ev1") and not await dedupe.claim_event("Ev2")
        assert await dedupe.claim_event("Ev3")  # Ev1, the oldest, leaves memory
        assert not await dedupe.claim_event("Ev3") and not await dedupe.claim_event("Ev2")
    await dedupe.drain()


async def test_an_id_that_cannot_be_persisted_is_still_refused_and_logged(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """A failed background write (disk full, say) keeps the in-memory claim; drain stays quiet."""
    await db.execute(
        "CREATE TRIGGER refuse_events BEFORE INSERT ON bot_events"
        " BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    dedupe = Dedupe(db)
    with caplog.at_level(logging.WARNING, logger="bot.state.dedupe"):
        assert await dedupe.claim_event("Ev1") is True
        await dedupe.drain()
    assert await dedupe.claim_event("Ev1") is False
    [record] = [r for r in caplog.records if r.name == "bot.state.dedupe"]
    assert record.getMessage() == "event_id_not_persisted"
    assert record.error_type == "IntegrityError"  # type: ignore[attr-defined]


async def test_recording_an_answer_links_only_that_asking_message(db: Database) -> None:
    dedupe = Dedupe(db)
    for team, channel, ts in [("T1", "C1", "1.0"), ("T2", "C1", "1.0"), ("T1", "C2", "1.0")]:
        assert await dedupe.claim_answer(team, channel, ts)
    assert await dedupe.claim_answer("T1", "C1", "2.0")
    await dedupe.record_answer("T1", "C1", "1.0", "1.5")
    rows = await db.fetchall(
        "SELECT team_id, channel_id, message_ts, answer_ts FROM bot_answers"
        " ORDER BY team_id, channel_id, message_ts"
    )
    assert [tuple(r) for r in rows] == [
        ("T1", "C1", "1.0", "1.5"),
        ("T1", "C1", "2.0", None),
        ("T1", "C2", "1.0", None),
        ("T2", "C1", "1.0", None),
    ]


async def test_finished_persists_leave_no_error_and_nothing_behind(db: Database) -> None:
    """Each background persist cleans up after itself: no error reaches the event loop's
    handler, and a later drain has nothing left to wait for."""
    loop_errors: list[dict[str, object]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, ctx: loop_errors.append(ctx))
    try:
        dedupe = Dedupe(db)
        for i in range(5):
            assert await dedupe.claim_event(f"Ev{i}") is True
        await dedupe.drain()  # a task's own done callbacks ran before drain's gather woke
    finally:
        loop.set_exception_handler(None)
    assert loop_errors == []
    assert await db.scalar("SELECT count(*) FROM bot_events") == 5


async def test_drain_returns_even_when_a_persist_was_cancelled(db: Database) -> None:
    """A stopping process may cancel background work; draining must still return (the claim
    stays in memory) instead of raising into the shutdown."""
    dedupe = Dedupe(db)
    before = asyncio.all_tasks()
    async with db.transaction():  # the persist waits on the write lock; cancelled, drained
        assert await dedupe.claim_event("Ev1") is True
        persists = asyncio.all_tasks() - before
        assert persists
        for task in persists:
            task.cancel()
        await dedupe.drain()
    assert await dedupe.claim_event("Ev1") is False
