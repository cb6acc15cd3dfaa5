"""SQL of `memory_incidents` (one row per incident, bound to one channel) and of the per-team
number sequence `memory_incident_sequence` that channel names cannot move."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx

COLUMNS = """id, team_id, channel_id, channel_is_private, title, severity, status, opened_at,
    resolved_at"""

_ADOPT = f"""
UPDATE memory_incidents SET title = :title, severity = :severity, owner_subject_id = :owner
WHERE team_id = :team AND channel_id = :channel AND owner_subject_id = :from_owner
RETURNING {COLUMNS}
"""

_INSERT = """
INSERT INTO memory_incidents
    (team_id, id, number, channel_id, channel_is_private, owner_subject_id, title, severity,
     status, opened_at)
VALUES (:team, :id, :number, :channel, :private, :owner, :title, :severity, 'open', :now)
"""

# The first gap after the sequence's last number: either last + 1 or just past a taken number.
_NEXT_FREE = """
WITH seq AS (
    SELECT coalesce(
        (SELECT last_number FROM memory_incident_sequence WHERE team_id = :team), 0) AS last
)
SELECT min(candidate) AS n FROM (
    SELECT last + 1 AS candidate FROM seq
    UNION ALL
    SELECT i.number + 1 FROM memory_incidents AS i, seq
    WHERE i.team_id = :team AND i.number > seq.last
)
WHERE candidate NOT IN (SELECT number FROM memory_incidents WHERE team_id = :team)
"""

_ADVANCE = """
INSERT INTO memory_incident_sequence (team_id, last_number) VALUES (:team, :number)
ON CONFLICT (team_id) DO UPDATE SET last_number = excluded.last_number
"""

_SET_STATUS = """
UPDATE memory_incidents SET status = :status,
    resolved_at = CASE WHEN :status = 'resolved' THEN :now ELSE NULL END
WHERE team_id = :team AND id = :id
"""


async def adopt(
    tx: Tx,
    *,
    team_id: str,
    channel_id: str,
    from_owner: str,
    owner: str,
    title: str,
    severity: str,
) -> Row | None:
    """Rename and re-own the channel's incident if `from_owner` owns it; the updated row."""
    return await tx.fetchone(
        _ADOPT,
        {
            "title": title,
            "severity": severity,
            "owner": owner,
            "team": team_id,
            "channel": channel_id,
            "from_owner": from_owner,
        },
    )


async def get(reader: Database | Tx, team_id: str, incident_id: str) -> Row | None:
    """The incident with this canonical id in the team."""
    return await reader.fetchone(
        f"SELECT {COLUMNS} FROM memory_incidents WHERE team_id = :team AND id = :id",
        {"team": team_id, "id": incident_id},
    )


async def get_visible(db: Database, requester: Audience, incident_id: str) -> Row | None:
    """The incident with this canonical id in the requester's team, if they may see it."""
    vis, params = visibility_sql(requester, alias="i")
    return await db.fetchone(
        f"SELECT {COLUMNS} FROM memory_incidents i"
        f" WHERE i.team_id = :team AND i.id = :id AND {vis}",
        {**params, "team": requester.team_id, "id": incident_id},
    )


async def for_channel(reader: Database | Tx, team_id: str, channel_id: str) -> Row | None:
    """The incident bound to this channel."""
    return await reader.fetchone(
        f"SELECT {COLUMNS} FROM memory_incidents WHERE team_id = :team AND channel_id = :channel",
        {"team": team_id, "channel": channel_id},
    )


async def id_for_channel(tx: Tx, team_id: str, channel_id: str) -> str | None:
    """The id of the incident bound to this channel, or None."""
    row = await tx.fetchone(
        "SELECT id FROM memory_incidents WHERE team_id = :team AND channel_id = :channel",
        {"team": team_id, "channel": channel_id},
    )
    return None if row is None else str(row["id"])


async def number_taken(tx: Tx, team_id: str, number: int) -> bool:
    """Whether the team already has an incident with this number."""
    row = await tx.fetchone(
        "SELECT 1 FROM memory_incidents WHERE team_id = :team AND number = :number",
        {"team": team_id, "number": number},
    )
    return row is not None


async def take_next_number(tx: Tx, team_id: str) -> int:
    """The team's next sequence number: the smallest free number after the last one handed out,
    which then becomes the last. Numbers claimed by channel names are skipped, never followed."""
    row = await tx.fetchone(_NEXT_FREE, {"team": team_id})
    number = int(row["n"]) if row else 1
    await tx.execute(_ADVANCE, {"team": team_id, "number": number})
    return number


async def insert(
    tx: Tx,
    *,
    team_id: str,
    incident_id: str,
    number: int,
    channel_id: str,
    is_private: bool,
    owner: str,
    title: str,
    severity: str,
    opened_at: str,
) -> None:
    """A new open incident."""
    await tx.execute(
        _INSERT,
        {
            "team": team_id,
            "id": incident_id,
            "number": number,
            "channel": channel_id,
            "private": int(is_private),
            "owner": owner,
            "title": title,
            "severity": severity,
            "now": opened_at,
        },
    )


async def set_status(tx: Tx, *, team_id: str, incident_id: str, status: str, now: str) -> bool:
    """Set the status (resolved stamps resolved_at, any other clears it); False if unknown."""
    changed = await tx.execute_rowcount(
        _SET_STATUS, {"status": status, "now": now, "team": team_id, "id": incident_id}
    )
    return bool(changed)


async def recent_visible(db: Database, requester: Audience, *, limit: int) -> list[Row]:
    """The newest incidents the requester may see."""
    vis, params = visibility_sql(requester, alias="i")
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_incidents i WHERE {vis}"
        " ORDER BY opened_at DESC LIMIT :limit",
        {**params, "limit": limit},
    )
