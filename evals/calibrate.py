"""Fit the relevance floor (`memory.recall.floor`) on a LoCoMo-format file, with held-out folds.

Every conversation is ingested through the real write path into its own channel. Each question
is asked twice: in its own channel (its evidence is there: positives and negatives among the
ranked candidates) and in the next conversation's channel (no evidence anywhere: the right
answer is "nothing on that"). A logistic model over the floor's features is fitted by Newton's
method, then the cut-offs (floor, ratio, most) are chosen on the same training questions to
maximise the mean of answer F1 (answerable questions) and correct abstention (the others).
Leave-one-conversation-out folds report what the fit does on a conversation it never saw.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evals.locomo import load_locomo
from evals.memory import ASKER, TEAM
from memory.recall.floor import Features, FloorConfig
from memory.recall.recall import features
from memory.scopes import Requester
from memory.text import Mode

if TYPE_CHECKING:
    from pathlib import Path

    from evals.memory import MemoryEval

FLOORS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)
RATIOS = (0.0, 0.3, 0.5, 0.7, 0.85)
MOSTS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Case:
    """One question asked in one channel: its ranked candidates and which are evidence."""

    group: int  # the conversation the question belongs to
    answerable: bool
    features: tuple[Features, ...]
    labels: tuple[bool, ...]
    evidence: int  # evidence items in the store asked (0 when not answerable)


async def ingest(runner: MemoryEval, path: Path) -> list[tuple[str, dict[int, str]]]:
    """Every conversation into its own channel: (channel, dialogue id of each note)."""
    return [await runner.ingest_locomo(n, conv) for n, conv in enumerate(load_locomo(path))]


async def collect(
    runner: MemoryEval,
    path: Path,
    channels: Sequence[tuple[str, dict[int, str]]],
    *,
    mode: Mode = "hybrid",
    candidates: int = 10,
) -> list[Case]:
    """Ask each question in its own conversation's channel and in the next one's."""
    convs = load_locomo(path)
    cases: list[Case] = []
    for n, conv in enumerate(convs):
        for q in conv.questions:
            if not q.evidence:
                continue
            for where in (n, (n + 1) % len(convs)):
                channel, dia_of = channels[where]
                asker = Requester(ASKER, TEAM, channel_id=channel)
                items = await runner.recall.recall(asker, q.text, k=candidates, mode=mode)
                subjects = await runner.recall.subjects(asker, items)
                own = where == n
                cases.append(
                    Case(
                        group=n,
                        answerable=own,
                        features=tuple(
                            features(q.text, it, r, subjects.get(it.id, ""))
                            for r, it in enumerate(items)
                        ),
                        labels=tuple(own and dia_of.get(it.id) in q.evidence for it in items),
                        evidence=len(q.evidence) if own else 0,
                    )
                )
    return cases


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1e-2, steps: int = 50) -> np.ndarray:
    """Weights (bias first) of an L2-regularised logistic regression, by Newton's method."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    reg = l2 * np.eye(xb.shape[1])
    reg[0, 0] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -30, 30)))
        grad = xb.T @ (p - y) + reg @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(w)), grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def score(config: FloorConfig, cases: Sequence[Case]) -> dict[str, float]:
    """What the floor does on these cases: answer recall, precision, F1 and abstention."""
    recall = precision = f1 = abstain = 0.0
    answered = nothing = 0
    for case in cases:
        kept = config.keep([config.probability(f) for f in case.features])
        hits = sum(case.labels[i] for i in kept)
        if case.answerable:
            answered += 1
            r = hits / max(1, case.evidence)
            p = hits / len(kept) if kept else 0.0
            recall += r
            precision += p
            f1 += 2 * r * p / (r + p) if r + p else 0.0
        else:
            nothing += 1
            abstain += float(not kept)
    out = {
        "recall": recall / max(1, answered),
        "precision": precision / max(1, answered),
        "f1": f1 / max(1, answered),
        "nothing_said": abstain / max(1, nothing),
    }
    out["objective"] = (out["f1"] + out["nothing_said"]) / 2
    return out


def fit(cases: Sequence[Case], *, keyword_only: bool = False) -> FloorConfig:
    """The floor fitted on these cases (similarity ignored when there is no embedder)."""
    rows = [(f, label) for c in cases for f, label in zip(c.features, c.labels, strict=True)]
    x = np.array([f.as_row() for f, _ in rows], dtype=float)
    if keyword_only:
        x[:, 0] = 0.0
    y = np.array([float(label) for _, label in rows])
    w = fit_logistic(x, y)
    best: tuple[float, FloorConfig] | None = None
    for floor, ratio, most in itertools.product(FLOORS, RATIOS, MOSTS):
        config = FloorConfig(
            bias=float(w[0]),
            w_sim=0.0 if keyword_only else float(w[1]),
            w_cov=float(w[2]),
            w_rank=float(w[3]),
            floor=floor,
            ratio=ratio,
            most=most,
        )
        objective = score(config, cases)["objective"]
        if best is None or objective > best[0] + 1e-12:
            best = (objective, config)
    assert best is not None
    return best[1]


def held_out(cases: Sequence[Case], *, keyword_only: bool = False) -> dict[str, float]:
    """Leave-one-conversation-out: fit on the others, score on the one left out; averaged."""
    groups = sorted({c.group for c in cases})
    sums: dict[str, float] = {}
    for g in groups:
        config = fit([c for c in cases if c.group != g], keyword_only=keyword_only)
        for key, value in score(config, [c for c in cases if c.group == g]).items():
            sums[key] = sums.get(key, 0.0) + value
    return {key: value / len(groups) for key, value in sums.items()}
