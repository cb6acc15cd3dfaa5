"""Reads of everything stored about one subject: the full export and App Home's bounded summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Row

_SUBJECT = """
SELECT subject_id, enterprise_id, team_id, user_id, display_name, first_seen, last_seen
FROM memory_subjects
WHERE subject_id = :s
"""

#: One query per export section, in the order the export lists them.
_SECTIONS: dict[str, str] = {
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

_SUMMARY_COUNTS = """
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

_LATEST_NOTES = """
SELECT 'note:' || id AS id, kind, text FROM memory_notes
WHERE owner_subject_id = :s ORDER BY id DESC LIMIT :limit
"""


async def subject_row(db: Database, subject_id: str) -> Row | None:
    """The subject's own row (ids, display name, first and last seen), if it has one."""
    return await db.fetchone(_SUBJECT, {"s": subject_id})


async def export_sections(db: Database, subject_id: str) -> dict[str, list[Row]]:
    """{section name: rows} for every export section, in order; JSON columns still as text."""
    return {name: await db.fetchall(sql, {"s": subject_id}) for name, sql in _SECTIONS.items()}


async def summary_counts(db: Database, subject_id: str) -> list[Row]:
    """(kind, n) rows: notes per kind, live profile facts, captured messages, episodes started."""
    return await db.fetchall(_SUMMARY_COUNTS, {"s": subject_id})


async def latest_notes(db: Database, subject_id: str, *, limit: int) -> list[Row]:
    """(id as "note:<n>", kind, text) of the subject's `limit` newest notes."""
    return await db.fetchall(_LATEST_NOTES, {"s": subject_id, "limit": limit})
