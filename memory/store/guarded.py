"""guarded_requests, guarded_decisions, guarded_audit: guarded actions' state machine rows, the
approvers' decisions and the audit log. Every state change is a compare-and-set on `state`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx

_REQUEST_COLUMNS = (
    "id, team_id, channel_id, thread_ts, message_ts, incident_id, click_id, action, params_json, "
    "params_hash, requested_by, requester_user, source, risk, approvals_needed, dry_run, state, "
    "created_at, expires_at, decided_at, started_at, finished_at, outcome"
)
# Which timestamp column a move into each state sets.
_STAMP = {
    "approved": "decided_at",
    "denied": "decided_at",
    "expired": "decided_at",
    "executing": "started_at",
    "succeeded": "finished_at",
    "failed": "finished_at",
    "unknown": "finished_at",
}


async def insert_request(tx: Tx, values: Mapping[str, Any]) -> tuple[int, bool]:
    """A new 'requested' row, or the existing one for the same click: (id, created)."""
    changed = await tx.execute_rowcount(
        """
        INSERT INTO guarded_requests (team_id, channel_id, thread_ts, incident_id, click_id,
            action, params_json, params_hash, requested_by, requester_user, source, risk,
            approvals_needed, dry_run, created_at, expires_at)
        VALUES (:team_id, :channel_id, :thread_ts, :incident_id, :click_id, :action,
            :params_json, :params_hash, :requested_by, :requester_user, :source, :risk,
            :approvals_needed, :dry_run, :created_at, :expires_at)
        ON CONFLICT (team_id, click_id) DO NOTHING
        """,
        dict(values),
    )
    row = await tx.fetchone(
        "SELECT id FROM guarded_requests WHERE team_id = :team_id AND click_id = :click_id",
        {"team_id": values["team_id"], "click_id": values["click_id"]},
    )
    assert row is not None
    return int(row[0]), changed == 1


async def set_message(tx: Tx, request_id: int, message_ts: str) -> None:
    await tx.execute(
        "UPDATE guarded_requests SET message_ts = :ts WHERE id = :id AND message_ts IS NULL",
        {"ts": message_ts, "id": request_id},
    )


async def get_request(db: Database | Tx, request_id: int) -> Row | None:
    return await db.fetchone(
        f"SELECT {_REQUEST_COLUMNS} FROM guarded_requests WHERE id = :id", {"id": request_id}
    )


async def move(
    tx: Tx, request_id: int, *, from_state: str, to_state: str, at: str, outcome: str | None = None
) -> bool:
    """Compare-and-set: `from_state` → `to_state`; True only for the one call that moved it."""
    column = _STAMP[to_state]
    changed = await tx.execute_rowcount(
        f"""
        UPDATE guarded_requests
        SET state = :to_state, {column} = :at, outcome = coalesce(:outcome, outcome)
        WHERE id = :id AND state = :from_state
        """,
        {"to_state": to_state, "at": at, "outcome": outcome, "id": request_id,
         "from_state": from_state},
    )  # fmt: skip
    return changed == 1


async def add_decision(
    tx: Tx, request_id: int, *, approver: str, approver_user: str, verdict: str, at: str
) -> bool:
    """Record one approver's decision; False when this approver already decided it."""
    changed = await tx.execute_rowcount(
        """
        INSERT INTO guarded_decisions (request_id, approver, approver_user, verdict, decided_at)
        VALUES (:id, :approver, :user, :verdict, :at)
        ON CONFLICT (request_id, approver) DO NOTHING
        """,
        {"id": request_id, "approver": approver, "user": approver_user, "verdict": verdict,
         "at": at},
    )  # fmt: skip
    return changed == 1


async def decisions(db: Database | Tx, request_id: int) -> list[Row]:
    """(approver, approver_user, verdict, decided_at) in the order they were made."""
    return await db.fetchall(
        """
        SELECT approver, approver_user, verdict, decided_at FROM guarded_decisions
        WHERE request_id = :id ORDER BY id
        """,
        {"id": request_id},
    )


async def ids_in_state(db: Database, state: str) -> list[int]:
    rows = await db.fetchall(
        "SELECT id FROM guarded_requests WHERE state = :state ORDER BY id", {"state": state}
    )
    return [int(r[0]) for r in rows]


async def ids_unposted(db: Database) -> list[int]:
    """Open requests whose message (with Approve and Deny) was never posted."""
    rows = await db.fetchall(
        "SELECT id FROM guarded_requests WHERE state = 'requested' AND message_ts IS NULL "
        "ORDER BY id"
    )
    return [int(r[0]) for r in rows]


async def write_audit(
    tx: Tx,
    *,
    at: str,
    team_id: str,
    channel_id: str | None,
    incident_id: str | None,
    request_id: int | None,
    action: str,
    event: str,
    actor: str,
    detail: Mapping[str, Any] | None = None,
) -> None:
    await tx.execute(
        """
        INSERT INTO guarded_audit (at, team_id, channel_id, incident_id, request_id, action,
            event, actor, detail_json)
        VALUES (:at, :team, :channel, :incident, :request, :action, :event, :actor, :detail)
        """,
        {"at": at, "team": team_id, "channel": channel_id, "incident": incident_id,
         "request": request_id, "action": action, "event": event, "actor": actor,
         "detail": json.dumps(dict(detail or {}), sort_keys=True)},
    )  # fmt: skip


async def query_audit(
    db: Database,
    *,
    incident: str | None = None,
    action: str | None = None,
    actor: str | None = None,
    since: str | None = None,
    limit: int = 10_000,  # pragma: no mutate  (a cap on one listing: any large number)
) -> list[Row]:
    """Audit rows, oldest first, filtered by whichever of the arguments are given (`actor`: a
    subject id, or a bare Slack user id matching it in any team)."""
    return await db.fetchall(
        """
        SELECT at, team_id, channel_id, incident_id, request_id, action, event, actor,
               detail_json
        FROM guarded_audit
        WHERE (:incident IS NULL OR incident_id = :incident)
          AND (:action IS NULL OR action = :action)
          AND (:actor IS NULL OR actor = :actor OR actor LIKE '%/' || :actor)
          AND (:since IS NULL OR at >= :since)
        ORDER BY at, id LIMIT :limit
        """,
        {"incident": incident, "action": action, "actor": actor, "since": since,
         "limit": limit},
    )  # fmt: skip


_OPEN_OF_SUBJECT = """
SELECT id FROM guarded_requests
WHERE state IN ('requested', 'approved')
  AND (requested_by = :subject
       OR id IN (SELECT request_id FROM guarded_decisions WHERE approver = :subject))
"""


async def pseudonymise_subject(tx: Tx, subject_id: str, pseudonym: str, *, at: str) -> int:
    """Replace `subject_id` by `pseudonym` wherever guarded actions name it; rows changed.

    First, every request still open that this person asked for or decided on is closed
    (expired, audited): renamed, their own request would no longer be theirs, and their
    approval would no longer stop them approving again, so either could run on one person."""
    params = {"subject": subject_id, "pseudonym": pseudonym}
    rows = await tx.fetchall(_OPEN_OF_SUBJECT, params)
    open_ids = [int(r["id"]) for r in rows]  # pragma: no mutate  (row keys ignore case)
    for request_id in open_ids:
        await tx.execute(
            "UPDATE guarded_requests SET state = 'expired', finished_at = :at, "
            "outcome = 'closed: someone it named asked opsmemory to forget them' "
            "WHERE id = :id AND state IN ('requested', 'approved')",
            {"id": request_id, "at": at},
        )
        await tx.execute(
            "INSERT INTO guarded_audit (at, team_id, channel_id, incident_id, request_id, action,"
            " event, actor, detail_json) SELECT :at, team_id, channel_id, incident_id, id,"
            " action, 'expired', 'opsmemory', '{\"reason\": \"participant forgotten\"}'"
            " FROM guarded_requests WHERE id = :id",
            {"id": request_id, "at": at},
        )
    n = await tx.execute_rowcount(
        "UPDATE guarded_audit SET actor = :pseudonym WHERE actor = :subject", params
    )
    n += await tx.execute_rowcount(
        "UPDATE guarded_decisions SET approver = :pseudonym, approver_user = :pseudonym "
        "WHERE approver = :subject",
        params,
    )
    n += await tx.execute_rowcount(
        "UPDATE guarded_requests SET requested_by = :pseudonym, requester_user = :pseudonym "
        "WHERE requested_by = :subject",
        params,
    )
    return n
