"""bot_approvals: requests for production-changing actions and their one decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx


async def insert_approval(
    tx: Tx, *, team_id: str, channel_id: str, action: str, requested_by: str, at: str
) -> int:
    """A new pending request; returns its id."""
    return await tx.execute(
        """
        INSERT INTO bot_approvals (team_id, channel_id, action, requested_by, created_at)
        VALUES (:team, :channel, :action, :requested_by, :at)
        """,
        {
            "team": team_id,
            "channel": channel_id,
            "action": action,
            "requested_by": requested_by,
            "at": at,
        },
    )


async def decide_pending(
    tx: Tx, approval_id: int, *, status: str, decided_by: str, at: str
) -> bool:
    """Set the decision if the request is still pending; True when this call decided it."""
    changed = await tx.execute_rowcount(
        """
        UPDATE bot_approvals SET status = :status, decided_by = :decided_by, decided_at = :at
        WHERE id = :id AND status = 'pending'
        """,
        {"status": status, "decided_by": decided_by, "at": at, "id": approval_id},
    )
    return changed == 1


async def get_approval(db: Database, approval_id: int) -> Row | None:
    """(id, team_id, channel_id, action, requested_by, status, decided_by), or None."""
    return await db.fetchone(
        """
        SELECT id, team_id, channel_id, action, requested_by, status, decided_by
        FROM bot_approvals WHERE id = :id
        """,
        {"id": approval_id},
    )
