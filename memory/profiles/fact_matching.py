"""How two profile facts compare: normalisation, containment, negation and near-duplicate cosine."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

# Measured with all-MiniLM-L6-v2 on paraphrase / contradiction pairs: rephrasings ("I use
# Terraform for infrastructure" / "Terraform is what I use for infrastructure") score 0.95-0.97,
# while "I am on call this week" / "I am not on call this week" scores 0.90 and "primary" /
# "secondary on-call for payments" 0.90. So near-duplicates need cosine >= 0.92 and the same
# negation words. A correction replaces the closest current fact above 0.6 (different values of
# the same attribute: "stack is Python" / "stack is Go" 0.79, "GKE" / "EKS" 0.75).
NEAR_DUPLICATE_COSINE = 0.92
CORRECTION_MIN_COSINE = 0.60
CORRECTION_MIN_JACCARD = 0.30  # keyword fallback when no embedder is configured
FLIP_MIN_JACCARD = 0.80  # same words, opposite polarity: the newer statement replaces the older
FLIP_MIN_COSINE = 0.85

Category = Literal["stack", "tools", "constraint", "oncall", "other"]

_NON_WORD = re.compile(r"[^\w<>]+")
_PLACEHOLDER = re.compile(r"<[A-Z_]+>")
_NEGATIONS = frozenset({"not", "no", "never", "cannot", "nobody", "nothing", "none"})
_STOP = frozenset(
    [
        "i",
        "im",
        "i'm",
        "me",
        "my",
        "we",
        "our",
        "a",
        "an",
        "the",
        "is",
        "am",
        "are",
        "was",
        "be",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "with",
        "at",
        "by",
        "it",
        "this",
        "that",
        "actually",
        "now",
        "correction",
        "anymore",
    ]
)
_CUES: tuple[tuple[Category, re.Pattern[str]], ...] = (
    ("oncall", re.compile(r"\b(on[- ]?call|pager|paged|rotation|escalation|primary|secondary)\b")),
    (
        "constraint",
        re.compile(r"\b(can ?not|can't|must|never|not allowed|only|approval|without|forbidden)\b"),
    ),
    (
        "stack",
        re.compile(
            r"\b(stack|written in|runs? on|python|go|golang|java|rust|postgres|mysql|kafka"
            r"|kubernetes|k8s|aws|gcp|azure|redis|service|services)\b"
        ),
    ),
    (
        "tools",
        re.compile(
            r"\b(use|uses|using|tool|tools|editor|dashboard|cli|kubectl|terraform|grafana)\b"
        ),
    ),
)


def normalise(text: str) -> str:
    """Case-folded NFKC words separated by single spaces: the dedup key of a fact."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    folded = folded.replace("can't", "cannot").replace("won't", "will not")
    folded = folded.replace("n't", " not").replace("'m", " am").replace("'re", " are")
    return " ".join(_NON_WORD.sub(" ", folded).split())


def has_content(redacted_text: str) -> bool:
    """False when nothing but placeholders and punctuation is left after redaction."""
    return bool(normalise(_PLACEHOLDER.sub(" ", redacted_text)).strip())


def negations(norm: str) -> frozenset[str]:
    return frozenset(w for w in norm.split() if w in _NEGATIONS)


def contains(outer: str, inner: str) -> bool:
    """Whole-word containment of one normalised fact in another."""
    return f" {inner} " in f" {outer} "


def same_polarity(a: str, b: str) -> bool:
    return negations(a) == negations(b)


def keyword_overlap(a: str, b: str) -> float:
    """Jaccard overlap of content words (no stop words, no negations)."""
    wa = {w for w in a.split() if w not in _STOP and w not in _NEGATIONS}
    wb = {w for w in b.split() if w not in _STOP and w not in _NEGATIONS}
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def guess_category(text: str) -> Category:
    """A coarse category for facts added by command (the LLM names one itself)."""
    norm = normalise(text)
    for category, cue in _CUES:
        if cue.search(norm):
            return category
    return "other"
