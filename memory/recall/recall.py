"""Recall: the notes a requester may see that best answer a question, each with its source.

Keyword (FTS5 BM25 over text, author and neighbour context) and vector candidates are
over-fetched and fused by weighted reciprocal rank; each hit lends a share of its score to the
notes just before and after it (an answer sits next to its question); then scores are reranked
by recency (half-life, default 48 h, with a floor so old root causes still surface), note kind,
and a boost for notes written in a period the question names ("on April 10", "yesterday";
memory/time_hints.py). On LoCoMo the neighbour share, date boost and rrf k=5 moved hybrid
recall@5/@10 from 0.679/0.771 to 0.702/0.790; chosen on all ten conversations, they gain on
each half alone (+0.030/+0.010 on 0-4, +0.021/+0.024 on 5-9). Visibility is part of the
SQL of every read (`scopes.visibility_sql`), and vector search reads only visible partitions.

Keyword and vector candidates are gathered concurrently (two reader connections). Keyword
work is bounded by pruning very common terms (memory/_notes_fts.py); the vector pass reads
binary codes of visible partitions only, then rescores ~200 exactly (memory/_vectors.py).

Where the single-node design stops (bench/memory_bench.py, 2-core box, 100k notes visible
over 10 channels, a synthetic 100-word vocabulary where every term matches 16-100% of notes):
recall p50/p95 keyword 16-18/36-43 ms, semantic 19-21/29-33 ms, hybrid 34-35/49-50 ms. The
keyword half costs ~1 us per note matching the pruned query, the vector half ~15 ms per 100k
binary codes. Past a few hundred thousand notes visible to one requester, move to an ANN
index and a search server. One SQLite file has one writer (storage alone ~1,100-1,400
notes/s; batched ingest is bound by embedding speed, ~200 notes/s with MiniLM here).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from memory.clock import Clock, parse_iso, utc_now
from memory.errors import EmbeddingUnavailable, InvalidLimit
from memory.incidents import parse_incident_id
from memory.notes.exchange import exchange_sql
from memory.recall.keyword import KeywordConfig, keyword_candidates
from memory.recall.ranking import DEFAULT_KIND_WEIGHTS, recency_factor, rrf
from memory.recall.time_hints import periods_in
from memory.scopes import Requester, visibility_sql, visible_partitions
from memory.store.note_vectors import NoteVectors

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.incidents import Incident
    from memory.store.db import Database, Row

log = logging.getLogger(__name__)

Mode = Literal["keyword", "semantic", "hybrid"]
MAX_K = 100
SIMILAR_CANDIDATES = 30  # notes looked at to rank past incidents


@dataclass(frozen=True)
class RecallConfig:
    half_life_hours: float | None = 48.0  # None: no recency decay
    decay_floor: float = 0.35
    kind_weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_KIND_WEIGHTS))
    keyword: KeywordConfig = field(default_factory=KeywordConfig)  # BM25 weights, pruning
    keyword_weight: float = 1.0
    vector_weight: float = 0.5  # MiniLM alone is far weaker than BM25 with neighbour context
    rrf_k: float = 5.0  # small k keeps strong keyword top ranks on top
    neighbour_share: float = 0.2  # of a hit's score lent to the notes just before and after it
    date_boost: float = 3.0  # for notes written in a period the question names (1.0: off)
    overfetch: int = 50  # candidates per list, at least
    coarse: int = 200  # binary-code candidates (shared by the partitions searched) to rescore
    mode: Mode = "hybrid"


@dataclass(frozen=True)
class RecallItem:
    id: int
    kind: str
    text: str
    scope: str
    incident_id: str | None
    channel_id: str | None
    author_subject_id: str
    created_at: datetime
    permalink: str | None
    score: float
    source: str = "note"


@dataclass(frozen=True)
class IncidentMatch:
    incident: Incident
    score: float
    why: str


_ROWS = """
SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,
       n.created_at, n.permalink
FROM memory_notes n
WHERE n.id IN (SELECT value FROM json_each(:ids)) AND {vis} {incident}
"""

# Each hit's previous note (when the hit is in an exchange) and next note (when that one is).
_NEIGHBOURS = f"""
WITH hit AS (
    SELECT n.id, {exchange_sql("n")} AS joined,
        (SELECT max(p.id) FROM memory_notes p WHERE p.partition_key = n.partition_key
            AND p.channel_id IS n.channel_id AND p.id < n.id) AS prev,
        (SELECT min(p.id) FROM memory_notes p WHERE p.partition_key = n.partition_key
            AND p.channel_id IS n.channel_id AND p.id > n.id) AS next
    FROM memory_notes n WHERE n.id IN (SELECT value FROM json_each(:ids))
)
SELECT hit.id, CASE WHEN hit.joined THEN hit.prev END AS prev,
    CASE WHEN {exchange_sql("x")} THEN hit.next END AS next
FROM hit LEFT JOIN memory_notes x ON x.id = hit.next
"""


class Recall:
    """Hybrid, scope-safe search over notes."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        config: RecallConfig = RecallConfig(),
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._config = config
        self._clock = clock
        self._vectors = (
            NoteVectors(dim=embedder.dim, digest=embedder.digest, name=embedder.name)
            if embedder is not None
            else None
        )

    async def recall(
        self,
        requester: Requester,
        query: str,
        k: int = 8,
        *,
        incident: str | None = None,
        mode: Mode | None = None,
    ) -> list[RecallItem]:
        """Up to k notes, best first; [] when nothing visible matches (never a count of others)."""
        if not 1 <= k <= MAX_K:
            raise InvalidLimit(got=k, cap=MAX_K)
        mode = mode or self._config.mode
        incident_id = parse_incident_id(incident) if incident is not None else None
        fetch = max(self._config.overfetch, 3 * k)
        keyword, semantic = await asyncio.gather(
            self._keyword(requester, query, fetch, incident_id)
            if mode in ("keyword", "hybrid")
            else _nothing(),
            self._semantic(requester, query, fetch)
            if mode in ("semantic", "hybrid")
            else _nothing(),
        )
        rankings = [
            (keyword, self._config.keyword_weight),
            (semantic, self._config.vector_weight),
        ]
        fused = rrf(rankings, k=self._config.rrf_k)
        if not fused:
            return []
        if self._config.neighbour_share > 0:
            fused = await self._lend_to_neighbours(fused)
        rows = await self._rows(requester, list(fused), incident_id)
        now = self._clock()
        periods = periods_in(query, now) if self._config.date_boost != 1.0 else []
        items = []
        for row in rows:
            created = parse_iso(row["created_at"])
            in_period = any(p.contains(created) for p in periods)
            score = (
                fused[row["id"]]
                * (self._config.date_boost if in_period else 1.0)
                * self._config.kind_weights.get(row["kind"], 1.0)
                * recency_factor(
                    (now - created).total_seconds() / 3600,
                    half_life_hours=self._config.half_life_hours,
                    floor=self._config.decay_floor,
                )
            )
            items.append(_item(row, created, score))
        items.sort(key=lambda it: (-it.score, -it.id))
        return items[:k]

    async def similar_incidents(
        self, requester: Requester, text: str, limit: int = 3
    ) -> list[IncidentMatch]:
        """Past incidents whose visible notes best match `text`, excluding this channel's own.

        Similarity of meaning is what "a similar incident" is, and the vector pass is the cheap
        one at 100k notes (the keyword pass over common words is not), so this ranks on vectors
        alone, falling back to keywords without an embedder.
        """
        from memory.incidents import Incidents

        mode: Mode = "semantic" if self._vectors is not None else "keyword"
        hits = await self.recall(requester, text, k=SIMILAR_CANDIDATES, mode=mode)
        if not hits and mode == "semantic":  # embedder down: keywords still find something
            hits = await self.recall(requester, text, k=SIMILAR_CANDIDATES, mode="keyword")
        by_incident: dict[str, tuple[float, RecallItem]] = {}
        for hit in hits:
            if hit.incident_id is None or hit.channel_id == requester.channel_id:
                continue
            total, best = by_incident.get(hit.incident_id, (0.0, hit))
            by_incident[hit.incident_id] = (total + hit.score, best)
        ranked = sorted(by_incident.items(), key=lambda kv: -kv[1][0])
        incidents = Incidents(self._db, self._clock)
        matches: list[IncidentMatch] = []
        for incident_id, (total, best) in ranked:
            # A visible note may name an incident the requester cannot see (a private channel's):
            # such an incident is skipped, never shown.
            incident = await incidents.get_visible(requester, incident_id)
            if incident is not None:
                matches.append(IncidentMatch(incident=incident, score=total, why=best.text[:200]))
            if len(matches) >= max(1, limit):
                break
        return matches

    async def _keyword(
        self, requester: Requester, query: str, limit: int, incident_id: str | None
    ) -> list[int]:
        return await keyword_candidates(
            self._db,
            requester,
            query,
            limit=limit,
            incident_id=incident_id,
            config=self._config.keyword,
        )

    async def _semantic(self, requester: Requester, query: str, limit: int) -> list[int]:
        if self._embedder is None or self._vectors is None or not query.strip():
            return []
        try:
            (vector,) = await self._embedder.embed([query])
        except EmbeddingUnavailable:
            log.warning("recall_embedding_unavailable")
            return []
        hits = await self._vectors.search(
            self._db,
            vector,
            partitions=visible_partitions(requester),
            limit=limit,
            coarse=max(self._config.coarse, limit),
        )
        return [nid for nid, _ in hits]

    async def _lend_to_neighbours(self, fused: dict[int, float]) -> dict[int, float]:
        """A hit makes the notes around it likelier: an answer sits next to its question.
        Neighbours are the previous and next note of the same partition and channel, joined
        only within an exchange (`memory.notes.exchange`), so they are exactly as visible as the hit
        (and `_rows` re-checks anyway)."""
        rows = await self._db.fetchall(_NEIGHBOURS, {"ids": json.dumps(list(fused))})
        share = self._config.neighbour_share
        out = dict(fused)
        for row in rows:
            lent = share * fused[int(row["id"])]
            for nb in (row["prev"], row["next"]):
                if nb is not None:
                    nb = int(nb)
                    out[nb] = max(out.get(nb, 0.0), fused.get(nb, 0.0) + lent)
        return out

    async def _rows(
        self, requester: Requester, ids: list[int], incident_id: str | None
    ) -> list[Row]:
        vis, params = visibility_sql(requester, alias="n")
        return await self._db.fetchall(
            _ROWS.format(vis=vis, incident="AND n.incident_id = :incident" if incident_id else ""),
            {**params, "ids": json.dumps(ids), "incident": incident_id},
        )


async def _nothing() -> list[int]:
    return []


def _item(row: Row, created: datetime, score: float) -> RecallItem:
    return RecallItem(
        id=int(row["id"]),
        kind=row["kind"],
        text=row["text"],
        scope=row["scope"],
        incident_id=row["incident_id"],
        channel_id=row["channel_id"],
        author_subject_id=row["owner_subject_id"],
        created_at=created,
        permalink=row["permalink"],
        score=score,
    )
