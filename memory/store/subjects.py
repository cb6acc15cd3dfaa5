"""SQL of `memory_subjects`: every subject that has written memory, with its last display name."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Tx

_UPSERT = """
INSERT INTO memory_subjects
    (subject_id, enterprise_id, team_id, user_id, display_name, first_seen, last_seen)
VALUES (:sid, :ent, :team, :user, :name, :now, :now)
ON CONFLICT (subject_id) DO UPDATE SET
    display_name = CASE WHEN excluded.display_name = '' THEN display_name
                        ELSE excluded.display_name END,
    last_seen = excluded.last_seen
"""


async def upsert(
    tx: Tx,
    *,
    subject_id: str,
    enterprise_id: str | None,
    team_id: str,
    user_id: str,
    display_name: str,
    now: str,
) -> None:
    """Insert the subject, or refresh last_seen (and the name, unless the new one is empty)."""
    await tx.execute(
        _UPSERT,
        {
            "sid": subject_id,
            "ent": enterprise_id,
            "team": team_id,
            "user": user_id,
            "name": display_name,
            "now": now,
        },
    )


async def display_name(reader: Database | Tx, subject_id: str) -> str | None:
    """The stored display name of a subject; None when the subject is unknown."""
    row = await reader.fetchone(
        "SELECT display_name FROM memory_subjects WHERE subject_id = :sid", {"sid": subject_id}
    )
    return None if row is None or row["display_name"] is None else str(row["display_name"])
