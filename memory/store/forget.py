"""Deletion SQL for user controls and retention: rows by id with their FTS entries, the lookups
that find what to delete, and the cleanup of references left in other rows.

FTS counts are measured (rows of each index's `_docsize` table before and after), not assumed
from the triggers. Vectors are deleted by the vector stores, not here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Row, Tx

NOTES = "memory_notes"
PROFILE_FACTS = "memory_profile_facts"
MESSAGES = "memory_thread_messages"
EPISODES = "memory_episodes"

#: Item kind ("note:12") -> its table.
TABLE_OF = {"note": NOTES, "profile": PROFILE_FACTS, "message": MESSAGES, "episode": EPISODES}
FTS_OF = {
    NOTES: "memory_notes_fts",
    PROFILE_FACTS: "memory_profile_facts_fts",
    MESSAGES: "memory_thread_messages_fts",
    EPISODES: "memory_episodes_fts",
}
#: The column a row's age is read from (retention).
_AGE_COLUMN = {NOTES: "created_at", PROFILE_FACTS: "created_at", MESSAGES: "created_at"}
_AGE_COLUMN[EPISODES] = "started_at"

_NOTE_ROWS = """
SELECT partition_key, channel_id, text FROM memory_notes
WHERE id IN (SELECT value FROM json_each(?))
"""

# The next `window` notes after each gone one, in its partition and channel.
_NOTE_FOLLOWERS = """
SELECT DISTINCT f.id FROM memory_notes n JOIN memory_notes f ON f.id IN
    (SELECT g.id FROM memory_notes g WHERE g.partition_key = n.partition_key
     AND g.channel_id IS n.channel_id AND g.id > n.id
     AND g.id NOT IN (SELECT value FROM json_each(:gone)) ORDER BY g.id LIMIT :window)
WHERE n.id IN (SELECT value FROM json_each(:gone))
"""

_NOTES_QUOTING = """
SELECT id, context FROM memory_notes WHERE partition_key = :part
AND channel_id IS :channel AND instr(context, :text) > 0
"""

_SET_CONTEXT = "UPDATE memory_notes SET context = ? WHERE id = ?"

_UNLINK_SUPERSEDED = """
UPDATE memory_profile_facts SET superseded_by = NULL
WHERE superseded_by IN (SELECT value FROM json_each(?))
"""

_EPISODE_THREADS = """
SELECT team_id, channel_id, thread_ts FROM memory_episodes
WHERE id IN (SELECT value FROM json_each(?))
"""

_EPISODES_OF_MESSAGES = """
SELECT DISTINCT e.id FROM memory_episodes e JOIN memory_thread_messages m
ON m.team_id = e.team_id AND m.channel_id = e.channel_id AND m.thread_ts = e.thread_ts
WHERE m.id IN (SELECT value FROM json_each(?))
"""

_SUBJECT_TEAM = "SELECT team_id FROM memory_subjects WHERE subject_id = ?"
_PARTICIPATED = "SELECT episode_id FROM memory_episode_participants WHERE subject_id = ?"
_DELETE_SUBJECT = "DELETE FROM memory_subjects WHERE subject_id = ?"


async def delete_rows(tx: Tx, table: str, ids: Sequence[int]) -> dict[str, int]:
    """Delete rows of `table` by id: {table: rows removed, its FTS table: entries removed}."""
    before = await _fts_docs(tx, table)
    removed = await tx.execute_rowcount(
        f"DELETE FROM {_checked(table)} WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    )
    return {table: removed, FTS_OF[table]: before - await _fts_docs(tx, table)}


async def note_rows(tx: Tx, ids: Sequence[int]) -> list[Row]:
    """(partition_key, channel_id, text) of these notes."""
    return await tx.fetchall(_NOTE_ROWS, (json.dumps(list(ids)),))


async def note_followers(tx: Tx, ids: Sequence[int], *, window: int) -> list[int]:
    """Ids of the `window` notes after each of these in its partition and channel (not these)."""
    rows = await tx.fetchall(_NOTE_FOLLOWERS, {"gone": json.dumps(list(ids)), "window": window})
    return [int(r["id"]) for r in rows if r["id"] is not None]


async def notes_quoting(
    tx: Tx, *, partition_key: str, channel_id: str | None, text: str
) -> list[Row]:
    """(id, context) of the notes in one partition and channel whose context contains `text`."""
    return await tx.fetchall(
        _NOTES_QUOTING, {"part": partition_key, "channel": channel_id, "text": text}
    )


async def set_note_context(tx: Tx, note_id: int, context: str) -> None:
    await tx.execute(_SET_CONTEXT, (context, note_id))


async def unlink_superseded(tx: Tx, ids: Sequence[int]) -> None:
    """Facts superseded by one of these facts no longer point at it."""
    await tx.execute(_UNLINK_SUPERSEDED, (json.dumps(list(ids)),))


async def episode_threads(tx: Tx, ids: Sequence[int]) -> list[Row]:
    """(team_id, channel_id, thread_ts) of these episodes."""
    return await tx.fetchall(_EPISODE_THREADS, (json.dumps(list(ids)),))


_NOTES_OF_MESSAGES = """
SELECT n.id FROM memory_thread_messages m
JOIN memory_notes n ON n.team_id = m.team_id AND n.channel_id = m.channel_id
    AND n.source_ts = m.ts AND n.owner_subject_id = m.owner_subject_id AND n.scope = 'channel'
WHERE m.id IN (SELECT value FROM json_each(?))
"""


async def notes_of_messages(tx: Tx, message_ids: Sequence[int]) -> list[int]:
    """Ids of the notes these captured messages became (same place, ts and author)."""
    rows = await tx.fetchall(_NOTES_OF_MESSAGES, (json.dumps(list(message_ids)),))
    return [int(r[0]) for r in rows]


async def episodes_of_messages(tx: Tx, message_ids: Sequence[int]) -> list[int]:
    """Ids of every episode built from the threads of these captured messages."""
    rows = await tx.fetchall(_EPISODES_OF_MESSAGES, (json.dumps(list(message_ids)),))
    return [int(r[0]) for r in rows]


async def owned_ids(tx: Tx, table: str, subject_id: str) -> list[int]:
    """Ids of the rows of `table` the subject owns."""
    rows = await tx.fetchall(
        f"SELECT id FROM {_checked(table)} WHERE owner_subject_id = :s", {"s": subject_id}
    )
    return [int(r[0]) for r in rows]


async def ids_older_than(tx: Tx, table: str, *, scope: str, cutoff: str) -> list[int]:
    """Ids of the rows of `table` in `scope` created (episodes: started) before `cutoff`."""
    rows = await tx.fetchall(
        f"SELECT id FROM {_checked(table)} WHERE scope = :scope AND {_AGE_COLUMN[table]} < :cutoff",
        {"scope": scope, "cutoff": cutoff},
    )
    return [int(r[0]) for r in rows]


async def owner_team(tx: Tx, table: str, item_id: int, subject_id: str) -> str | None:
    """The team of one row of `table` if the subject owns it; None otherwise."""
    row = await tx.fetchone(
        f"SELECT team_id FROM {_checked(table)} WHERE id = ? AND owner_subject_id = ?",
        (item_id, subject_id),
    )
    return None if row is None else str(row["team_id"])


async def subject_team(tx: Tx, subject_id: str) -> str | None:
    row = await tx.fetchone(_SUBJECT_TEAM, (subject_id,))
    return None if row is None else str(row["team_id"])


async def participated_episodes(tx: Tx, subject_id: str) -> list[int]:
    """Ids of the episodes the subject took part in (started or not)."""
    return [int(r[0]) for r in await tx.fetchall(_PARTICIPATED, (subject_id,))]


async def delete_subject(tx: Tx, subject_id: str) -> int:
    """The subject's own row; returns rows removed."""
    return await tx.execute_rowcount(_DELETE_SUBJECT, (subject_id,))


async def _fts_docs(tx: Tx, table: str) -> int:
    row = await tx.fetchone(f"SELECT count(*) FROM {FTS_OF[table]}_docsize")
    return int(row[0]) if row is not None else 0


def _checked(table: str) -> str:
    """`table` if it is one of the constants above (identifiers never come from callers' text)."""
    if table not in FTS_OF:
        raise ValueError("not a memory table with items")
    return table
