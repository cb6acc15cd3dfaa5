"""Export everything stored about one subject as a JSON-ready dict (the "download my data" view).

Texts are as stored, i.e. already redacted. Episodes are included when the subject started the
thread or took part in it; audit rows are those naming the subject (counts, never content).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory.clock import iso
from memory.store import export as store

if TYPE_CHECKING:
    from memory.store.db import Database, Row

EXPORT_VERSION = 1

_JSON_COLUMNS = frozenset({"findings", "sections", "participants", "counts"})


def _plain(row: Row) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in row.keys():  # noqa: SIM118 -- sqlite Row is not a mapping; keys() is its API
        value = row[key]
        if key in _JSON_COLUMNS and isinstance(value, str):
            value = json.loads(value)
        elif key == "started_by_subject":
            value = bool(value)
        out[key] = value
    return out


async def export_subject(db: Database, subject_id: str, now: datetime) -> dict[str, Any]:
    """One dict with every section; empty lists when there is nothing."""
    subject = await store.subject_row(db, subject_id)
    export: dict[str, Any] = {
        "export_version": EXPORT_VERSION,
        "subject_id": subject_id,
        "exported_at": iso(now),
        "subject": _plain(subject) if subject else None,
    }
    for section, rows in (await store.export_sections(db, subject_id)).items():
        export[section] = [_plain(r) for r in rows]
    return export
