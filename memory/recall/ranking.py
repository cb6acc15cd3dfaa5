"""Ranking pieces recall combines: query terms for FTS5, reciprocal-rank fusion, recency, kinds."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from memory.text import STOP_WORDS

_WORD = re.compile(r"\w+", re.UNICODE)


DEFAULT_KIND_WEIGHTS: Mapping[str, float] = {
    "root_cause": 1.25,
    "decision": 1.2,
    "correction": 1.2,
    "action": 1.1,
    "fact": 1.05,
    "preference": 1.0,
    "note": 1.0,
}


def query_terms(text: str, *, max_terms: int = 32) -> list[str]:
    """Distinct lowercase content words of a question, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
    return list(seen)[:max_terms]


def fts_match(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression: any term (BM25 ranks those with more, rarer terms higher)."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def rrf(rankings: Sequence[tuple[Sequence[int], float]], *, k: float = 60.0) -> dict[int, float]:
    """Weighted reciprocal-rank fusion of best-first id lists."""
    scores: dict[int, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    return scores


def recency_factor(age_hours: float, *, half_life_hours: float | None, floor: float) -> float:
    """floor + (1 - floor) * 0.5 ** (age / half-life); 1.0 when decay is off."""
    if half_life_hours is None:
        return 1.0
    age = max(0.0, age_hours)
    return floor + (1.0 - floor) * math.pow(0.5, age / half_life_hours)
