"""bot_approvals SQL: one decision per request, made by compare-and-set (issue 18, item 6)."""

from __future__ import annotations

from memory.store import approvals as store
from memory.store.db import Database

AT = "2026-11-30T12:00:00+00:00"


async def pending(db: Database) -> int:
    async with db.transaction() as tx:
        return await store.insert_approval(
            tx, team_id="T1", channel_id="C1", action="rollback", requested_by="T1/U1", at=AT
        )


async def test_a_pending_request_is_decided_once_and_records_the_decider(db: Database) -> None:
    rid = await pending(db)
    async with db.transaction() as tx:
        assert await store.decide_pending(tx, rid, status="approved", decided_by="T1/U2", at=AT)
    row = await store.get_approval(db, rid)
    assert row is not None
    assert tuple(row) == (rid, "T1", "C1", "rollback", "T1/U1", "approved", "T1/U2")


async def test_a_decided_request_is_not_overwritten_by_a_second_decision(db: Database) -> None:
    """The SQL itself refuses a second decision: two clicks racing cannot both win."""
    rid = await pending(db)
    async with db.transaction() as tx:
        await store.decide_pending(tx, rid, status="approved", decided_by="T1/U2", at=AT)
    async with db.transaction() as tx:
        second = await store.decide_pending(tx, rid, status="rejected", decided_by="T1/U3", at=AT)
    assert second is False
    row = await store.get_approval(db, rid)
    assert row is not None and (row[5], row[6]) == ("approved", "T1/U2")


async def test_deciding_an_unknown_request_changes_nothing(db: Database) -> None:
    async with db.transaction() as tx:
        assert not await store.decide_pending(tx, 999, status="approved", decided_by="T1/U2", at=AT)
    assert await store.get_approval(db, 999) is None
