"""Episodes: one thread's captured messages rolled up into a searchable, scoped summary.

The summary is extractive and deterministic (`summary`); an LLM summary is optional and stored
beside it. Episodes are channel memory: every read applies the visibility filter in SQL, and
vectors live in the thread channel's partition. The daily digest is in `digest`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as SchemaError

from memory.clock import Clock, iso, utc_now
from memory.episodes.digest import Digest, build_digest
from memory.episodes.model import Episode, row_to_episode
from memory.episodes.summary import Summary, summarise
from memory.errors import EmbeddingUnavailable, InvalidLimit
from memory.profiles.extraction import Chat
from memory.recall.floor import FLOORS, Features, FloorConfig, coverage
from memory.scopes import Requester, partition_key_for, visible_partitions
from memory.store import episodes as store
from memory.store import incidents as incident_store
from memory.store import threads as thread_store
from memory.store import vectors
from memory.store.visibility import public_channels
from memory.text import fts_match, rrf, topic_terms

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database, Row

log = logging.getLogger(__name__)

MAX_LIMIT = 100
#: How many of a channel's newest messages "what happened?" asked at its top level reads.
CHANNEL_LINES = 400
# text.rrf scores 1 / (k + rank + 1); k = 59 keeps episodes' long-standing 1 / (60 + rank).
RRF_K = 59.0
# Cosine similarity a vector-only match needs (a keyword match needs none). Measured with the
# bundled MiniLM on roll-ups of DB-pool incidents: questions about them scored 0.26-0.54,
# unrelated questions (CPU throttling, leaked build logs, fraud, owners) 0.02-0.22.
MIN_SIMILARITY = 0.25
CANDIDATES = 5  # search hits the relevance floor looks at


@dataclass(frozen=True)
class EpisodeHit:
    episode: Episode
    score: float
    similarity: float = 0.0  # cosine of question and roll-up; 0 when only keywords matched


class _LlmSummary(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    summary: str = Field(min_length=1, max_length=1500)


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
                await store.delete_thread_episode(tx, team_id, channel_id, thread_ts)
            return None
        s = summarise(messages, {m.author_subject_id: m.name for m in messages if m.name})
        root = messages[0]
        vector = await self._embed(f"{s.title}\n{s.text}")
        async with self._db.transaction() as tx:
            await store.upsert(
                tx,
                team_id=team_id,
                channel_id=channel_id,
                channel_is_private=bool(root.channel_is_private),
                owner_subject_id=root.author_subject_id,
                thread_ts=thread_ts,
                incident_id=await incident_store.id_for_channel(tx, team_id, channel_id),
                title=s.title,
                summary=s.text,
                sections=json.dumps(s.sections),
                participants=json.dumps(s.participants),
                message_count=len(messages),
                started_at=iso(s.started_at),
                ended_at=iso(s.ended_at),
                now=now,
            )
            found = await store.id_for_thread(tx, team_id, channel_id, thread_ts)
            rowid = found if found is not None else 0
            await store.replace_participants(tx, rowid, s.participants)
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

    async def so_far(
        self, requester: Requester, team_id: str, channel_id: str, thread_ts: str
    ) -> Summary | None:
        """Where a thread stands now, summarised as its roll-up will be ("catch me up", asked
        in it): only for someone asking in that thread's channel, who reads it there anyway;
        None for anyone else, or an empty thread."""
        if requester.team_id != team_id or requester.channel_id != channel_id:
            return None
        messages = await _read_thread(self._db, team_id, channel_id, thread_ts)
        if not messages:
            return None
        return summarise(messages, {m.author_subject_id: m.name for m in messages if m.name})

    async def channel_so_far(
        self, requester: Requester, team_id: str, channel_id: str
    ) -> Summary | None:
        """Where a whole incident channel stands ("what happened?" asked at its top level):
        its newest messages in every thread and outside them, summarised as a roll-up is; only
        for someone asking in that channel. None for anyone else, or a channel with nothing
        said."""
        if requester.team_id != team_id or requester.channel_id != channel_id:
            return None
        rows = await thread_store.channel_lines(self._db, team_id, channel_id, limit=CHANNEL_LINES)
        messages = [_as_msg(r) for r in rows]
        if not messages:
            return None
        return summarise(messages, {m.author_subject_id: m.name for m in messages if m.name})

    async def recent(self, requester: Requester, limit: int = 5) -> list[Episode]:
        """The newest episodes the requester may see."""
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidLimit(got=limit, cap=MAX_LIMIT)
        rows = await store.recent_visible(self._db, requester, limit=limit)
        return [row_to_episode(r) for r in rows]

    async def shown(self, requester: Requester, rowids: Sequence[int]) -> list[Episode]:
        """These episodes, those the requester may see, in the order asked for."""
        rows = await store.visible_by_ids(self._db, requester, list(rowids))
        by_id = {int(r["id"]): row_to_episode(r) for r in rows}
        return [by_id[i] for i in rowids if i in by_id]

    async def search(self, requester: Requester, query: str, k: int = 5) -> list[EpisodeHit]:
        """Visible episodes matching `query`: keyword hits, then vector hits, best first."""
        if not 1 <= k <= MAX_LIMIT:
            raise InvalidLimit(got=k, cap=MAX_LIMIT)
        keyword: list[int] = []
        match = fts_match(topic_terms(query))
        if match:
            keyword = await store.keyword_ids(self._db, requester, match, k=k)
        semantic: list[int] = []
        cosines: dict[int, float] = {}
        vector = await self._embed(query)
        if vector is not None and self._embedder is not None:
            near = await vectors.nearest(
                self._db,
                "episode",
                self._embedder,
                vector,
                partition_keys=visible_partitions(
                    requester, public_channel_ids=await public_channels(self._db, requester)
                ),
                k=k,
            )
            # Every question has a nearest episode; only one that is near in meaning counts.
            semantic = [rowid for rowid, similarity in near if similarity >= MIN_SIMILARITY]
            cosines = dict(near)
        scores = rrf([(keyword, 1.0), (semantic, 1.0)], k=RRF_K)
        if not scores:
            return []
        # Vector partitions are coarser than the filter: re-check visibility on the rows.
        rows = await store.visible_by_ids(self._db, requester, scores)
        hits = [
            EpisodeHit(row_to_episode(r), scores[int(r["id"])], cosines.get(int(r["id"]), 0.0))
            for r in rows
        ]
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:k]

    async def relevant(
        self,
        requester: Requester,
        query: str,
        k: int = 2,
        *,
        floors: Mapping[str, FloorConfig] = FLOORS,
    ) -> list[EpisodeHit]:
        """Roll-ups that answer the question, best first: `search` hits that pass the relevance
        floor fitted for notes (closeness in meaning, share of the question's words, rank), so a
        roll-up that merely shares one word with the question ("logs") is not shown."""
        hits = await self.search(requester, query, k=max(k, CANDIDATES))
        kept = []
        for rank, hit in enumerate(hits):
            floor = floors["hybrid" if hit.similarity > 0 else "keyword"]
            text = f"{hit.episode.title}\n{hit.episode.summary}"
            seen = Features(hit.similarity, coverage(query, text), 1.0 / (rank + 1))
            if floor.probability(seen) >= floor.floor:
                kept.append(hit)
        return kept[:k]

    async def digest(
        self, team_id: str, since: datetime, *, until: datetime | None = None
    ) -> Digest:
        """Public incidents, episodes and decisions since `since`: data for the daily post."""
        return await build_digest(self._db, team_id, since=since, until=until or self._clock())

    async def _get(self, rowid: int) -> Episode | None:
        row = await store.get(self._db, rowid)
        return None if row is None else row_to_episode(row)

    async def _embed(self, text: str):  # -> np.ndarray | None
        if self._embedder is None:
            return None
        try:
            return (await self._embedder.embed([text]))[0]
        except EmbeddingUnavailable:
            log.warning("episode_embedding_unavailable")
            return None

    async def _llm_summary(self, rowid: int, messages: Sequence[_Msg], chat: Chat) -> None:
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
            await store.set_llm_summary(tx, rowid, clean.text)


async def _read_thread(db: Database, team_id: str, channel_id: str, thread_ts: str) -> list[_Msg]:
    """The thread's captured rows, ordered by ts (system read: roll-ups serve the channel)."""
    rows = await thread_store.thread_lines(db, team_id, channel_id, thread_ts)
    return [_as_msg(r) for r in rows]


def _as_msg(row: Row) -> _Msg:
    return _Msg(
        row["ts"],
        row["text"],
        row["owner_subject_id"],
        bool(row["channel_is_private"]),
        row["display_name"],
    )


@dataclass(frozen=True)
class _Msg:
    ts: str
    text: str
    author_subject_id: str
    channel_is_private: bool
    name: str = ""


_LLM_PROMPT = (
    "Summarise this incident thread for an engineer who missed it: what was reported, what was "
    "found, what was decided and done, and what is still open. Use only the messages given. "
    'Answer with JSON only: {"summary": "..."} in at most 8 sentences.'
)
