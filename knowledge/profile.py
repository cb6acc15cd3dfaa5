"""Per-runbook term profiles for re-ranking: how well a query covers a runbook's title and opening.

BM25 rewards rare terms but not *how much* of a runbook's title a query covers, nor whether the
query restates the runbook's opening section (runbooks usually open with what the alert means),
so these signals separate near-duplicate runbooks (`...-space-filling-up` vs `...-almost-out-of-
space`, `...-to-some-...` vs `...-to-any-...`). Terms are identifier-split, lowercased and lightly
stemmed; only function words are dropped, so quantifiers like "any"/"some"/"not" still count.
A query's lead (its first sentence, where people and alerts state the problem before the details)
is scored on its own: a runbook whose title and opening restate the lead is about that problem.
When one of the next two sentences restates the whole lead with more detail (an alert's summary,
then its description naming the component), ranking reads that sentence as the lead instead;
abstention keeps the first sentence's own words.
Two stems also match when one is a prefix of the other (`config` / `configuration`, whose
7-letter stems differ): a query term takes on the title terms it is prefix-related to. Integer
percentages stay as terms (`5%` -> `pct5`): alerts state thresholds and runbooks restate them.
Common short abbreviations (`max`, `db`, `cert`) stem like the words they abbreviate, and what a
query rules out ("a reason other than CrashLoopBackOff") is dropped before any signal reads it.
Profiles and idf sums are computed once per corpus; per query only set intersections remain.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from knowledge.chunking import ChunkedRunbook
from memory.text import ABBREVIATIONS, split_identifier

_WORD = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ures", "ure", "ed", "es", "s")
#: Function words only: "any", "some", "all", "not", "too" and "many" stay (they tell runbooks apart).
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "is",
        "are",
        "and",
        "or",
        "by",
        "with",
        "from",
        "at",
        "be",
        "has",
        "have",
        "been",
        "its",
        "it",
        "this",
        "that",
        "as",
        "was",
        "were",
        "will",
    ]
)
#: Sections counted as a runbook's opening (what the alert means, before how to fix it).
OPENING_SECTIONS = 2
#: Words of a sentence that count as the query's lead (the problem, before the details).
LEAD_WORDS = 12
#: "for a reason other than CrashLoopBackOff": what follows an exclusion, up to the next
#: punctuation, names what the problem is *not*, so it must not pull that runbook up.
_EXCLUSION = re.compile(
    r"\b(?:other\s+than|rather\s+than|except(?:\s+for)?|excluding|apart\s+from|besides)\b"
    r"[^.,;:()]*",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
#: An integer percentage (not a decimal one, which is a measured value rather than a threshold).
_PERCENT = re.compile(r"(?<![\d.])(\d{1,3})%")
_PERCENT_TERM = re.compile(r"pct\d{1,3}")
#: Prefix-related stems: the shorter has at least this many letters and this share of the longer.
PREFIX_MIN = 5
PREFIX_SHARE = 0.6


def _strip(word: str) -> str:
    """A light suffix stripper (fail/failed/failing/failure -> fail), truncated to 7 letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:7]


#: Derived through the stemmer itself, so every abbreviation lands exactly on its word's stem.
_ABBREVIATION_STEMS = {_strip(short): _strip(word) for short, word in ABBREVIATIONS.items()}


def stem(word: str) -> str:
    """`_strip`, with an abbreviation becoming the stem of its word (maxed -> max -> maximum)."""
    word = _strip(word)
    return _ABBREVIATION_STEMS.get(word, word)


def term_sequence(text: str) -> list[str]:
    """Stemmed terms in order: identifiers split, function words and pure numbers dropped,
    integer percentages kept as `pct<N>`."""
    out: list[str] = []
    for match in _WORD.finditer(_PERCENT.sub(r" pct\1 ", text)):
        if _PERCENT_TERM.fullmatch(match[0]):
            out.append(match[0])
            continue
        for part in split_identifier(match[0]):
            if len(part) >= 2 and not part.isdigit() and part not in FUNCTION_WORDS:
                out.append(stem(part))
    return out


def without_exclusions(text: str) -> str:
    """`text` minus what it says it is not about ("other than X", "excluding Y"): for queries,
    and for the runbook text the embedder reads. `text` itself if nothing else would be left."""
    kept, n = _EXCLUSION.subn(" ", text)
    return kept if n and term_sequence(kept) else text


def specific_lead_text(text: str) -> str:
    """The query's lead (its first sentence, at most LEAD_WORDS words: where people state the
    problem), or the next sentence (of two) that restates all of it with more detail: alerts
    give a summary, then a description naming what it is about ("Target disappeared from
    Prometheus target discovery. KubeAPI has disappeared from Prometheus target discovery.")."""
    return _leads(text)[0]


def _leads(text: str) -> tuple[str, frozenset[str], frozenset[str]]:
    """(specific lead, the first sentence's terms, the specific lead's terms), in one pass."""
    sentences = _first_sentences(text)
    first = frozenset(term_sequence(sentences[0]))
    for later in sentences[1:3]:
        terms = frozenset(term_sequence(later))
        if first and first < terms:
            return later, first, terms
    return sentences[0], first, first


def _first_sentences(text: str) -> list[str]:
    """The first three sentences (then the rest), each cut to LEAD_WORDS words."""
    return [" ".join(s.split()[:LEAD_WORDS]) for s in _SENTENCE_END.split(text.strip(), 3)]


def prefix_related(a: str, b: str) -> bool:
    """Whether two different stems name the same word, one abbreviating the other."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return (
        short != long
        and len(short) >= PREFIX_MIN
        and long.startswith(short)
        and len(short) >= PREFIX_SHARE * len(long)
    )


def bigrams(seq: list[str]) -> frozenset[tuple[str, str]]:
    return frozenset((a, b) for a, b in itertools.pairwise(seq) if a != b)


@dataclass(frozen=True)
class Profile:
    title: frozenset[str]
    terms: frozenset[str]
    opening: frozenset[str]
    opening_pairs: frozenset[tuple[str, str]]
    named: frozenset[str]  # title and opening: where a runbook says what it is about


def profile(rb: ChunkedRunbook) -> Profile:
    """The runbook's term sets. Unlike the indexes (index_text.readable), profiles keep link
    addresses: dropping them here too cost an alert held out (bench/knowledge_tune.py)."""
    seq: list[str] = []
    for c in rb.chunks:
        seq.extend(term_sequence(" ".join((*c.heading_path, c.text))))
    opening = [c for c in rb.chunks if c.text][:OPENING_SECTIONS]
    open_seq = term_sequence(" ".join(" ".join((*c.heading_path, c.text)) for c in opening))
    title = frozenset(term_sequence(f"{rb.title} {rb.slug}"))
    return Profile(
        title=title,
        terms=frozenset(seq) | title,
        opening=frozenset(open_seq),
        opening_pairs=bigrams(open_seq),
        named=frozenset(open_seq) | title,
    )


@dataclass(frozen=True)
class QueryProfile:
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    lead: frozenset[str]  # the specific lead's terms, with prefix relatives
    own_lead: frozenset[str]  # the first sentence's own words, without prefix relatives

    @classmethod
    def of(cls, text: str, stats: TermStats | None = None) -> QueryProfile:
        """The query's terms; with `stats`, each also stands for the title terms it is
        prefix-related to."""
        seq = term_sequence(text)
        terms = frozenset(seq)
        _, own_lead, lead = _leads(text)
        if stats is not None:
            terms, lead = stats.with_title_relatives(terms), stats.with_title_relatives(lead)
        return cls(terms=terms, pairs=bigrams(seq), lead=lead, own_lead=own_lead)


def compound_heads(words: Iterable[str], stems: frozenset[str]) -> dict[str, frozenset[str]]:
    """For each of `stems` that stems a compound corpus word ("alertmanager": "alert" +
    "manager", both corpus words), the stems of its first parts: a query's "alert" is not an
    abbreviation of "alertmanager" as "config" is of "configuration"."""
    vocab = frozenset(words)
    heads: dict[str, set[str]] = {}
    for w in vocab:
        s = stem(w)
        if s not in stems:
            continue
        for i in range(3, len(w) - 2):
            if w[:i] in vocab and w[i:] in vocab:
                heads.setdefault(s, set()).add(stem(w[:i]))
    return {s: frozenset(h) for s, h in heads.items()}


class TermStats:
    """Smoothed idf of every corpus term, plus each profile's title idf sum (computed once)."""

    def __init__(self, profiles: Iterable[Profile], words: Iterable[str] = ()) -> None:
        docs = list(profiles)
        df: dict[str, int] = {}
        for p in docs:
            for t in p.terms:
                df[t] = df.get(t, 0) + 1
        n = len(docs)
        self.idf = {t: math.log(1 + (n - k + 0.5) / (k + 0.5)) for t, k in df.items()}
        self.unseen = max(self.idf.values(), default=1.0)  # a term no runbook has is rarest
        self._title_weights = {p.title: self.weight(p.title) for p in docs}
        self._titles: dict[str, list[str]] = {}  # title terms by their first PREFIX_MIN letters
        for t in sorted(set().union(*(p.title for p in docs))):
            if len(t) >= PREFIX_MIN:
                self._titles.setdefault(t[:PREFIX_MIN], []).append(t)
        self._heads = compound_heads(
            words, frozenset(t for ts in self._titles.values() for t in ts)
        )

    def with_title_relatives(self, terms: frozenset[str]) -> frozenset[str]:
        """`terms` plus every title term prefix-related to one of them."""
        extra = [
            t
            for q in terms
            if len(q) >= PREFIX_MIN
            for t in self._titles.get(q[:PREFIX_MIN], ())
            if prefix_related(q, t) and q not in self._heads.get(t, ())
        ]
        return terms.union(extra) if extra else terms

    def weight(self, terms: Iterable[str]) -> float:
        return sum(self.idf.get(t, self.unseen) for t in terms)

    def known_weight(self, terms: Iterable[str]) -> float:
        """Idf mass of the terms some runbook uses (host names, ids and typos weigh nothing)."""
        return sum(self.idf.get(t, 0.0) for t in terms)

    def title_weight(self, title: frozenset[str]) -> float:
        """`weight(title)`, computed once per corpus title."""
        cached = self._title_weights.get(title)
        return self.weight(title) if cached is None else cached

    def query_weights(self, q: QueryProfile) -> QueryWeights:
        """The idf masses `overlap` divides by, computed once per query."""
        return QueryWeights(
            terms=self.weight(q.terms),
            lead=self.known_weight(q.lead),
            own_lead=self.known_weight(q.own_lead),
        )


class QueryWeights(NamedTuple):
    terms: float  # idf mass of the query's terms
    lead: float  # idf mass of its known lead terms
    own_lead: float  # idf mass of its first sentence's own known terms


@dataclass(frozen=True)
class Overlap:
    """Lexical agreement of one query with one runbook (each in [0, 1] except `title_idf`)."""

    query_cov: float  # idf-weighted share of the query's terms found anywhere in the runbook
    title_cov: float  # share of the title's terms the query contains
    title_idf_cov: float  # idf-weighted share of the title's terms the query contains
    title_idf: float  # idf mass of the query's terms in the title (normalised across candidates)
    title_all: float  # 1 when the query contains every title term
    opening_cov: float  # idf-weighted share of the query's terms in the opening sections
    opening_pairs: float  # share of the query's word pairs found in order in the opening
    lead_cov: float  # idf-weighted share of the query's known lead terms in title or opening
    own_lead_cov: float  # the same for the first sentence's own words (for confidence)


def overlap(q: QueryProfile, p: Profile, stats: TermStats, weights: QueryWeights) -> Overlap:
    """Overlap features of `q` against `p`; `weights` is `stats.query_weights(q)`."""
    total = weights.terms or 1.0
    in_title = q.terms & p.title
    title_weight = stats.title_weight(p.title) or 1.0
    matched = stats.weight(in_title)
    return Overlap(
        query_cov=stats.weight(q.terms & p.terms) / total,
        title_cov=len(in_title) / len(p.title) if p.title else 0.0,
        title_idf_cov=matched / title_weight,
        title_idf=matched,
        title_all=float(bool(p.title) and p.title <= q.terms),
        opening_cov=stats.weight(q.terms & p.opening) / total,
        opening_pairs=len(q.pairs & p.opening_pairs) / len(q.pairs) if q.pairs else 0.0,
        lead_cov=stats.known_weight(q.lead & p.named) / (weights.lead or 1.0),
        own_lead_cov=stats.known_weight(q.own_lead & p.named) / (weights.own_lead or 1.0),
    )
