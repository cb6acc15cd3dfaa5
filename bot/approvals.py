"""Approval requests for production-changing actions (rollback, scale out, restart).

A request is only ever created by a person clicking a proposal button, and only a subject whose
Slack user id is in OPSMEMORY_APPROVERS can approve it. Nothing here reads retrieved text, so a
runbook or note can never approve or run anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from bot.answer import messages
from memory.clock import Clock, iso, utc_now
from memory.errors import NotFound, PermissionDenied
from memory.store import approvals as store

if TYPE_CHECKING:
    from memory.store.db import Database

ACTIONS = ("rollback", "scale_out", "restart")
Status = Literal["pending", "approved", "rejected"]


class NotAnApprover(PermissionDenied):
    def __init__(self) -> None:
        super().__init__(messages.APPROVAL_REFUSED)


class OwnProposal(PermissionDenied):
    def __init__(self) -> None:
        super().__init__(
            "You proposed this change, so someone else on the approver list must approve it."
        )


class UnknownApproval(NotFound):
    def __init__(self) -> None:
        super().__init__("That approval request no longer exists; propose the action again.")


@dataclass(frozen=True)
class Approval:
    id: int
    team_id: str
    channel_id: str
    action: str
    requested_by: str
    status: Status
    decided_by: str | None


class Approvals:
    def __init__(self, db: Database, approver_ids: frozenset[str], clock: Clock = utc_now):
        self._db, self._approvers, self._clock = db, approver_ids, clock

    def may_approve(self, user_id: str) -> bool:
        return user_id in self._approvers

    async def request(
        self, *, team_id: str, channel_id: str, action: str, requested_by: str
    ) -> Approval:
        if action not in ACTIONS:
            raise UnknownApproval()
        async with self._db.transaction() as tx:
            rowid = await store.insert_approval(
                tx,
                team_id=team_id,
                channel_id=channel_id,
                action=action,
                requested_by=requested_by,
                at=iso(self._clock()),
            )
        return Approval(rowid, team_id, channel_id, action, requested_by, "pending", None)

    async def decide(
        self,
        approval_id: int,
        *,
        team_id: str,
        user_id: str,
        subject_id: str,
        approve: bool,
    ) -> tuple[Approval, bool]:
        """Approve or reject (True when this call decided it). Refuses non-approvers, a request
        from another workspace, and approving one's own proposal (two people for a change)."""
        if not self.may_approve(user_id):
            raise NotAnApprover()
        current = await self.get(approval_id)
        if current.team_id != team_id:
            raise UnknownApproval()
        if approve and current.requested_by == subject_id:
            raise OwnProposal()
        if current.status != "pending":
            return current, False  # decided already; the SQL compare-and-set guards the race
        status = "approved" if approve else "rejected"
        async with self._db.transaction() as tx:
            decided = await store.decide_pending(
                tx, approval_id, status=status, decided_by=subject_id, at=iso(self._clock())
            )
        return await self.get(approval_id), decided

    async def get(self, approval_id: int) -> Approval:
        row = await store.get_approval(self._db, approval_id)
        if row is None:
            raise UnknownApproval()
        return Approval(*row)
