"""Per-runbook term profiles for re-ranking: title coverage, query coverage and phrase overlap.

BM25 rewards rare terms but not *how much* of a runbook's title a query covers, nor whether the
query's word pairs appear in the runbook in order; runbooks often quote the alert text they serve,
so these two signals separate near-duplicate runbooks (`...-space-filling-up` vs
`...-almost-out-of-space`). Terms are identifier-split, lowercased and lightly stemmed.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from knowledge._fts import STOPWORDS, split_identifier
from knowledge.chunking import ChunkedRunbook

_WORD = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s")


def stem(word: str) -> str:
    """A light suffix stripper (fail/failed/failing/fails -> fail), truncated to 7 letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:7]


def term_sequence(text: str) -> list[str]:
    """Stemmed content terms in order: identifiers split, stopwords and pure numbers dropped."""
    out: list[str] = []
    for match in _WORD.finditer(text):
        for part in split_identifier(match[0]):
            if len(part) >= 2 and not part.isdigit() and part not in STOPWORDS:
                out.append(stem(part))
    return out


def bigrams(seq: list[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in itertools.pairwise(seq) if a != b}


@dataclass(frozen=True)
class Profile:
    title: frozenset[str]
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]


def profile(rb: ChunkedRunbook) -> Profile:
    seq: list[str] = []
    for c in rb.chunks:
        seq.extend(term_sequence(" ".join((*c.heading_path, c.text))))
    title = frozenset(term_sequence(f"{rb.title} {rb.slug}"))
    return Profile(title=title, terms=frozenset(seq) | title, pairs=frozenset(bigrams(seq)))


@dataclass(frozen=True)
class QueryProfile:
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]

    @classmethod
    def of(cls, text: str) -> QueryProfile:
        seq = term_sequence(text)
        return cls(terms=frozenset(seq), pairs=frozenset(bigrams(seq)))


def idf_table(profiles: Iterable[Profile]) -> dict[str, float]:
    """Smoothed inverse document frequency of every term."""
    docs = list(profiles)
    df: dict[str, int] = {}
    for p in docs:
        for t in p.terms:
            df[t] = df.get(t, 0) + 1
    n = len(docs)
    return {t: math.log(1 + (n - k + 0.5) / (k + 0.5)) for t, k in df.items()}


def overlap(q: QueryProfile, p: Profile, idf: dict[str, float]) -> tuple[float, float, float]:
    """(share of the title covered by the query, idf-weighted share of the query in the runbook,
    share of the query's word pairs found in order in the runbook)."""
    title = len(q.terms & p.title) / len(p.title) if p.title else 0.0
    default = max(idf.values(), default=1.0)
    total = sum(idf.get(t, default) for t in q.terms)
    covered = sum(idf.get(t, default) for t in q.terms & p.terms)
    pairs = len(q.pairs & p.pairs) / len(q.pairs) if q.pairs else 0.0
    return title, covered / total if total else 0.0, pairs
