"""Episodes: one thread's captured messages rolled up into a searchable, scoped summary.

The summary is extractive and deterministic (`_episode_summary`); an LLM summary is optional and
stored beside it. Episodes are channel memory: every read goes through `scopes.visibility_sql`,
and vectors live in the thread channel's partition. The daily digest is in `_digest`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as SchemaError

from memory.clock import Clock, iso, parse_iso, utc_now
from memory.episodes.digest import Digest, build_digest
from memory.episodes.summary import summarise
from memory.errors import EmbeddingUnavailable, InvalidLimit, UnknownItem
from memory.profiles.extraction import Chat
from memory.recall.ranking import fts_match, query_terms, rrf
from memory.scopes import Requester, partition_key_for, visibility_sql, visible_partitions
from memory.store import item_vectors as vectors
from memory.threads import drop_episode

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database, Row

log = logging.getLogger(__name__)

ID_PREFIX = "episode:"
MAX_LIMIT = 100
# fusion.rrf scores 1 / (k + rank + 1); k = 59 keeps episodes' long-standing 1 / (60 + rank).
RRF_K = 59.0


@dataclass(frozen=True)
class Episode:
    id: str
    team_id: str
    channel_id: str
    channel_is_private: bool
    thread_ts: str
    incident_id: str | None
    owner_subject_id: str
    title: str
    summary: str
    llm_summary: str | None
    sections: dict[str, list[str]]
    participants: tuple[str, ...]
    message_count: int
    started_at: datetime
    ended_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class EpisodeHit:
    episode: Episode
    score: float


class _LlmSummary(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    summary: str = Field(min_length=1, max_length=1500)


def episode_id(rowid: int) -> str:
    return f"{ID_PREFIX}{rowid}"


def parse_episode_id(item_id: str) -> int:
    if not item_id.startswith(ID_PREFIX) or not item_id[len(ID_PREFIX) :].isdigit():
        raise UnknownItem(item_id[:40])
    return int(item_id[len(ID_PREFIX) :])


COLUMNS = """e.id, e.team_id, e.channel_id, e.channel_is_private, e.thread_ts, e.incident_id,
    e.owner_subject_id, e.title, e.summary, e.llm_summary, e.sections, e.participants,
    e.message_count, e.started_at, e.ended_at, e.updated_at"""


def row_to_episode(row: Row) -> Episode:
    return Episode(
        id=episode_id(row["id"]),
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        channel_is_private=bool(row["channel_is_private"]),
        thread_ts=row["thread_ts"],
        incident_id=row["incident_id"],
        owner_subject_id=row["owner_subject_id"],
        title=row["title"],
        summary=row["summary"],
        llm_summary=row["llm_summary"],
        sections=json.loads(row["sections"]),
        participants=tuple(json.loads(row["participants"])),
        message_count=int(row["message_count"]),
        started_at=parse_iso(row["started_at"]),
        ended_at=parse_iso(row["ended_at"]),
        updated_at=parse_iso(row["updated_at"]),
    )


class Episodes:
    """Rolls threads up into `memory_episodes` (+ FTS via triggers, + vectors when embedding)."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None = None,
        clock: Clock = utc_now,
        *,
        redactor: Redactor | None = None,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._clock = clock
        self._redactor = redactor  # needed only to store LLM summaries (re-redacted)

    async def roll_up(
        self, team_id: str, channel_id: str, thread_ts: str, *, chat: Chat | None = None
    ) -> Episode | None:
        """Build (or rebuild) a thread's episode; None, and any old episode removed, if empty."""
        messages = await _read_thread(self._db, team_id, channel_id, thread_ts)
        now = iso(self._clock())
        if not messages:
            async with self._db.transaction() as tx:
                await drop_episode(tx, team_id, channel_id, thread_ts)
            return None
        s = summarise(messages)
        root = messages[0]
        vector = await self._embed(f"{s.title}\n{s.text}")
        async with self._db.transaction() as tx:
            incident = await tx.fetchone(
                "SELECT id FROM memory_incidents WHERE team_id = ? AND channel_id = ?",
                (team_id, channel_id),
            )
            params = {
                "team": team_id,
                "channel": channel_id,
                "private": int(root.channel_is_private),
                "owner": root.author_subject_id,
                "thread": thread_ts,
                "incident": incident["id"] if incident else None,
                "title": s.title,
                "summary": s.text,
                "sections": json.dumps(s.sections),
                "participants": json.dumps(s.participants),
                "count": len(messages),
                "started": iso(s.started_at),
                "ended": iso(s.ended_at),
                "now": now,
            }
            await tx.execute(_UPSERT, params)
            row = await tx.fetchone(
                "SELECT id FROM memory_episodes WHERE team_id = ? AND channel_id = ?"
                " AND thread_ts = ?",
                (team_id, channel_id, thread_ts),
            )
            rowid = int(row["id"]) if row else 0
            await tx.execute(
                "DELETE FROM memory_episode_participants WHERE episode_id = ?", (rowid,)
            )
            await tx.executemany(
                "INSERT INTO memory_episode_participants (episode_id, subject_id) VALUES (?, ?)",
                [(rowid, p) for p in s.participants],
            )
            await vectors.delete_items(tx, "episode", [rowid])
            if vector is not None and self._embedder is not None:
                part = partition_key_for(
                    scope="channel",
                    team_id=team_id,
                    channel_id=channel_id,
                    channel_is_private=bool(root.channel_is_private),
                    owner_subject_id=root.author_subject_id,
                )
                await vectors.upsert(
                    tx, "episode", self._embedder, item_id=rowid, partition_key=part, vector=vector
                )
        if chat is not None and self._redactor is not None:
            await self._llm_summary(rowid, messages, chat)
        return await self._get(rowid)

    async def recent(self, requester: Requester, limit: int = 5) -> list[Episode]:
        """The newest episodes the requester may see."""
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidLimit(got=limit, cap=MAX_LIMIT)
        where, params = visibility_sql(requester, alias="e")
        rows = await self._db.fetchall(
            f"SELECT {COLUMNS} FROM memory_episodes AS e WHERE {where}"
            " ORDER BY e.ended_at DESC, e.id DESC LIMIT :limit",
            {**params, "limit": limit},
        )
        return [row_to_episode(r) for r in rows]

    async def search(self, requester: Requester, query: str, k: int = 5) -> list[EpisodeHit]:
        """Visible episodes matching `query`: keyword hits, then vector hits, best first."""
        if not 1 <= k <= MAX_LIMIT:
            raise InvalidLimit(got=k, cap=MAX_LIMIT)
        where, params = visibility_sql(requester, alias="e")
        keyword: list[int] = []
        match = fts_match(query_terms(query))
        if match:
            rows = await self._db.fetchall(
                "SELECT e.id FROM memory_episodes_fts f JOIN memory_episodes e ON e.id = f.rowid"
                f" WHERE memory_episodes_fts MATCH :match AND {where}"
                " ORDER BY bm25(memory_episodes_fts) LIMIT :k",
                {**params, "match": match, "k": k},
            )
            keyword = [int(r[0]) for r in rows]
        semantic: list[int] = []
        vector = await self._embed(query)
        if vector is not None and self._embedder is not None:
            near = await vectors.nearest(
                self._db,
                "episode",
                self._embedder,
                vector,
                partition_keys=visible_partitions(requester),
                k=k,
            )
            semantic = [rowid for rowid, _ in near]
        scores = rrf([(keyword, 1.0), (semantic, 1.0)], k=RRF_K)
        if not scores:
            return []
        rows = await self._db.fetchall(  # re-check visibility on the rows themselves
            f"SELECT {COLUMNS} FROM memory_episodes AS e"
            f" WHERE e.id IN (SELECT value FROM json_each(:ids)) AND {where}",
            {**params, "ids": json.dumps(sorted(scores))},
        )
        hits = [EpisodeHit(row_to_episode(r), scores[int(r["id"])]) for r in rows]
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:k]

    async def digest(
        self, team_id: str, since: datetime, *, until: datetime | None = None
    ) -> Digest:
        """Public incidents, episodes and decisions since `since`: data for the daily post."""
        return await build_digest(self._db, team_id, since=since, until=until or self._clock())

    async def _get(self, rowid: int) -> Episode | None:
        row = await self._db.fetchone(
            f"SELECT {COLUMNS} FROM memory_episodes AS e WHERE e.id = ?", (rowid,)
        )
        return None if row is None else row_to_episode(row)

    async def _embed(self, text: str):  # -> np.ndarray | None
        if self._embedder is None:
            return None
        try:
            return (await self._embedder.embed([text]))[0]
        except EmbeddingUnavailable:
            log.warning("episode_embedding_unavailable")
            return None

    async def _llm_summary(self, rowid: int, messages: list, chat: Chat) -> None:
        """Ask the model for a prose summary of already-redacted lines; invalid output is dropped."""
        lines = [{"ts": m.ts, "text": m.text} for m in messages[-200:]]
        prompt = [
            {"role": "system", "content": _LLM_PROMPT},
            {"role": "user", "content": json.dumps({"messages": lines}, ensure_ascii=False)},
        ]
        raw = await chat(prompt, format=_LlmSummary.model_json_schema())
        try:
            summary = _LlmSummary.model_validate_json(raw).summary
        except SchemaError:
            log.info("episode_llm_summary_invalid", extra={"episode": rowid})
            return
        assert self._redactor is not None  # checked by the caller
        clean = await self._redactor.redact(summary)
        async with self._db.transaction() as tx:
            await tx.execute(
                "UPDATE memory_episodes SET llm_summary = ? WHERE id = ?", (clean.text, rowid)
            )


async def _read_thread(db: Database, team_id: str, channel_id: str, thread_ts: str) -> list:
    """The thread's captured rows, ordered by ts (system read: roll-ups serve the channel)."""
    rows = await db.fetchall(
        "SELECT ts, text, owner_subject_id, channel_is_private FROM memory_thread_messages"
        " WHERE team_id = ? AND channel_id = ? AND thread_ts = ? ORDER BY CAST(ts AS REAL), ts",
        (team_id, channel_id, thread_ts),
    )
    return [
        _Msg(r["ts"], r["text"], r["owner_subject_id"], bool(r["channel_is_private"])) for r in rows
    ]


@dataclass(frozen=True)
class _Msg:
    ts: str
    text: str
    author_subject_id: str
    channel_is_private: bool


_LLM_PROMPT = (
    "Summarise this incident thread for an engineer who missed it: what was reported, what was "
    "found, what was decided and done, and what is still open. Use only the messages given. "
    'Answer with JSON only: {"summary": "..."} in at most 8 sentences.'
)

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
