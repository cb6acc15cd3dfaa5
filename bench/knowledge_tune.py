"""Fit and cross-validate the runbook ranker and the abstention model (numbers in the README).

Dumps every candidate's normalised signals (knowledge.fusion.signal_rows, the code search uses)
for the labelled query sets, then fits a linear ranker pairwise: logistic loss on (right runbook's
signals - a wrong candidate's), hardest wrong candidates first, L2-regularised, numpy only. The
honest number is leave-one-set-out: fit on two query sets, test on the third. Then fits the
abstention logistic model on alerts + no-runbook queries and reports repeated 5-fold CV AUROC.
Usage: python bench/knowledge_tune.py [--data-dir DIR] (DIR keeps the indexes and embeddings).
"""

from __future__ import annotations

import sys
from pathlib import Path

# ruff: noqa: E402  # imports must follow the sys.path fix below
# Run as a script, this folder is sys.path[0] and bench/knowledge.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import argparse
import asyncio
import tempfile

import numpy as np

from knowledge.evaluate import auroc, load_queries
from knowledge.fusion import SIGNALS, FusionConfig, confidence_features, signal_rows
from knowledge.search import Knowledge
from memory.db import Database
from memory.embedder import OnnxMiniLmEmbedder

DATA = Path("/work/shared/data/runbooks")
SETS = {
    "alerts": ("prometheus-operator", "queries-alerts.jsonl"),
    "null": ("prometheus-operator", "queries-alerts-no-runbook.jsonl"),
    "apa": ("prometheus-operator", "queries-apa-paraphrase.jsonl"),
    "os": ("openshift", "queries-openshift-alerts.jsonl"),
}
RANKED = ("alerts", "apa", "os")
MASKS = {
    "hybrid": np.ones(len(SIGNALS)),
    "keyword": np.array([0.0 if s.startswith("sem_") else 1.0 for s in SIGNALS]),
    "semantic": np.array([1.0 if s.startswith("sem_") else 0.0 for s in SIGNALS]),
}
Query = tuple[np.ndarray, np.ndarray, list]  # (signals [n, k], is-expected [n], candidates)


async def dump(data_dir: Path) -> dict[str, list[Query]]:
    """Signals of every candidate of every query (hybrid retrieval gathers all candidates)."""
    emb = OnnxMiniLmEmbedder()
    config = FusionConfig()
    out: dict[str, list[Query]] = {}
    for corpus in ("prometheus-operator", "openshift"):
        db = await Database.open(data_dir / f"{corpus}.db")
        k = Knowledge(db, DATA / corpus, emb)
        gen = await k.ensure_index()
        for name, (c, qf) in SETS.items():
            if c != corpus:
                continue
            rows: list[Query] = []
            for q in load_queries([DATA / qf]):
                ranked, _, _ = await k.rank(q.query, "hybrid", gen)
                cands = sorted((c for _, c in ranked), key=lambda c: c.slug)
                sig = np.array(signal_rows(cands, config.sem_floor), dtype=float)
                lab = np.array([c.slug == q.expected for c in cands], dtype=bool)
                rows.append((sig.reshape(len(cands), len(SIGNALS)), lab, cands))
            out[name] = rows
        await db.close()
    return out


def rank_of(sig: np.ndarray, lab: np.ndarray, w: np.ndarray) -> int:
    """1-based rank of the expected runbook (ties go to the earlier slug, as in search); 0: absent."""
    if not lab.any():
        return 0
    s = sig @ w
    i = int(np.argmax(lab))
    return 1 + int(np.sum(s > s[i])) + int(np.sum(s[:i] == s[i]))


def metrics(rows: list[Query], w: np.ndarray) -> tuple[float, float, float]:
    ranks = np.array([rank_of(s, lab, w) for s, lab, _ in rows])
    rr = np.where(ranks > 0, 1.0 / np.maximum(ranks, 1), 0.0)
    return float(np.mean(ranks == 1)), float(np.mean((ranks >= 1) & (ranks <= 3))), float(rr.mean())


def fit_ranker(rows: list[Query], mask: np.ndarray, l2: float = 1e-5, hard: int = 20) -> np.ndarray:
    """Pairwise logistic ranker; the second round trains on the hardest wrong candidates."""
    w: np.ndarray | None = None
    for _ in range(2):
        diffs = []
        for sig, lab, _ in rows:
            if not lab.any():
                continue
            x = sig * mask
            i = int(np.argmax(lab))
            neg = np.flatnonzero(~lab)
            if w is not None and len(neg) > hard:
                neg = neg[np.argsort(-(x[neg] @ w))[:hard]]
            diffs.append(x[i] - x[neg])
        w = _logistic(np.vstack(diffs), l2)
    assert w is not None
    return w * mask


def _logistic(x: np.ndarray, l2: float, iters: int = 3000, lr: float = 0.5) -> np.ndarray:
    """Weights minimising mean log(1 + exp(-x·w)) + l2/2 |w|² by gradient descent."""
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= lr * (-(x.T @ (1.0 - p)) / len(x) + l2 * w)
    return w


def fmt(m: tuple[float, float, float]) -> str:
    return f"hit@1 {m[0]:.3f} hit@3 {m[1]:.3f} mrr {m[2]:.3f}"


def tune_ranker(data: dict[str, list[Query]], mode: str) -> np.ndarray:
    mask = MASKS[mode]
    for test in RANKED:
        train = [q for s in RANKED if s != test for q in data[s]]
        w = fit_ranker(train, mask)
        print(f"{mode:8s} leave-one-set-out  {test:6s} {fmt(metrics(data[test], w))}")
    w = fit_ranker([q for s in RANKED for q in data[s]], mask)
    for s in RANKED:
        print(f"{mode:8s} fitted on all      {s:6s} {fmt(metrics(data[s], w))}")
    print(f"{mode:8s} weights {np.round(w / (np.abs(w).max() or 1) * 3, 2).tolist()}")
    return w


def conf_features(sig: np.ndarray, cands: list, w: np.ndarray) -> np.ndarray:
    """The abstention features search computes (knowledge.fusion.confidence_features)."""
    if not len(cands):
        return np.zeros(len(confidence_features([])))
    s = sig @ w
    order = np.argsort(-s, kind="stable")
    ranked = [(float(s[i]), cands[i]) for i in order]
    return np.array(confidence_features(ranked), dtype=float)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    xb = np.hstack([np.ones((len(x), 1)), x])
    b = np.zeros(xb.shape[1])
    for _ in range(5000):
        p = 1.0 / (1.0 + np.exp(-(xb @ b)))
        b -= 0.5 * (xb.T @ (p - y) / len(y) + l2 * np.r_[0.0, b[1:]])
    return b


def tune_abstention(data: dict[str, list[Query]], w: np.ndarray, mode: str) -> None:
    """Fit the confidence model of `mode`; keyword rankings have no cosine (that column is 0)."""
    rows = data["alerts"] + data["null"]
    x = np.array([conf_features(sig, cands, w) for sig, _, cands in rows])
    if mode == "keyword":
        x[:, 1] = 0.0
    y = np.array([1.0] * len(data["alerts"]) + [0.0] * len(data["null"]))
    aucs = []
    for seed in range(5):
        folds = np.random.default_rng(seed).permutation(len(y)) % 5
        scores = np.zeros(len(y))
        for f in range(5):
            b = fit_logistic(x[folds != f], y[folds != f])
            scores[folds == f] = np.hstack([np.ones((np.sum(folds == f), 1)), x[folds == f]]) @ b
        aucs.append(auroc(scores[y == 1].tolist(), scores[y == 0].tolist()))
    b = fit_logistic(x, y)
    fitted = np.hstack([np.ones((len(y), 1)), x]) @ b
    print(
        f"{mode} abstention AUROC 5-fold CV (5 repeats): {np.mean(aucs):.3f} ± {np.std(aucs):.3f}"
    )
    print(
        f"abstention AUROC fitted on all: {auroc(fitted[y == 1].tolist(), fitted[y == 0].tolist()):.3f}"
    )
    print(f"confidence bias {b[0]:.3f} coef {np.round(b[1:], 3).tolist()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=None)
    ns = parser.parse_args()
    if not (DATA / "prometheus-operator").is_dir():
        print(f"skip: {DATA} not found")
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = asyncio.run(dump(ns.data_dir or Path(tmp)))
    weights = {mode: tune_ranker(data, mode) for mode in ("hybrid", "keyword", "semantic")}
    for mode in ("hybrid", "keyword"):
        tune_abstention(data, weights[mode], mode)


if __name__ == "__main__":
    main()
