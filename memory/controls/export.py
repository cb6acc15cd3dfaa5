"""Export everything stored about one subject as a JSON-ready dict (the "download my data" view).

Texts are as stored, i.e. already redacted. Episodes are included when the subject started the
thread or took part in it; audit rows are those naming the subject (counts, never content).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory.clock import iso

if TYPE_CHECKING:
    from memory.store.db import Database, Row

EXPORT_VERSION = 1

_QUERIES: dict[str, str] = {
    "notes": """
        SELECT 'note:' || id AS id, kind, text, scope, team_id, channel_id, incident_id,
               permalink, source_ts, created_at
        FROM memory_notes WHERE owner_subject_id = :s ORDER BY id""",
    "profile_facts": """
        SELECT 'profile:' || id AS id, kind, category, text, origin, source_channel_id,
               source_ts, permalink, created_at,
               CASE WHEN superseded_by IS NULL THEN NULL ELSE 'profile:' || superseded_by END
                   AS superseded_by,
               superseded_at, findings
        FROM memory_profile_facts WHERE owner_subject_id = :s ORDER BY id""",
    "thread_messages": """
        SELECT 'message:' || id AS id, team_id, channel_id, ts, thread_ts, text, permalink,
               created_at, edited_at, findings
        FROM memory_thread_messages WHERE owner_subject_id = :s ORDER BY id""",
    "episodes": """
        SELECT 'episode:' || e.id AS id, e.team_id, e.channel_id, e.thread_ts, e.incident_id,
               e.title, e.summary, e.llm_summary, e.sections, e.participants,
               e.started_at, e.ended_at, e.owner_subject_id = :s AS started_by_subject
        FROM memory_episodes e
        WHERE e.owner_subject_id = :s OR e.id IN
              (SELECT episode_id FROM memory_episode_participants WHERE subject_id = :s)
        ORDER BY e.id""",
    "incidents_opened": """
        SELECT id, team_id, channel_id, title, severity, status, opened_at, resolved_at
        FROM memory_incidents WHERE owner_subject_id = :s ORDER BY opened_at""",
    "audit": """
        SELECT at, action, team_id, channel_id, scope, item_id, findings AS counts
        FROM memory_audit WHERE subject_id = :s ORDER BY id""",
}
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
    subject = await db.fetchone(
        "SELECT subject_id, enterprise_id, team_id, user_id, display_name, first_seen, last_seen"
        " FROM memory_subjects WHERE subject_id = ?",
        (subject_id,),
    )
    export: dict[str, Any] = {
        "export_version": EXPORT_VERSION,
        "subject_id": subject_id,
        "exported_at": iso(now),
        "subject": _plain(subject) if subject else None,
    }
    for section, sql in _QUERIES.items():
        export[section] = [_plain(r) for r in await db.fetchall(sql, {"s": subject_id})]
    return export
