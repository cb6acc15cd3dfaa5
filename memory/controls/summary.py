"""What App Home shows about one person's memory without building their full export: counts per
kind and the latest few notes, each read bounded (the full export is `Controls.export`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.store import export as store

if TYPE_CHECKING:
    from memory.store.db import Database

LATEST_NOTES = 10


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
    rows = await store.summary_counts(db, subject_id)
    counts = {str(r["kind"]): int(r["n"]) for r in rows if r["n"]}
    notes = await store.latest_notes(db, subject_id, limit=latest)
    return MemorySummary(counts, [NoteLine(r["id"], r["kind"], r["text"]) for r in notes])
