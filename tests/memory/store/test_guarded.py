"""guarded_* SQL on its own: the database, not the code, makes a click open one request, an
approver decide once and a request execute once (compare-and-set on its state; issue 17)."""

from __future__ import annotations

import asyncio

from memory.store import guarded as store
from memory.store.db import Database

AT = "2026-12-01T12:00:00.000000Z"
LATER = "2026-12-01T12:30:00.000000Z"


def values(click: str = "trigger-1") -> dict[str, object]:
    return {
        "team_id": "T1", "channel_id": "C1", "thread_ts": None, "incident_id": "inc-1",
        "click_id": click, "action": "rollback", "params_json": '{"service": "checkout"}',
        "params_hash": "h", "requested_by": "T1/U1", "requester_user": "U1",
        "source": "/incident run", "risk": "medium", "approvals_needed": 1, "dry_run": 0,
        "created_at": AT, "expires_at": LATER,
    }  # fmt: skip


async def new_request(db: Database, click: str = "trigger-1") -> tuple[int, bool]:
    async with db.transaction() as tx:
        return await store.insert_request(tx, values(click))


async def test_one_click_id_opens_one_request(db: Database) -> None:
    first = await new_request(db)
    again = await new_request(db)
    other = await new_request(db, "trigger-2")
    assert first == (1, True) and again == (1, False) and other == (2, True)


async def test_an_approver_decides_once(db: Database) -> None:
    rid, _ = await new_request(db)
    async with db.transaction() as tx:
        kw = {"approver": "T1/U2", "approver_user": "U2", "at": AT}
        assert await store.add_decision(tx, rid, verdict="approve", **kw)
        assert not await store.add_decision(tx, rid, verdict="deny", **kw)
    assert [tuple(r) for r in await store.decisions(db, rid)] == [("T1/U2", "U2", "approve", AT)]


async def test_of_fifty_concurrent_moves_to_executing_exactly_one_wins(db: Database) -> None:
    rid, _ = await new_request(db)
    async with db.transaction() as tx:
        assert await store.move(tx, rid, from_state="requested", to_state="approved", at=AT)

    async def claim() -> bool:
        async with db.transaction() as tx:
            return await store.move(tx, rid, from_state="approved", to_state="executing", at=AT)

    wins = await asyncio.gather(*(claim() for _ in range(50)))
    assert wins.count(True) == 1
    row = await store.get_request(db, rid)
    assert row is not None and row["state"] == "executing" and row["started_at"] == AT


async def test_a_finished_request_cannot_be_moved_back(db: Database) -> None:
    rid, _ = await new_request(db)
    async with db.transaction() as tx:
        assert await store.move(tx, rid, from_state="requested", to_state="denied", at=AT)
        assert not await store.move(tx, rid, from_state="requested", to_state="approved", at=AT)
        assert not await store.move(tx, rid, from_state="approved", to_state="executing", at=AT)
    row = await store.get_request(db, rid)
    assert row is not None and row["state"] == "denied"


async def test_forgetting_a_subject_pseudonymises_them_and_keeps_the_facts(db: Database) -> None:
    rid, _ = await new_request(db)
    async with db.transaction() as tx:
        await store.add_decision(tx, rid, approver="T1/U2", approver_user="U2",
                                 verdict="approve", at=AT)  # fmt: skip
        for actor in ("T1/U1", "T1/U2"):
            await store.write_audit(tx, at=AT, team_id="T1", channel_id="C1",
                                    incident_id="inc-1", request_id=rid, action="rollback",
                                    event="approved", actor=actor)  # fmt: skip
        changed = await store.pseudonymise_subject(tx, "T1/U1", "forgotten:abc", at=AT)
    assert changed == 2  # one audit row, one request
    rows = await store.query_audit(db)
    assert [r["actor"] for r in rows] == ["forgotten:abc", "T1/U2", "opsmemory"]  # + its closing
    row = await store.get_request(db, rid)
    assert row is not None and (row["requested_by"], row["action"]) == ("forgotten:abc", "rollback")


async def _approved_by_u1(tx, request_id: int) -> None:  # type: ignore[no-untyped-def]
    """The request becomes T1/U9's, and T1/U1 approved it."""
    await tx.execute("UPDATE guarded_requests SET requested_by = 'T1/U9' WHERE id = :id",
                     {"id": request_id})  # fmt: skip
    await store.add_decision(tx, request_id, approver="T1/U1", approver_user="U1",
                             verdict="approve", at=AT)  # fmt: skip


async def test_forgetting_a_participant_closes_their_open_requests_first(db: Database) -> None:
    """Renamed, the requester could approve their own request (and an approver approve twice):
    every open request the person asked for or decided on is closed and audited instead."""
    asked, _ = await new_request(db, click="t-asked")
    decided, _ = await new_request(db, click="t-decided")
    async with db.transaction() as tx:
        await _approved_by_u1(tx, decided)  # someone else's, U1 decided on it
        other, _ = await store.insert_request(tx, {**values("t-other"), "requested_by": "T1/U9"})
        await store.pseudonymise_subject(tx, "T1/U1", "forgotten:abc", at=AT)
    for rid in (asked, decided):
        row = await store.get_request(db, rid)
        assert row is not None and row["state"] == "expired", rid
    untouched = await store.get_request(db, other)
    assert untouched is not None and untouched["state"] == "requested"
    events = [(r["request_id"], r["event"]) for r in await store.query_audit(db)]
    assert (asked, "expired") in events and (decided, "expired") in events


async def test_requests_in_a_state_are_listed_in_the_order_they_were_made(db: Database) -> None:
    """What recovery and the expiry job walk: every request in that state, oldest first."""
    first, _ = await new_request(db, click="t1")
    second, _ = await new_request(db, click="t2")
    third, _ = await new_request(db, click="t3")
    async with db.transaction() as tx:
        assert await store.move(tx, second, from_state="requested", to_state="approved", at=AT)
    assert await store.ids_in_state(db, "requested") == [first, third]
    assert await store.ids_in_state(db, "approved") == [second]
    assert await store.ids_in_state(db, "executing") == []


async def test_a_request_message_is_recorded_once(db: Database) -> None:
    """The first posted message is the request's; a replayed post never moves it."""
    rid, _ = await new_request(db)
    async with db.transaction() as tx:
        await store.set_message(tx, rid, "1700000000.000100")
        await store.set_message(tx, rid, "1700000000.000200")
    row = await store.get_request(db, rid)
    assert row is not None and row["message_ts"] == "1700000000.000100"


async def test_forgetting_counts_every_row_renamed_and_says_why_requests_closed(
    db: Database,
) -> None:
    """The count covers audit rows, decisions and requests; a request closed because its
    participant was forgotten says so in its outcome."""
    asked, _ = await new_request(db, click="t-asked")
    theirs, _ = await new_request(db, click="t-theirs")
    async with db.transaction() as tx:
        await _approved_by_u1(tx, theirs)  # someone else's, U1 decided on it
        await store.write_audit(tx, at=AT, team_id="T1", channel_id="C1", incident_id="inc-1",
                                request_id=asked, action="rollback", event="requested",
                                actor="T1/U1")  # fmt: skip
        changed = await store.pseudonymise_subject(tx, "T1/U1", "forgotten:abc", at=AT)
    assert changed == 3  # one audit row, one decision, one request
    for rid in (asked, theirs):
        row = await store.get_request(db, rid)
        assert row is not None
        assert row["outcome"] == "closed: someone it named asked opsmemory to forget them"
    decision = await db.fetchone(
        "SELECT approver, approver_user FROM guarded_decisions WHERE request_id = :id",
        {"id": theirs},
    )
    assert decision is not None and tuple(decision) == ("forgotten:abc", "forgotten:abc")


async def test_audit_detail_is_stored_as_stable_json(db: Database) -> None:
    """The same detail always reads the same in the audit trail (keys sorted), and a missing
    one is an empty object, never null."""
    rid, _ = await new_request(db)
    async with db.transaction() as tx:
        for detail in ({"reason": "x", "approvals": 2}, {"approvals": 2, "reason": "x"}, None):
            await store.write_audit(tx, at=AT, team_id="T1", channel_id="C1", incident_id="inc-1",
                                    request_id=rid, action="rollback", event="refused",
                                    actor="T1/U2", detail=detail)  # fmt: skip
    rows = await store.query_audit(db, actor="T1/U2")
    assert [r["detail_json"] for r in rows] == [
        '{"approvals": 2, "reason": "x"}',
        '{"approvals": 2, "reason": "x"}',
        "{}",
    ]
