"""How runbook search ranks: a linear ranker over per-runbook signals, and calibrated confidence.

Thirteen signals per candidate (`SIGNALS`: BM25F, cosines, term overlap from `knowledge.profile`)
score a runbook; a logistic model over the ranking's features gives the confidence below which
search abstains. Weights are fitted by bench/knowledge_tune.py, keyed to no particular runbook.
Memory recall's rank fusion (RRF over notes) is `memory.recall`, not this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from knowledge.profile import Overlap
from knowledge.wording import asks_question
from memory.text import Mode

SIGNALS = (
    "kw_doc",
    "kw_chunk",
    "sem_chunk",
    "sem_doc",
    "query_cov",
    "title_cov",
    "title_idf_cov",
    "title_idf",
    "title_all",
    "opening_cov",
    "opening_pairs",
    "lead_cov",
    "kw_lead",
)
_NO_OVERLAP = Overlap(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass
class Candidate:
    """Evidence for one runbook under one query."""

    runbook_id: int
    slug: str
    title: str
    kw_doc: float = 0.0  # BM25F of the whole runbook (higher is better)
    kw_chunk: float = 0.0  # best BM25F of one of its chunks
    kw_lead: float = 0.0  # BM25F of the whole runbook for the query's lead alone
    sem_chunk: float = 0.0  # best cosine of one of its chunks
    sem_doc: float = 0.0  # cosine of its summary vector
    overlap: Overlap = _NO_OVERLAP
    chunk_kw: dict[int, float] = field(default_factory=dict)
    chunk_sem: dict[int, float] = field(default_factory=dict)


#: Linear weights per mode, in SIGNALS order: listwise softmax fits on all three labelled query
#: sets (leave-one-set-out numbers in the README; bench/knowledge_tune.py reproduces them).
HYBRID_WEIGHTS = (1.49, 0.89, 2.81, 2.72, 0.71, 2.13, 2.27, 1.69, 2.26, 1.1, 1.41, 3.0, 0.0)
KEYWORD_WEIGHTS = (0.93, 1.2, 0.0, 0.0, 0.57, 3.0, 2.59, 1.63, 2.31, 1.47, 1.93, 2.58, 2.73)
SEMANTIC_WEIGHTS = (0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class FusionConfig:
    """Per-mode weights and the confidence model (fitted values; see module docstring)."""

    hybrid: tuple[float, ...] = HYBRID_WEIGHTS
    keyword: tuple[float, ...] = KEYWORD_WEIGHTS
    semantic: tuple[float, ...] = SEMANTIC_WEIGHTS
    sem_floor: float = 0.2  # cosines below this count as no evidence (MiniLM rarely goes lower)
    # logistic(bias + coef · confidence_features); fitted on answerable alert and paraphrase
    # queries against no-runbook queries.
    conf_bias: float = -3.609
    conf_coef: tuple[float, ...] = (2.216, 3.452, 2.051, 3.389)
    # Keyword-only rankings have no cosine: their own model (same features, cosine weight 0).
    keyword_conf_bias: float = -1.409
    keyword_conf_coef: tuple[float, ...] = (2.536, 0.0, 3.159, 3.042)
    # A person's question (`question_shifted`) says far more than it names: the same evidence
    # is worth more than in an alert text. The shift is the smallest one under
    # which at most 3 % of each corpus's answerable questions abstain (fitted on questions only; alert texts,
    # and so the no-runbook alerts, keep the model above). Hybrid only (keyword-only rankings
    # were not refitted).
    question_conf_shift: float = 0.90
    abstain_below: float = 0.5

    def weights(self, mode: Mode) -> tuple[float, ...]:
        return {"hybrid": self.hybrid, "keyword": self.keyword, "semantic": self.semantic}[mode]


def signal_rows(cands: list[Candidate], sem_floor: float) -> list[tuple[float, ...]]:
    """Each candidate's normalised signals in SIGNALS order (shared by search and the tuner)."""
    kd = max((c.kw_doc for c in cands), default=0.0) or 1.0
    kc = max((c.kw_chunk for c in cands), default=0.0) or 1.0
    ti = max((c.overlap.title_idf for c in cands), default=0.0) or 1.0
    kl = max((c.kw_lead for c in cands), default=0.0) or 1.0
    rows: list[tuple[float, ...]] = []
    for c in cands:
        o = c.overlap
        rows.append(
            (
                c.kw_doc / kd,
                c.kw_chunk / kc,
                _lift(c.sem_chunk, sem_floor),
                _lift(c.sem_doc, sem_floor),
                o.query_cov,
                o.title_cov,
                o.title_idf_cov,
                o.title_idf / ti,
                o.title_all,
                o.opening_cov,
                o.opening_pairs,
                o.lead_cov,
                c.kw_lead / kl,
            )
        )
    return rows


def fuse(cands: list[Candidate], config: FusionConfig, mode: Mode) -> list[tuple[float, Candidate]]:
    """Candidates with fused scores, best first; ties broken by slug for a deterministic order."""
    w = config.weights(mode)
    rows = signal_rows(cands, config.sem_floor)
    scored = [
        (sum(a * b for a, b in zip(w, r, strict=True)), c) for r, c in zip(rows, cands, strict=True)
    ]
    scored.sort(key=lambda sc: (-sc[0], sc[1].slug))
    return scored


def _lift(cosine: float, floor: float) -> float:
    """Cosine rescaled so the floor maps to 0 and 1 stays 1."""
    return max(0.0, (cosine - floor) / (1.0 - floor))


def confidence_features(ranked: list[tuple[float, Candidate]]) -> tuple[float, ...]:
    """Features that say whether the top result really matches: relative margin over the
    runner-up, its best chunk cosine, the idf-weighted share of its title the query covers, the
    share of the query's word pairs its opening sections contain, and how much of the query's
    lead (first sentence, where the problem is stated) its title and opening restate in the
    lead's own words (prefix relatives help ranking but blur "nothing matches"). Chosen by
    5-fold CV; see bench/knowledge_tune.py."""
    if not ranked:
        return (0.0, 0.0, 0.0, 0.0)
    top_score, top = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    margin = (top_score - second) / top_score if top_score > 0 else 0.0
    o = top.overlap
    return (margin, top.sem_chunk, o.opening_pairs, o.own_lead_cov)


def question_shifted(text: str, ranked: list[tuple[float, Candidate]]) -> bool:
    """Whether `text` is calibrated as a question: a person asked it (knowledge.wording) and the
    top runbook uses at least one of its words (nearness of meaning alone earns no shift, so
    "the coffee machine is broken, who fixes it?" is still refused)."""
    return asks_question(text) and bool(ranked) and ranked[0][1].overlap.query_cov > 0.0


def confidence(
    features: tuple[float, ...],
    config: FusionConfig,
    mode: Mode = "hybrid",  # pragma: no mutate  (only "keyword" picks another model)
    *,
    question: bool = False,
) -> float:
    """Calibrated probability that the query has a matching runbook at the top; `question`
    when a person asked it in their own words (FusionConfig.question_conf_shift)."""
    bias, coef = config.conf_bias, config.conf_coef
    if mode == "keyword":
        bias, coef = config.keyword_conf_bias, config.keyword_conf_coef
    elif question:
        bias += config.question_conf_shift
    z = bias + sum(c * f for c, f in zip(coef, features, strict=True))
    # A bound against overflow in exp: at |z| >= 50 the result is 0.0 or 1.0 either way.
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))  # pragma: no mutate
