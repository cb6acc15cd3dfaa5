"""What App Home shows about one person's memory without building their full export: counts per
kind and the latest few notes, each read bounded (the full export is `Controls.export`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database

LATEST_NOTES = 10

_COUNTS = """
SELECT 'notes (' || kind || ')' AS kind, count(*) AS n FROM memory_notes
WHERE owner_subject_id = :s GROUP BY kind
UNION ALL
SELECT 'profile fact', count(*) FROM memory_profile_facts
WHERE owner_subject_id = :s AND superseded_by IS NULL
UNION ALL
SELECT 'captured message', count(*) FROM memory_thread_messages WHERE owner_subject_id = :s
UNION ALL
SELECT 'episode', count(*) FROM memory_episodes WHERE owner_subject_id = :s
"""

_LATEST = """
SELECT 'note:' || id AS id, kind, text FROM memory_notes
WHERE owner_subject_id = :s ORDER BY id DESC LIMIT :limit
"""


@dataclass(frozen=True)
class NoteLine:
    id: str
    kind: str
    text: str


@dataclass(frozen=True)
class MemorySummary:
    counts: dict[str, int]  # "notes (fact)" -> 3, "profile fact" -> 2; zero counts left out
    latest_notes: list[NoteLine]


async def summarise_subject(
    db: Database, subject_id: str, *, latest: int = LATEST_NOTES
) -> MemorySummary:
    """Counts per kind and the `latest` newest notes the subject owns."""
    rows = await db.fetchall(_COUNTS, {"s": subject_id})
    counts = {str(r["kind"]): int(r["n"]) for r in rows if r["n"]}
    notes = await db.fetchall(_LATEST, {"s": subject_id, "limit": latest})
    return MemorySummary(counts, [NoteLine(r["id"], r["kind"], r["text"]) for r in notes])
