"""SQL of `memory_episodes` (+ its FTS, via triggers), its participants and its vectors' cleanup."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from memory.store import vectors
from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx

COLUMNS = """e.id, e.team_id, e.channel_id, e.channel_is_private, e.thread_ts, e.incident_id,
    e.owner_subject_id, e.title, e.summary, e.llm_summary, e.sections, e.participants,
    e.message_count, e.started_at, e.ended_at, e.updated_at"""

_UPSERT = """
INSERT INTO memory_episodes
    (team_id, channel_id, channel_is_private, owner_subject_id, thread_ts, incident_id, title,
     summary, sections, participants, message_count, started_at, ended_at, created_at, updated_at)
VALUES (:team, :channel, :private, :owner, :thread, :incident, :title, :summary, :sections,
        :participants, :count, :started, :ended, :now, :now)
ON CONFLICT (team_id, channel_id, thread_ts) DO UPDATE SET
    channel_is_private = excluded.channel_is_private, owner_subject_id = excluded.owner_subject_id,
    incident_id = excluded.incident_id, title = excluded.title, summary = excluded.summary,
    llm_summary = NULL, sections = excluded.sections, participants = excluded.participants,
    message_count = excluded.message_count, started_at = excluded.started_at,
    ended_at = excluded.ended_at, updated_at = excluded.updated_at
"""

_KEYWORD = """
SELECT e.id FROM memory_episodes_fts f JOIN memory_episodes e ON e.id = f.rowid
WHERE memory_episodes_fts MATCH :match AND {vis}
ORDER BY bm25(memory_episodes_fts) LIMIT :k
"""

_THREAD = "team_id = :team AND channel_id = :channel AND thread_ts = :thread"


async def upsert(
    tx: Tx,
    *,
    team_id: str,
    channel_id: str,
    channel_is_private: bool,
    owner_subject_id: str,
    thread_ts: str,
    incident_id: str | None,
    title: str,
    summary: str,
    sections: str,
    participants: str,
    message_count: int,
    started_at: str,
    ended_at: str,
    now: str,
) -> None:
    """Insert or rebuild the thread's episode (a rebuild clears its LLM summary)."""
    await tx.execute(
        _UPSERT,
        {
            "team": team_id,
            "channel": channel_id,
            "private": int(channel_is_private),
            "owner": owner_subject_id,
            "thread": thread_ts,
            "incident": incident_id,
            "title": title,
            "summary": summary,
            "sections": sections,
            "participants": participants,
            "count": message_count,
            "started": started_at,
            "ended": ended_at,
            "now": now,
        },
    )


async def id_for_thread(tx: Tx, team_id: str, channel_id: str, thread_ts: str) -> int | None:
    """The row id of the thread's episode, or None."""
    row = await tx.fetchone(
        f"SELECT id FROM memory_episodes WHERE {_THREAD}",
        {"team": team_id, "channel": channel_id, "thread": thread_ts},
    )
    return None if row is None else int(row["id"])


async def replace_participants(tx: Tx, episode_id: int, subject_ids: Iterable[str]) -> None:
    """Set the episode's participant rows to exactly `subject_ids`."""
    await tx.execute(
        "DELETE FROM memory_episode_participants WHERE episode_id = :id", {"id": episode_id}
    )
    await tx.executemany(
        "INSERT INTO memory_episode_participants (episode_id, subject_id) VALUES (:id, :subject)",
        [{"id": episode_id, "subject": s} for s in subject_ids],
    )


async def set_llm_summary(tx: Tx, episode_id: int, text: str) -> None:
    await tx.execute(
        "UPDATE memory_episodes SET llm_summary = :text WHERE id = :id",
        {"text": text, "id": episode_id},
    )


async def delete_thread_episode(tx: Tx, team_id: str, channel_id: str, thread_ts: str) -> int:
    """Delete a thread's episode with its FTS row and vectors; returns how many went."""
    rows = await tx.fetchall(
        f"SELECT id FROM memory_episodes WHERE {_THREAD}",
        {"team": team_id, "channel": channel_id, "thread": thread_ts},
    )
    ids = [int(r["id"]) for r in rows]
    for episode_id in ids:
        await tx.execute("DELETE FROM memory_episodes WHERE id = :id", {"id": episode_id})
    await vectors.delete_items(tx, "episode", ids)
    return len(ids)


async def get(db: Database, episode_id: int) -> Row | None:
    """One episode (all COLUMNS) by row id; a system read, no visibility."""
    return await db.fetchone(
        f"SELECT {COLUMNS} FROM memory_episodes AS e WHERE e.id = :id", {"id": episode_id}
    )


async def recent_visible(db: Database, requester: Audience, *, limit: int) -> list[Row]:
    """The newest episodes the requester may see (all COLUMNS)."""
    vis, params = visibility_sql(requester, alias="e")
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_episodes AS e WHERE {vis}"
        " ORDER BY e.ended_at DESC, e.id DESC LIMIT :limit",
        {**params, "limit": limit},
    )


async def keyword_ids(db: Database, requester: Audience, match: str, *, k: int) -> list[int]:
    """Row ids of visible episodes matching the FTS5 expression `match`, best BM25 first."""
    vis, params = visibility_sql(requester, alias="e")
    rows = await db.fetchall(_KEYWORD.format(vis=vis), {**params, "match": match, "k": k})
    return [int(r[0]) for r in rows]


async def visible_by_ids(db: Database, requester: Audience, ids: Iterable[int]) -> list[Row]:
    """Those of `ids` the requester may see (all COLUMNS), in no particular order."""
    vis, params = visibility_sql(requester, alias="e")
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_episodes AS e"
        f" WHERE e.id IN (SELECT value FROM json_each(:ids)) AND {vis}",
        {**params, "ids": json.dumps(sorted(ids))},
    )
