"""Approvals: only a listed approver of the request's own team decides it, once (issue 18, item 6)."""

from __future__ import annotations

import asyncio

import pytest

from bot.answer import messages
from bot.approvals import Approval, Approvals, NotAnApprover, OwnProposal, UnknownApproval
from memory.store.db import Database

BOSS, OTHER_BOSS = "U0BOSS", "U0BOSS2"


@pytest.fixture
def approvals(db: Database, clock) -> Approvals:  # type: ignore[no-untyped-def]
    return Approvals(db, frozenset({BOSS, OTHER_BOSS}), clock)


async def rollback_in_t1(approvals: Approvals) -> Approval:
    return await approvals.request(
        team_id="T1", channel_id="C1", action="rollback", requested_by="T1/U0ALICE"
    )


async def test_a_request_starts_pending_as_stored(approvals: Approvals) -> None:
    req = await rollback_in_t1(approvals)
    assert req == Approval(req.id, "T1", "C1", "rollback", "T1/U0ALICE", "pending", None)
    assert await approvals.get(req.id) == req


async def test_an_approver_of_the_same_team_approves_and_is_recorded(approvals: Approvals) -> None:
    req = await rollback_in_t1(approvals)
    decided, first = await approvals.decide(
        req.id, team_id="T1", user_id=BOSS, subject_id=f"T1/{BOSS}", approve=True
    )
    assert first is True
    assert (decided.status, decided.decided_by) == ("approved", f"T1/{BOSS}")


async def test_a_request_from_one_team_cannot_be_decided_from_another(
    approvals: Approvals,
) -> None:
    """Same approver user id in another workspace (Slack Connect, colliding ids): refused."""
    req = await rollback_in_t1(approvals)
    with pytest.raises(UnknownApproval) as refused:
        await approvals.decide(
            req.id, team_id="T2", user_id=BOSS, subject_id=f"T2/{BOSS}", approve=True
        )
    assert str(refused.value) == "That approval request no longer exists; propose the action again."
    assert (await approvals.get(req.id)).status == "pending"


async def test_a_decided_request_is_not_decided_again(approvals: Approvals) -> None:
    """The second approver is told it was already decided; the first decision stands."""
    req = await rollback_in_t1(approvals)
    await approvals.decide(
        req.id, team_id="T1", user_id=BOSS, subject_id=f"T1/{BOSS}", approve=False
    )
    again, decided = await approvals.decide(
        req.id, team_id="T1", user_id=OTHER_BOSS, subject_id=f"T1/{OTHER_BOSS}", approve=True
    )
    assert decided is False
    assert (again.status, again.decided_by) == ("rejected", f"T1/{BOSS}")


async def test_a_decided_request_is_answered_without_reaching_the_writer(
    approvals: Approvals, db: Database
) -> None:
    """The code layer alone (the SQL compare-and-set has its own test in tests/memory/store):
    a decided request is refused before any write, so it answers even while the one writer is
    held by someone else."""
    req = await rollback_in_t1(approvals)
    await approvals.decide(
        req.id, team_id="T1", user_id=BOSS, subject_id=f"T1/{BOSS}", approve=False
    )
    held, release = asyncio.Event(), asyncio.Event()

    async def hold_the_writer() -> None:
        async with db.transaction():
            held.set()
            await release.wait()

    holder = asyncio.create_task(hold_the_writer())
    await held.wait()
    try:
        again, decided = await asyncio.wait_for(
            approvals.decide(
                req.id,
                team_id="T1",
                user_id=OTHER_BOSS,
                subject_id=f"T1/{OTHER_BOSS}",
                approve=True,
            ),
            timeout=5,
        )
    finally:
        release.set()
        await holder
    assert decided is False and again.status == "rejected"


async def test_someone_not_on_the_approver_list_cannot_decide(approvals: Approvals) -> None:
    req = await rollback_in_t1(approvals)
    with pytest.raises(NotAnApprover) as refused:
        await approvals.decide(
            req.id, team_id="T1", user_id="U0BOB", subject_id="T1/U0BOB", approve=False
        )
    assert str(refused.value) == messages.APPROVAL_REFUSED
    assert (await approvals.get(req.id)).status == "pending"


async def test_an_approver_cannot_approve_their_own_proposal_but_may_reject_it(
    approvals: Approvals,
) -> None:
    req = await approvals.request(
        team_id="T1", channel_id="C1", action="restart", requested_by=f"T1/{BOSS}"
    )
    with pytest.raises(OwnProposal) as refused:
        await approvals.decide(
            req.id, team_id="T1", user_id=BOSS, subject_id=f"T1/{BOSS}", approve=True
        )
    assert str(refused.value) == (
        "You proposed this change, so someone else on the approver list must approve it."
    )
    _, decided = await approvals.decide(
        req.id, team_id="T1", user_id=BOSS, subject_id=f"T1/{BOSS}", approve=False
    )
    assert decided is True


async def test_an_unknown_action_or_request_is_refused(approvals: Approvals) -> None:
    with pytest.raises(UnknownApproval):
        await approvals.request(
            team_id="T1", channel_id="C1", action="drop_database", requested_by="T1/U0ALICE"
        )
    with pytest.raises(UnknownApproval):
        await approvals.decide(
            404, team_id="T1", user_id=BOSS, subject_id=f"T1/{BOSS}", approve=True
        )
