"""Recall: the notes a requester may see that best answer a question, each with its source.

Keyword and vector candidates are fused by weighted reciprocal rank, lent to neighbours, then
reranked by recency, kind and named dates (`Recall.recall`); visibility is in the SQL of every read.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import Clock, parse_iso, utc_now
from memory.errors import EmbeddingUnavailable, InvalidLimit
from memory.incidents import parse_incident_id
from memory.notes.exchange import WINDOW as EXCHANGE_WINDOW
from memory.recall.keyword import KeywordConfig, keyword_candidates
from memory.recall.ranking import DEFAULT_KIND_WEIGHTS, recency_factor
from memory.recall.time_hints import periods_in
from memory.scopes import Requester, visible_partitions
from memory.store import notes as note_store
from memory.store.vectors import VectorTable
from memory.store.visibility import public_channels
from memory.text import Mode, rrf

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.incidents import Incident
    from memory.store.db import Database, Row

log = logging.getLogger(__name__)

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


class Recall:
    """Hybrid, scope-safe search over notes.

    Keyword (FTS5 BM25 over text, author and neighbour context) and vector candidates are
    gathered concurrently, over-fetched and fused by weighted reciprocal rank; each hit lends a
    share of its score to the notes just before and after it (an answer sits next to its
    question); then scores are reranked by recency (half-life with a floor, so old root causes
    still surface), note kind, and a boost for notes written in a period the question names
    (`memory.recall.time_hints`). The vector pass reads binary codes of visible partitions only,
    then rescores the best exactly (`memory.store.vectors`).
    """

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
        self._vectors = VectorTable.of("note", embedder) if embedder is not None else None

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
        hits = await self._vectors.nearest(
            self._db,
            vector,
            partitions=visible_partitions(
                requester, public_channel_ids=await public_channels(self._db, requester)
            ),
            k=limit,
            coarse=max(self._config.coarse, limit),
        )
        return [nid for nid, _ in hits]

    async def _lend_to_neighbours(self, fused: dict[int, float]) -> dict[int, float]:
        """A hit makes the notes around it likelier: an answer sits next to its question.
        Neighbours are the previous and next note of the same partition and channel, joined
        only within an exchange (`memory.notes.exchange`), so they are exactly as visible as the hit
        (and `_rows` re-checks anyway)."""
        rows = await note_store.neighbours(self._db, list(fused), window=EXCHANGE_WINDOW)
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
        return await note_store.visible_rows(self._db, requester, ids, incident_id=incident_id)


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
