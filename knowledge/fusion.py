"""Hybrid fusion of keyword and semantic evidence per runbook, and the calibrated confidence.

Each candidate runbook carries seven signals: document-level and best-chunk BM25F (max-normalised
per query so they compare across queries), best-chunk and summary cosines (rescaled above a
floor), and three term-overlap signals from `_profile.py`. The fused score is a weighted sum whose
weights were fitted by cross-validated search on labelled alert queries (bench/knowledge_tune.py;
numbers in the README), never keyed to particular runbooks. Confidence is a logistic model over
features of the top result, fitted the same way; below `abstain_below` the answer is "no matching
runbook".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["keyword", "semantic", "hybrid"]
MODES: tuple[Mode, ...] = ("keyword", "semantic", "hybrid")


@dataclass
class Candidate:
    """Evidence for one runbook under one query."""

    runbook_id: int
    slug: str
    title: str
    kw_doc: float = 0.0  # BM25F of the whole runbook (higher is better)
    kw_chunk: float = 0.0  # best BM25F of one of its chunks
    sem_chunk: float = 0.0  # best cosine of one of its chunks
    sem_doc: float = 0.0  # cosine of its summary vector
    title_cov: float = 0.0  # share of its title terms the query contains
    query_cov: float = 0.0  # idf-weighted share of query terms it contains
    pair_cov: float = 0.0  # share of query word pairs it contains in order
    chunk_kw: dict[int, float] = field(default_factory=dict)
    chunk_sem: dict[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Weights:
    """Weight of each signal, in Candidate field order."""

    kw_doc: float
    kw_chunk: float
    sem_chunk: float
    sem_doc: float
    title_cov: float
    query_cov: float
    pair_cov: float


@dataclass(frozen=True)
class FusionConfig:
    """Per-mode weights and the confidence model (fitted values; see module docstring)."""

    hybrid: Weights = Weights(0.0, 0.5, 1.0, 3.0, 2.0, 0.0, 3.0)
    keyword: Weights = Weights(0.5, 1.0, 0.0, 0.0, 2.0, 0.5, 3.0)
    semantic: Weights = Weights(0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0)
    sem_floor: float = 0.2  # cosines below this count as no evidence (MiniLM rarely goes lower)
    # logistic(bias + coef · confidence_features); fitted on alert + no-runbook queries.
    conf_bias: float = -1.328
    conf_coef: tuple[float, ...] = (0.956, 1.364, 1.307, 1.218, 1.632)
    abstain_below: float = 0.5

    def weights(self, mode: Mode) -> Weights:
        return {"hybrid": self.hybrid, "keyword": self.keyword, "semantic": self.semantic}[mode]


def fuse(cands: list[Candidate], config: FusionConfig, mode: Mode) -> list[tuple[float, Candidate]]:
    """Candidates with fused scores, best first; ties broken by slug for a deterministic order."""
    w = config.weights(mode)
    kd = max((c.kw_doc for c in cands), default=0.0) or 1.0
    kc = max((c.kw_chunk for c in cands), default=0.0) or 1.0
    scored: list[tuple[float, Candidate]] = []
    for c in cands:
        score = (
            w.kw_doc * c.kw_doc / kd
            + w.kw_chunk * c.kw_chunk / kc
            + w.sem_chunk * _lift(c.sem_chunk, config.sem_floor)
            + w.sem_doc * _lift(c.sem_doc, config.sem_floor)
            + w.title_cov * c.title_cov
            + w.query_cov * c.query_cov
            + w.pair_cov * c.pair_cov
        )
        scored.append((score, c))
    scored.sort(key=lambda sc: (-sc[0], sc[1].slug))
    return scored


def _lift(cosine: float, floor: float) -> float:
    """Cosine rescaled so the floor maps to 0 and 1 stays 1."""
    return max(0.0, (cosine - floor) / (1.0 - floor))


def confidence_features(ranked: list[tuple[float, Candidate]]) -> tuple[float, ...]:
    """Query-independent features of the top result: relative margin over the runner-up, summary
    cosine, title coverage, query coverage and word-pair overlap."""
    if not ranked:
        return (0.0, 0.0, 0.0, 0.0, 0.0)
    top_score, top = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    margin = (top_score - second) / top_score if top_score > 0 else 0.0
    return (margin, top.sem_doc, top.title_cov, top.query_cov, top.pair_cov)


def confidence(features: tuple[float, ...], config: FusionConfig) -> float:
    """Calibrated probability that the query has a matching runbook at the top."""
    z = config.conf_bias + sum(c * f for c, f in zip(config.conf_coef, features, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
