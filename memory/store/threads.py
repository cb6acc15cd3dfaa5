"""SQL of `memory_thread_messages` (+ its FTS, via triggers) and `memory_threads` (changed threads)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx

COLUMNS = """m.id, m.team_id, m.channel_id, m.channel_is_private, m.owner_subject_id, m.ts,
    m.thread_ts, m.text, m.findings, m.permalink, m.asks_bot, m.created_at, m.edited_at"""

_INSERT = """
INSERT INTO memory_thread_messages
    (team_id, channel_id, channel_is_private, owner_subject_id, ts, thread_ts,
     text, findings, permalink, asks_bot, created_at)
VALUES (:team, :channel, :private, :owner, :ts, :root, :text, :findings,
        :permalink, :asks_bot, :now)
"""

_TOUCH = """
INSERT INTO memory_threads (team_id, channel_id, thread_ts, changed_at)
VALUES (:team, :channel, :thread, :now)
ON CONFLICT DO UPDATE SET changed_at = excluded.changed_at
"""

_PENDING = """
SELECT t.team_id, t.channel_id, t.thread_ts, t.changed_at
FROM memory_threads AS t
LEFT JOIN memory_episodes AS e
  ON e.team_id = t.team_id AND e.channel_id = t.channel_id
 AND e.thread_ts = t.thread_ts
WHERE t.changed_at > :since AND (e.id IS NULL OR e.updated_at < t.changed_at)
ORDER BY t.changed_at
"""

_KEY = "team_id = :team AND channel_id = :channel AND ts = :ts"


async def touch_thread(tx: Tx, team: str, channel: str, thread_ts: str, now: str) -> None:
    """Record that a thread changed, so its episode is rebuilt."""
    await tx.execute(_TOUCH, {"team": team, "channel": channel, "thread": thread_ts, "now": now})


async def pending_threads(db: Database, since: str) -> list[Row]:
    """Threads changed after `since` whose episode is missing or older than the change."""
    return await db.fetchall(_PENDING, {"since": since})


async def find_message(tx: Tx, team_id: str, channel_id: str, ts: str) -> Row | None:
    """One captured message (all COLUMNS) by its Slack key."""
    return await tx.fetchone(
        f"SELECT {COLUMNS} FROM memory_thread_messages AS m"
        " WHERE m.team_id = :team AND m.channel_id = :channel AND m.ts = :ts",
        {"team": team_id, "channel": channel_id, "ts": ts},
    )


async def message_ref(tx: Tx, team_id: str, channel_id: str, ts: str) -> Row | None:
    """The row id and thread of a captured message (columns id, thread_ts)."""
    return await tx.fetchone(
        f"SELECT id, thread_ts FROM memory_thread_messages WHERE {_KEY}",
        {"team": team_id, "channel": channel_id, "ts": ts},
    )


async def insert_message(
    tx: Tx,
    *,
    team_id: str,
    channel_id: str,
    channel_is_private: bool,
    owner_subject_id: str,
    ts: str,
    thread_ts: str,
    text: str,
    findings: str,
    permalink: str | None,
    now: str,
    asks_bot: bool = False,
) -> int:
    """A new captured message; returns its row id. `asks_bot`: a question to the bot, kept
    in the thread but not part of what happened."""
    return await tx.execute(
        _INSERT,
        {
            "team": team_id,
            "channel": channel_id,
            "private": int(channel_is_private),
            "owner": owner_subject_id,
            "ts": ts,
            "root": thread_ts,
            "text": text,
            "findings": findings,
            "permalink": permalink,
            "asks_bot": int(asks_bot),
            "now": now,
        },
    )


async def update_message(
    tx: Tx,
    team_id: str,
    channel_id: str,
    ts: str,
    *,
    text: str,
    findings: str,
    edited_at: str,
    asks_bot: bool = False,
) -> None:
    """Replace a captured message's text and findings, and whether it now asks the bot."""
    await tx.execute(
        "UPDATE memory_thread_messages SET text = :text, findings = :findings,"
        f" asks_bot = :asks_bot, edited_at = :edited WHERE {_KEY}",
        {
            "text": text,
            "findings": findings,
            "asks_bot": int(asks_bot),
            "edited": edited_at,
            "team": team_id,
            "channel": channel_id,
            "ts": ts,
        },
    )


async def delete_message(tx: Tx, rowid: int) -> None:
    """Delete one captured message (its FTS row goes with it, by trigger)."""
    await tx.execute("DELETE FROM memory_thread_messages WHERE id = :id", {"id": rowid})


async def thread_messages(db: Database, team_id: str, channel_id: str, thread_ts: str) -> list[Row]:
    """A thread's messages (all COLUMNS), ordered by ts as text."""
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_thread_messages AS m"
        " WHERE m.team_id = :team AND m.channel_id = :channel AND m.thread_ts = :thread"
        " ORDER BY m.ts",
        {"team": team_id, "channel": channel_id, "thread": thread_ts},
    )


async def visible_thread_messages(
    db: Database, requester: Audience, *, channel_id: str, thread_ts: str
) -> list[Row]:
    """A thread of the requester's team (all COLUMNS), only the rows they may see."""
    vis, params = visibility_sql(requester, alias="m")
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_thread_messages AS m WHERE {vis}"
        " AND m.team_id = :team AND m.channel_id = :channel AND m.thread_ts = :thread"
        " ORDER BY m.ts",
        {**params, "team": requester.team_id, "channel": channel_id, "thread": thread_ts},
    )


async def thread_lines(db: Database, team_id: str, channel_id: str, thread_ts: str) -> list[Row]:
    """What a roll-up reads (ts, text, owner_subject_id, channel_is_private, display_name), in
    time order; display_name is the author's name as last seen ('' when unknown). Questions to
    the bot are left out: they are not part of what happened."""
    return await db.fetchall(
        "SELECT m.ts, m.text, m.owner_subject_id, m.channel_is_private,"
        " coalesce(s.display_name, '') AS display_name FROM memory_thread_messages AS m"
        " LEFT JOIN memory_subjects AS s ON s.subject_id = m.owner_subject_id"
        " WHERE m.team_id = :team AND m.channel_id = :channel AND m.thread_ts = :thread"
        " AND m.asks_bot = 0 ORDER BY CAST(m.ts AS REAL), m.ts",
        {"team": team_id, "channel": channel_id, "thread": thread_ts},
    )


async def channel_lines(db: Database, team_id: str, channel_id: str, *, limit: int) -> list[Row]:
    """What `thread_lines` reads, of a whole channel: its newest `limit` messages in every
    thread and at its top level, in time order (a team that talks without threads has one
    message per thread). Slack's ts is fixed width, so its text order is time order and the
    channel's ts index serves the read without a sort."""
    rows = await db.fetchall(
        "SELECT m.ts, m.text, m.owner_subject_id, m.channel_is_private,"
        " coalesce(s.display_name, '') AS display_name FROM memory_thread_messages AS m"
        " LEFT JOIN memory_subjects AS s ON s.subject_id = m.owner_subject_id"
        " WHERE m.team_id = :team AND m.channel_id = :channel AND m.asks_bot = 0"
        " ORDER BY m.ts DESC LIMIT :limit",
        {"team": team_id, "channel": channel_id, "limit": limit},
    )
    return rows[::-1]
