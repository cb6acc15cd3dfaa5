"""Ranking pieces recall combines: query terms for FTS5, reciprocal-rank fusion, recency, kinds."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

_WORD = re.compile(r"\w+", re.UNICODE)

# Function words and question scaffolding: they match everything and rank nothing.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can could couldn did didn do does doesn doing don
    down during each else ever few for from further get got had hadn has hasn have haven
    having he her here hers herself him himself his how i if in into is isn it its itself
    just let like me might more most much must my myself no nor not now of off on once only
    or other our ours ourselves out over own same shall she should so some such than that
    the their theirs them themselves then there these they this those through to too under
    until up upon us very was wasn we were weren what when where which while who whom whose
    why will with won would wouldn yes yet you your yours yourself yourselves s t d ll m re
    ve kind sort thing things something anything way ways really tell know think say said
    asked ask
    """.split()  # noqa: SIM905 -- a word list reads better as text
)

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
