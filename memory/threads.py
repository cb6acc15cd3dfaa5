"""Captured thread messages: every human message in an incident channel, redacted as it arrives.

Stored once per (team, channel, ts), so a double delivery (app_mention + message, retries) is a
no-op; `message_changed` re-redacts and replaces, `message_deleted` removes the row, its keyword
index entry and any episode built from it. Summaries never need to read history back from Slack.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import Clock, iso, parse_iso, utc_now
from memory.errors import UnknownItem, ValidationError
from memory.redaction.redactor import Finding
from memory.scopes import Requester, visibility_sql
from memory.store import item_vectors as vectors
from memory.store.audit import findings_json, write_audit

if TYPE_CHECKING:
    from memory.redaction.redactor import Redactor
    from memory.scopes import WriteContext
    from memory.store.db import Database, Row, Tx

ID_PREFIX = "message:"
MAX_MESSAGE_CHARS = 40_000  # Slack's own limit on message text


class NotChannelMemory(ValidationError):
    def __init__(self) -> None:
        super().__init__("Thread messages are channel memory; capture them with scope channel.")


@dataclass(frozen=True)
class CapturedMessage:
    id: str
    team_id: str
    channel_id: str
    channel_is_private: bool
    author_subject_id: str
    ts: str
    thread_ts: str
    text: str
    findings: tuple[Finding, ...]
    permalink: str | None
    created_at: datetime
    edited_at: datetime | None


@dataclass(frozen=True)
class ThreadRef:
    """A thread the scheduler should roll up."""

    team_id: str
    channel_id: str
    thread_ts: str
    changed_at: datetime


def message_id(rowid: int) -> str:
    return f"{ID_PREFIX}{rowid}"


def parse_message_id(item_id: str) -> int:
    if not item_id.startswith(ID_PREFIX) or not item_id[len(ID_PREFIX) :].isdigit():
        raise UnknownItem(item_id[:40])
    return int(item_id[len(ID_PREFIX) :])


_COLUMNS = """m.id, m.team_id, m.channel_id, m.channel_is_private, m.owner_subject_id, m.ts,
    m.thread_ts, m.text, m.findings, m.permalink, m.created_at, m.edited_at"""


def _message(row: Row) -> CapturedMessage:
    return CapturedMessage(
        id=message_id(row["id"]),
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        channel_is_private=bool(row["channel_is_private"]),
        author_subject_id=row["owner_subject_id"],
        ts=row["ts"],
        thread_ts=row["thread_ts"],
        text=row["text"],
        findings=tuple(Finding(f["entity_type"], f["count"]) for f in json.loads(row["findings"])),
        permalink=row["permalink"],
        created_at=parse_iso(row["created_at"]),
        edited_at=None if row["edited_at"] is None else parse_iso(row["edited_at"]),
    )


def _findings(findings: tuple[Finding, ...]) -> str:
    return json.dumps([{"entity_type": f.entity_type, "count": f.count} for f in findings])


async def touch_thread(tx: Tx, team: str, channel: str, thread_ts: str, now: str) -> None:
    """Record that a thread changed, so its episode is rebuilt."""
    await tx.execute(
        "INSERT INTO memory_threads (team_id, channel_id, thread_ts, changed_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET changed_at = excluded.changed_at",
        (team, channel, thread_ts, now),
    )


class Threads:
    """Reads and writes `memory_thread_messages` (+ its FTS, via triggers)."""

    def __init__(self, db: Database, redactor: Redactor, clock: Clock = utc_now) -> None:
        self._db = db
        self._redactor = redactor
        self._clock = clock

    async def capture(
        self, ctx: WriteContext, *, ts: str, thread_ts: str | None, text: str
    ) -> CapturedMessage | None:
        """Store one message (redacted); None when it has no text. A repeat returns the first."""
        if ctx.scope != "channel" or ctx.channel_id is None:
            raise NotChannelMemory()
        if not text.strip():
            return None
        redacted = await self._redactor.redact(text[:MAX_MESSAGE_CHARS])  # fail closed
        now = iso(self._clock())
        root = thread_ts or ts
        async with self._db.transaction() as tx:
            row = await self._find(tx, ctx.team_id, ctx.channel_id, ts)
            if row is not None:  # a second delivery of the same message
                return _message(row)
            rowid = await tx.execute(
                """
                INSERT INTO memory_thread_messages
                    (team_id, channel_id, channel_is_private, owner_subject_id, ts, thread_ts,
                     text, findings, permalink, created_at)
                VALUES (:team, :channel, :private, :owner, :ts, :root, :text, :findings,
                        :permalink, :now)
                """,
                {
                    "team": ctx.team_id,
                    "channel": ctx.channel_id,
                    "private": int(ctx.channel_is_private),
                    "owner": ctx.author.subject_id,
                    "ts": ts,
                    "root": root,
                    "text": redacted.text,
                    "findings": _findings(redacted.findings),
                    "permalink": ctx.permalink,
                    "now": now,
                },
            )
            await touch_thread(tx, ctx.team_id, ctx.channel_id, root, now)
            if redacted.removed_any:  # audit what was removed from captured text (counts only)
                await write_audit(
                    tx,
                    at=now,
                    action="message.capture",
                    subject_id=ctx.author.subject_id,
                    team_id=ctx.team_id,
                    channel_id=ctx.channel_id,
                    scope="channel",
                    item_id=message_id(rowid),
                    counts=json.loads(findings_json(redacted.findings)),
                )
            row = await self._find(tx, ctx.team_id, ctx.channel_id, ts)
        if row is None:  # pragma: no cover - we just inserted it inside this transaction
            raise UnknownItem(ts)
        return _message(row)

    async def _find(self, tx: Tx, team_id: str, channel_id: str, ts: str) -> Row | None:
        return await tx.fetchone(
            f"SELECT {_COLUMNS} FROM memory_thread_messages AS m"
            " WHERE m.team_id = ? AND m.channel_id = ? AND m.ts = ?",
            (team_id, channel_id, ts),
        )

    async def edit(self, team_id: str, channel_id: str, ts: str, new_text: str) -> bool:
        """Apply `message_changed`: re-redact and replace; False when the message is unknown."""
        if not new_text.strip():
            return await self.delete(team_id, channel_id, ts)
        redacted = await self._redactor.redact(new_text[:MAX_MESSAGE_CHARS])
        now = iso(self._clock())
        async with self._db.transaction() as tx:
            row = await tx.fetchone(
                "SELECT thread_ts FROM memory_thread_messages"
                " WHERE team_id = ? AND channel_id = ? AND ts = ?",
                (team_id, channel_id, ts),
            )
            if row is None:
                return False
            await tx.execute(
                "UPDATE memory_thread_messages SET text = ?, findings = ?, edited_at = ?"
                " WHERE team_id = ? AND channel_id = ? AND ts = ?",
                (redacted.text, _findings(redacted.findings), now, team_id, channel_id, ts),
            )
            await touch_thread(tx, team_id, channel_id, row["thread_ts"], now)
        return True

    async def delete(self, team_id: str, channel_id: str, ts: str) -> bool:
        """Apply `message_deleted`: the row, its FTS entry and the thread's episode go at once."""
        now = iso(self._clock())
        async with self._db.transaction() as tx:
            row = await tx.fetchone(
                "SELECT id, thread_ts FROM memory_thread_messages"
                " WHERE team_id = ? AND channel_id = ? AND ts = ?",
                (team_id, channel_id, ts),
            )
            if row is None:
                return False
            await tx.execute("DELETE FROM memory_thread_messages WHERE id = ?", (row["id"],))
            await drop_episode(tx, team_id, channel_id, row["thread_ts"])
            await touch_thread(tx, team_id, channel_id, row["thread_ts"], now)
        return True

    async def messages(
        self, team_id: str, channel_id: str, thread_ts: str
    ) -> list[CapturedMessage]:
        """A thread's messages in order; for roll-ups run by the system, not for people."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM memory_thread_messages AS m"
            " WHERE m.team_id = ? AND m.channel_id = ? AND m.thread_ts = ? ORDER BY m.ts",
            (team_id, channel_id, thread_ts),
        )
        return [_message(r) for r in rows]

    async def visible_messages(
        self, requester: Requester, *, channel_id: str, thread_ts: str
    ) -> list[CapturedMessage]:
        """A thread's messages as the requester may see them (nothing from elsewhere's private)."""
        where, params = visibility_sql(requester, alias="m")
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM memory_thread_messages AS m WHERE {where}"
            " AND m.team_id = :team AND m.channel_id = :channel AND m.thread_ts = :thread"
            " ORDER BY m.ts",
            {**params, "team": requester.team_id, "channel": channel_id, "thread": thread_ts},
        )
        return [_message(r) for r in rows]

    async def pending_threads(self, since: datetime) -> list[ThreadRef]:
        """Threads changed after `since` whose episode is missing or older than the change."""
        return await pending_threads(self._db, since)


async def pending_threads(db: Database, since: datetime) -> list[ThreadRef]:
    """Threads changed after `since` whose episode is missing or older than the change."""
    rows = await db.fetchall(
        """
        SELECT t.team_id, t.channel_id, t.thread_ts, t.changed_at
        FROM memory_threads AS t
        LEFT JOIN memory_episodes AS e
          ON e.team_id = t.team_id AND e.channel_id = t.channel_id
         AND e.thread_ts = t.thread_ts
        WHERE t.changed_at > :since AND (e.id IS NULL OR e.updated_at < t.changed_at)
        ORDER BY t.changed_at
        """,
        {"since": iso(since)},
    )
    return [
        ThreadRef(r["team_id"], r["channel_id"], r["thread_ts"], parse_iso(r["changed_at"]))
        for r in rows
    ]


async def drop_episode(tx: Tx, team_id: str, channel_id: str, thread_ts: str) -> int:
    """Delete a thread's episode with its FTS row and vectors (it may quote deleted text)."""
    rows = await tx.fetchall(
        "SELECT id FROM memory_episodes WHERE team_id = ? AND channel_id = ? AND thread_ts = ?",
        (team_id, channel_id, thread_ts),
    )
    ids = [int(r["id"]) for r in rows]
    for episode_id in ids:
        await tx.execute("DELETE FROM memory_episodes WHERE id = ?", (episode_id,))
    await vectors.delete_items(tx, "episode", ids)
    return len(ids)
