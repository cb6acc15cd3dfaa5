"""Text preparation for the FTS5 keyword index: identifier splitting and safe MATCH queries.

`KubeAPIDown`, `kube-api-down` and `kube_api_down` all become `kube api down` (the joined form
is kept too), on both the indexed text and the query, so either spelling finds the other.
Query terms are quoted, so no user text is ever parsed as FTS5 syntax.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

#: Query terms that carry no signal for picking a runbook (English function words).
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "might",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "were",
        "will",
        "with",
        "within",
        "would",
        "you",
        "your",
        "which",
        "when",
        "what",
        "who",
        "how",
        "all",
        "any",
        "has",
        "been",
        "being",
        "more",
        "most",
        "other",
        "some",
        "very",
        "only",
        "also",
        "just",
        "over",
        "per",
    ]
)
MAX_QUERY_TERMS = 40


def split_identifier(word: str) -> list[str]:
    """Parts of one identifier: `KubeAPIDown` -> [kube, api, down]; `kube-api_down` likewise."""
    parts: list[str] = []
    for piece in re.split(r"[-_.]", word):
        parts.extend(p.lower() for p in _CAMEL.findall(piece))
    return parts


def expand_identifiers(text: str) -> str:
    """Text with every compound identifier followed by its parts, for indexing."""
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match[0]
        parts = split_identifier(word)
        joined = re.sub(r"[-_.]", "", word).lower()
        out.append(joined)
        if len(parts) > 1:
            out.extend(parts)
    return " ".join(out)


def query_terms(text: str) -> list[str]:
    """Distinct, lowercase search terms of a query (identifiers split, stopwords and numbers out)."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text):
        word = match[0]
        parts = split_identifier(word)
        candidates = [re.sub(r"[-_.]", "", word).lower(), *parts] if len(parts) > 1 else parts
        for term in candidates:
            if term.isdigit() or len(term) < 2 or term in STOPWORDS:
                continue
            seen.setdefault(term, None)
    return list(seen)[:MAX_QUERY_TERMS]
