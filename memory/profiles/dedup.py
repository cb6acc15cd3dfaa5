"""The one decision a new profile fact needs: duplicate of, replacement for, or correction of
what (the rules are on `decide`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from memory.profiles.fact_matching import (
    CORRECTION_MIN_COSINE,
    CORRECTION_MIN_JACCARD,
    FLIP_MIN_COSINE,
    FLIP_MIN_JACCARD,
    NEAR_DUPLICATE_COSINE,
    contains,
    keyword_overlap,
    same_polarity,
)


@dataclass(frozen=True)
class Candidate:
    """A current fact of the subject: row id, normalised text, vector if one is stored."""

    rowid: int
    norm: str
    vector: np.ndarray | None


@dataclass(frozen=True)
class Decision:
    outcome: Literal["added", "duplicate", "replaced", "corrected"]
    keep: int | None = None
    supersede: list[int] = field(default_factory=list)
    target_missing: bool = False


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float | None:
    if a is None or b is None or a.shape != b.shape:
        return None
    return float(np.dot(a, b))  # both are L2-normalised


def _closest_for_correction(
    norm: str, vector: np.ndarray | None, current: Sequence[Candidate]
) -> int | None:
    best: tuple[float, int] | None = None
    for cand in current:
        cos = _cosine(vector, cand.vector)
        if cos is not None:
            score, ok = cos, cos >= CORRECTION_MIN_COSINE
        else:
            score = keyword_overlap(norm, cand.norm)
            ok = score >= CORRECTION_MIN_JACCARD
        if ok and (best is None or score > best[0]):
            best = (score, cand.rowid)
    return None if best is None else best[1]


def decide(
    norm: str,
    kind: str,
    vector: np.ndarray | None,
    current: Sequence[Candidate],
    supersedes: int | None = None,
) -> Decision:
    """What to do with a new fact, given the subject's current facts; the first rule that holds:

    1. An explicit `supersedes` id replaces that fact (it must be one of the subject's current
       facts).
    2. A correction supersedes the closest current fact (cosine >= 0.6, or keyword overlap >= 0.3
       without vectors); with no close fact it is simply added.
    3. Same polarity and the new fact contained in an old one (or equal): keep the old one.
    4. Same polarity and an old fact contained in the new one: the new one replaces it.
    5. Cosine >= 0.92 with the same polarity keeps the old one.
    6. Opposite polarity ("not on call") over the same words (keyword overlap >= 0.8) or cosine
       >= 0.85 replaces the old one: the newer statement wins.
    7. Otherwise the fact is added.

    The thresholds and how they were chosen are in `fact_matching`.
    """
    if supersedes is not None:
        if supersedes not in {c.rowid for c in current}:
            return Decision("corrected", target_missing=True)
        return Decision("corrected", supersede=[supersedes])
    if kind == "correction":
        target = _closest_for_correction(norm, vector, current)
        return Decision("corrected", supersede=[target]) if target else Decision("added")
    replaced: list[int] = []
    for cand in current:
        polarity = same_polarity(norm, cand.norm)
        if polarity and contains(cand.norm, norm):
            return Decision("duplicate", keep=cand.rowid)
        if polarity and contains(norm, cand.norm):
            replaced.append(cand.rowid)
            continue
        cos = _cosine(vector, cand.vector)
        if polarity:
            if cos is not None and cos >= NEAR_DUPLICATE_COSINE:
                return Decision("duplicate", keep=cand.rowid)
        elif keyword_overlap(norm, cand.norm) >= FLIP_MIN_JACCARD or (
            cos is not None and cos >= FLIP_MIN_COSINE
        ):
            replaced.append(cand.rowid)
    return Decision("replaced", supersede=replaced) if replaced else Decision("added")
