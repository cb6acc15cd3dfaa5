"""Cross-validated fitting of the fusion weights and the abstention model (numbers in the README).

Dumps every candidate's signals for the shared labelled query sets, then (1) random + coordinate
search over the seven fusion weights, maximising mean hit@1 (+0.1 MRR) across the three sets, with
2x2-fold cross-validation reported per set; (2) a logistic confidence model on alerts + no-runbook
queries, fitted on half and evaluated on the other half (10 splits). Prints the fitted values that
`knowledge/fusion.py` ships. Usage: python bench/knowledge_tune.py [hybrid|keyword|semantic]
"""

from __future__ import annotations

import sys
from pathlib import Path

# ruff: noqa: E402  # imports must follow the sys.path fix below
# Run as a script, this folder is sys.path[0] and bench/knowledge.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import asyncio
import random
import sys
import tempfile
from pathlib import Path

import numpy as np

from knowledge.evaluate import auroc, load_queries
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
FLOOR = 0.2


async def dump(tmp: Path) -> dict[str, list]:
    emb = OnnxMiniLmEmbedder()
    out: dict[str, list] = {}
    for corpus in ("prometheus-operator", "openshift"):
        db = await Database.open(tmp / f"{corpus}.db")
        k = Knowledge(db, DATA / corpus, emb)
        gen = await k.ensure_index()
        for name, (c, qf) in SETS.items():
            if c != corpus:
                continue
            rows = []
            for q in load_queries([DATA / qf]):
                ranked, _, _ = await k.rank(q.query, "hybrid", gen)
                feats = [
                    (
                        c.slug,
                        c.kw_doc,
                        c.kw_chunk,
                        c.sem_chunk,
                        c.sem_doc,
                        c.title_cov,
                        c.query_cov,
                        c.pair_cov,
                    )
                    for _, c in ranked
                ]
                rows.append((q.expected, 0, feats))
            out[name] = rows
        await db.close()
    return out


def prep(rows):
    out = []
    for exp, _nt, c in rows:
        if not c:
            out.append((exp, None, None, []))
            continue
        slugs = [x[0] for x in c]
        F = np.array([x[1:] for x in c], dtype=float)
        G = np.zeros((len(c), 7))
        G[:, 0] = F[:, 0] / (F[:, 0].max() or 1)
        G[:, 1] = F[:, 1] / (F[:, 1].max() or 1)
        G[:, 2] = np.clip((F[:, 2] - FLOOR) / (1 - FLOOR), 0, None)
        G[:, 3] = np.clip((F[:, 3] - FLOOR) / (1 - FLOOR), 0, None)
        G[:, 4:] = F[:, 4:7]
        # tie order by slug
        order = sorted(range(len(slugs)), key=lambda i: slugs[i])
        G = G[order]
        slugs = [slugs[i] for i in order]
        lab = np.array([s == exp for s in slugs])
        out.append((exp, G, lab, slugs))
    return out


def metr(rows, w):
    h1 = h3 = rr = n = 0
    for exp, G, lab, _ in rows:
        if exp is None:
            continue
        n += 1
        if G is None or not lab.any():
            continue
        s = G @ w
        t = s[lab][0]
        rank = 1 + np.sum(s > t) + 0  # ties resolved by slug order: count earlier equal
        rank += np.sum((s == t)[: np.argmax(lab)])
        h1 += rank == 1
        h3 += rank <= 3
        rr += 1 / rank
    return h1 / n, h3 / n, rr / n


def obj(parts, w):
    ms = [metr(p, w) for p in parts]
    return np.mean([m[0] for m in ms]) + 0.1 * np.mean([m[2] for m in ms])


sets = ["alerts", "apa", "os"]


def search(parts, iters=3000, seed=0):
    rng = np.random.default_rng(seed)
    best = None
    bw = None
    for _i in range(iters):
        w = rng.choice([0, 0.25, 0.5, 1, 2, 3, 4], size=7)
        if not w.any():
            continue
        o = obj(parts, w)
        if best is None or o > best:
            best, bw = o, w
    # coordinate refine
    for _ in range(2):
        for j in range(7):
            for v in [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6]:
                w = bw.copy()
                w[j] = v
                if w.any():
                    o = obj(parts, w)
                    if o > best:
                        best, bw = o, w
    return bw, best


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "hybrid"
    if not (DATA / "prometheus-operator").is_dir():
        print(f"skip: {DATA} not found")
        return
    with tempfile.TemporaryDirectory() as tmp:
        d = asyncio.run(dump(Path(tmp)))
    data = {k: prep(v) for k, v in d.items()}
    sets = ["alerts", "apa", "os"]
    mask = {"keyword": [1, 1, 0, 0, 1, 1, 1], "semantic": [0, 0, 1, 1, 0, 0, 0], "hybrid": [1] * 7}
    m = np.array(mask[mode], float)

    def msearch(parts, seed):
        masked = [
            [(e, (g * m if g is not None else g), lab, s) for e, g, lab, s in p] for p in parts
        ]
        return search(masked, seed=seed)[0] * m

    res: dict[str, list] = {s: [] for s in sets}
    for seed in range(2):
        rng = random.Random(seed)
        halves = {}
        for s in sets:
            idx = list(range(len(data[s])))
            rng.shuffle(idx)
            halves[s] = (idx[: len(idx) // 2], idx[len(idx) // 2 :])
        for a, b in ((0, 1), (1, 0)):
            w = msearch([[data[s][i] for i in halves[s][a]] for s in sets], seed)
            for s in sets:
                res[s].append(metr([data[s][i] for i in halves[s][b]], w))
    print(
        mode,
        "CV (hit@1, hit@3, MRR)",
        {s: np.round(np.mean(res[s], axis=0), 3).tolist() for s in sets},
    )
    w = msearch([data[s] for s in sets], 0)
    print(
        mode,
        "weights fitted on all",
        w.tolist(),
        {s: np.round(metr(data[s], w), 3).tolist() for s in sets},
    )
    if mode == "hybrid":
        calibrate(data, w)


def calibrate(data, w) -> None:
    def feats(g):
        if g is None:
            return np.zeros(5)
        s = g @ w
        o = np.argsort(-s, kind="stable")
        s1, s2 = s[o[0]], (s[o[1]] if len(o) > 1 else 0.0)
        return np.array([(s1 - s2) / s1 if s1 > 0 else 0.0, *g[o[0], 3:7]])

    rows = [(feats(g), 0 if e is None else 1) for e, g, _, _ in data["alerts"] + data["null"]]
    x = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])

    def fit(x, y, l2=0.01):
        xb = np.hstack([np.ones((len(x), 1)), x])
        b = np.zeros(xb.shape[1])
        for _ in range(5000):
            p = 1 / (1 + np.exp(-xb @ b))
            b -= xb.T @ (p - y) / len(y) + l2 * np.r_[0, b[1:]]
        return b

    aucs = []
    for seed in range(5):
        idx = np.random.default_rng(seed).permutation(len(y))
        h = len(y) // 2
        for a, b in ((idx[:h], idx[h:]), (idx[h:], idx[:h])):
            bb = fit(x[a], y[a])
            sc = np.hstack([np.ones((len(b), 1)), x[b]]) @ bb
            aucs.append(auroc(sc[y[b] == 1].tolist(), sc[y[b] == 0].tolist()))
    bb = fit(x, y)
    print(
        "abstention AUROC, fit on half / test on half (10 splits):", round(float(np.mean(aucs)), 3)
    )
    print("confidence bias, coef fitted on all:", np.round(bb, 3).tolist())


if __name__ == "__main__":
    main()
