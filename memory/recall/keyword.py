"""Keyword candidates for recall: FTS5 BM25 over notes, with the scoring work kept bounded
(common terms pruned) and visibility applied inside the search (`keyword_candidates`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.scopes import Requester, visible_partitions
from memory.store import notes_fts
from memory.text import fts_match, topic_terms, word_forms

if TYPE_CHECKING:
    from memory.store.db import Database


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
    """Visible note ids, best BM25 first.

    BM25 is computed for every note that matches the MATCH expression, so a question made of
    very common words over a big store is slow. Standard IR pruning keeps it bounded: each
    term's document frequency is estimated from the newest notes (a bounded count); terms
    matching at least `common_df` notes are dropped once enough rarer terms remain (their IDF
    is near zero, so they hardly move the ranking). When even the rarest terms are common, the
    conjunction of the two rarest is scored first and the disjunction only fills in when the
    conjunction finds too few notes. On small stores nothing is pruned.

    Visibility: when the question is about one incident, or the requester sees only a few
    partitions, the MATCH itself is limited through the hidden `fts_keys` column, so other
    channels' notes are skipped while matching. The top `scan` notes by BM25 are then filtered
    by the visibility rule; when that leaves fewer than asked and the scan was full, the exact
    query (visibility applied before ranking) runs instead, so a requester who sees a small part
    of a big store loses nothing.
    """
    terms = topic_terms(query)
    if not terms:
        return []
    dfs = await _doc_freqs(db, terms, window=config.df_window)
    ranked = sorted(terms, key=lambda t: dfs[t])  # stable: ties keep question order
    rare = [t for t in ranked if dfs[t] < config.common_df]
    plans: list[str | None]
    if len(rare) == len(terms):
        plans = [_any_of(terms)]
    elif len(rare) >= config.min_terms:
        plans = [_any_of(rare)]
    else:
        keep = ranked[: config.min_terms]
        plans = [" AND ".join(f"({_any_of([t])})" for t in keep), _any_of(keep)]
    scope = _scope_filter(requester, incident_id)
    found: list[int] = []
    for plan in plans:
        if plan is None:
            continue
        match = notes_fts.content_match(plan, only=scope)
        for nid in await _search(db, requester, match, limit, incident_id, config):
            if nid not in found:
                found.append(nid)
        if len(found) >= limit:
            break
    return found[:limit]


# An OR of partition phrases costs position checks on every note it matches: it pays off when it
# skips most of the store (a requester who sees a few partitions of a big one), not when the
# requester sees most of it (bench.memory_bench: 12 partitions, 100k visible -> 3x slower).
MAX_FILTER_PARTITIONS = 4


def _scope_filter(requester: Requester, incident_id: str | None) -> str | None:
    """MATCH clause that lets FTS5 skip notes outside one incident, or outside the requester's
    few partitions, while it matches (instead of ranking them first and dropping them later)."""
    if incident_id:
        return notes_fts.incident_filter(incident_id)
    if requester.every_public_channel:  # the team's public channels: no short list to filter on
        return None
    partitions = visible_partitions(requester)
    if not partitions or len(partitions) > MAX_FILTER_PARTITIONS:
        return None
    return notes_fts.partitions_filter(partitions)


async def _doc_freqs(db: Database, terms: Sequence[str], *, window: int) -> dict[str, float]:
    """Notes matching each term (all columns, all scopes), estimated from the newest `window`
    notes so counting costs at most `window` postings a term, whatever the store's size."""
    top = await notes_fts.newest_id(db)
    counts = await notes_fts.match_counts(
        db,
        [notes_fts.content_match(fts_match([t]) or "") for t in terms],
        above_id=max(0, top - window),
    )
    scale = max(1.0, top / window)
    return {t: counts[i] * scale for i, t in enumerate(terms)}


async def _search(
    db: Database,
    requester: Requester,
    match: str,
    limit: int,
    incident_id: str | None,
    config: KeywordConfig,
) -> list[int]:
    scan = max(config.scan, limit)
    rows = await notes_fts.top_matches(
        db, requester, match, scan=scan, incident_id=incident_id, weights=config.weights
    )
    ids = [nid for nid, visible in rows if visible]
    if len(ids) >= limit or len(rows) < scan:
        return ids[:limit]
    # Too few visible among the BM25 top: rank only visible notes (exact, slower on big stores).
    return await notes_fts.visible_matches(
        db, requester, match, limit=limit, incident_id=incident_id, weights=config.weights
    )


def _any_of(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH for any of `terms`, each also as its abbreviation or the word it
    abbreviates ("certificate" finds a note that says "cert")."""
    return fts_match([form for term in terms for form in word_forms(term)])
