"""Keyword candidates for recall: FTS5 BM25 over notes with bounded scoring work.

BM25 is computed for every note that matches the MATCH expression (~1 us a note here), so a
question made of very common words over 100k notes cost > 100 ms. Standard IR pruning keeps it
bounded: each term's document frequency is estimated from the newest notes (a bounded count);
terms matching at least `common_df` notes are dropped once enough rarer terms remain
(their IDF is near zero, so they hardly move the ranking). When even the rarest terms are
common, the conjunction of the two rarest is scored first and the disjunction only fills in
when the conjunction finds too few notes. On small stores (LoCoMo: 6k notes) nothing is pruned.

Visibility: when the question is about one incident, or the requester sees only a few partitions,
the MATCH itself is limited through the hidden `fts_keys` column, so other channels' notes are
skipped while matching.
The top `scan` notes by BM25 are then filtered by `visibility_sql`, the one authoritative rule;
when that leaves fewer than asked and the scan was full, the exact query (visibility applied
before ranking) runs instead, so a requester who sees a small part of a big store loses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.recall.ranking import fts_match, query_terms
from memory.scopes import Requester, visibility_sql, visible_partitions

if TYPE_CHECKING:
    from memory.store.db import Database

# fts_keys (partition and incident tokens) filters, it never scores: weight 0.
_BM25 = "bm25(memory_notes_fts, :w_text, :w_author, :w_context, 0.0)"
_CONTENT = "{text author_name context}"

_FAST = f"""
WITH hits AS (
    SELECT rowid AS id, {_BM25} AS score FROM memory_notes_fts
    WHERE memory_notes_fts MATCH :match ORDER BY score LIMIT :scan
)
SELECT hits.id, ({{vis}} {{incident}}) AS visible
FROM hits JOIN memory_notes n ON n.id = hits.id
ORDER BY hits.score
"""

_EXACT = f"""
SELECT n.id FROM memory_notes_fts f JOIN memory_notes n ON n.id = f.rowid
WHERE memory_notes_fts MATCH :match AND {{vis}} {{incident}}
ORDER BY {_BM25} LIMIT :limit
"""


@dataclass(frozen=True)
class KeywordConfig:
    weights: tuple[float, float, float] = (1.0, 0.6, 0.35)  # text, author, context
    common_df: int = 5_000  # a term in at least this many notes is "common"
    df_window: int = 15_000  # newest notes whose matches estimate a term's frequency
    min_terms: int = 2  # never prune below this many (rarest) terms
    scan: int = 400  # BM25 top notes read before the visibility filter


async def keyword_candidates(
    db: Database,
    requester: Requester,
    query: str,
    *,
    limit: int,
    incident_id: str | None,
    config: KeywordConfig,
) -> list[int]:
    """Visible note ids, best BM25 first."""
    terms = query_terms(query)
    if not terms:
        return []
    dfs = await _doc_freqs(db, terms, window=config.df_window)
    ranked = sorted(terms, key=lambda t: dfs[t])  # stable: ties keep question order
    rare = [t for t in ranked if dfs[t] < config.common_df]
    plans: list[str | None]
    if len(rare) == len(terms):
        plans = [fts_match(terms)]
    elif len(rare) >= config.min_terms:
        plans = [fts_match(rare)]
    else:
        keep = ranked[: config.min_terms]
        plans = [" AND ".join(f"({fts_match([t])})" for t in keep), fts_match(keep)]
    scope = _scope_filter(requester, incident_id)
    found: list[int] = []
    for plan in plans:
        if plan is None:
            continue
        match = f"{_CONTENT} : ({plan})" + (f" AND {scope}" if scope else "")
        for nid in await _search(db, requester, match, limit, incident_id, config):
            if nid not in found:
                found.append(nid)
        if len(found) >= limit:
            break
    return found[:limit]


def _phrase(key: str) -> str:
    """A key as an FTS5 phrase of the tokens unicode61 makes of it ("c:C01" -> "c c01")."""
    return '"' + " ".join(re.findall(r"[A-Za-z0-9]+", key)) + '"'


# An OR of partition phrases costs position checks on every note it matches: it pays off when it
# skips most of the store (a requester who sees a few partitions of a big one), not when the
# requester sees most of it (bench.memory_bench: 12 partitions, 100k visible -> 3x slower).
MAX_FILTER_PARTITIONS = 4


def _scope_filter(requester: Requester, incident_id: str | None) -> str | None:
    """MATCH clause that lets FTS5 skip notes outside one incident, or outside the requester's
    few partitions, while it matches (instead of ranking them first and dropping them later)."""
    if incident_id:
        return f"fts_keys : {_phrase('incident ' + incident_id)}"
    partitions = visible_partitions(requester)
    if not partitions or len(partitions) > MAX_FILTER_PARTITIONS:
        return None
    return "fts_keys : (" + " OR ".join(_phrase(k) for k in partitions) + ")"


async def _doc_freqs(db: Database, terms: Sequence[str], *, window: int) -> dict[str, float]:
    """Notes matching each term (all columns, all scopes), estimated from the newest `window`
    notes so counting costs at most `window` postings a term, whatever the store's size."""
    top = await db.scalar("SELECT max(id) FROM memory_notes") or 0
    counts = ", ".join(
        f"(SELECT count(*) FROM memory_notes_fts WHERE memory_notes_fts MATCH :t{i}"
        " AND rowid > :low)"
        for i in range(len(terms))
    )
    row = await db.fetchone(
        f"SELECT {counts}",
        {
            "low": max(0, top - window),
            **{f"t{i}": f"{_CONTENT} : ({fts_match([t])})" for i, t in enumerate(terms)},
        },
    )
    scale = max(1.0, top / window)
    return {t: int(row[i]) * scale if row is not None else 0.0 for i, t in enumerate(terms)}


async def _search(
    db: Database,
    requester: Requester,
    match: str,
    limit: int,
    incident_id: str | None,
    config: KeywordConfig,
) -> list[int]:
    vis, params = visibility_sql(requester, alias="n")
    incident = "AND n.incident_id = :incident" if incident_id else ""
    w_text, w_author, w_context = config.weights
    args = {
        **params,
        "match": match,
        "limit": limit,
        "scan": max(config.scan, limit),
        "incident": incident_id,
        "w_text": w_text,
        "w_author": w_author,
        "w_context": w_context,
    }
    rows = await db.fetchall(_FAST.format(vis=vis, incident=incident), args)
    ids = [int(r[0]) for r in rows if r[1]]
    if len(ids) >= limit or len(rows) < max(config.scan, limit):
        return ids[:limit]
    # Too few visible among the BM25 top: rank only visible notes (exact, slower on big stores).
    rows = await db.fetchall(_EXACT.format(vis=vis, incident=incident), args)
    return [int(r[0]) for r in rows]
