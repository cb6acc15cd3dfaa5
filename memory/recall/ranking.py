"""Ranking pieces recall combines beside fusion: kind weights, recency decay, length prior."""

from __future__ import annotations

import math
from collections.abc import Mapping

from memory.text import topic_terms

DEFAULT_KIND_WEIGHTS: Mapping[str, float] = {
    "root_cause": 1.25,
    "decision": 1.2,
    "correction": 1.2,
    "action": 1.1,
    "mitigation": 1.1,
    "status": 1.05,
    "fact": 1.05,
    "preference": 1.0,
    "note": 1.0,
}


def recency_factor(age_hours: float, *, half_life_hours: float | None, floor: float) -> float:
    """floor + (1 - floor) * 0.5 ** (age / half-life); 1.0 when decay is off."""
    if half_life_hours is None:
        return 1.0
    age = max(0.0, age_hours)
    return floor + (1.0 - floor) * math.pow(0.5, age / half_life_hours)


# Kinds that state something (not plain talk): the length prior never demotes them, since
# "root cause: expired cert" is worth its few words.
STATEMENT_KINDS = frozenset(
    {"decision", "root_cause", "action", "mitigation", "correction", "status"}
)


def length_factor(text: str, *, cap: int, power: float) -> float:
    """(min(content words, cap) / cap) ** power; 1.0 when off. A document prior: in chat the
    short acknowledgements ("ack", "thanks, on it") outnumber the messages that carry facts,
    and BM25's length normalisation favours them when they share a word with the question."""
    if power <= 0 or cap <= 0:
        return 1.0
    words = len(topic_terms(text, max_terms=cap))
    return (max(words, 1) / cap) ** power
