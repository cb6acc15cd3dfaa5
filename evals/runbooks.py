"""Retrieval evaluation: hit@1, hit@3, MRR and abstention AUROC over JSONL query files.

Each line is `{"query": ..., "expected": "<slug>" | null}`. hit@k and MRR are over queries with
an expected slug; AUROC measures how well the confidence separates those from null-expected
queries (1.0 = every answerable query is more confident than every unanswerable one).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.corpus import normalise_slug
from knowledge.ranking import confidence, confidence_features
from knowledge.search import Knowledge
from memory.errors import ValidationError
from memory.text import Mode


class BadQueriesFile(ValidationError):
    def __init__(self, path: Path, line: int, what: str) -> None:
        super().__init__(
            f"{path.name} line {line}: {what}; each line must be a JSON object with "
            '"query" (text) and "expected" (a runbook slug or null).'
        )


@dataclass(frozen=True)
class EvalQuery:
    query: str
    expected: str | None


@dataclass
class EvalReport:
    n: int
    n_answerable: int
    hit1: float
    hit3: float
    mrr: float
    auroc: float | None
    mode: str
    provenance: dict[str, object]
    index_ms: float
    query_ms_p50: float
    query_ms_p95: float
    misses: list[dict[str, object]] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "n": self.n,
            "hit@1": round(self.hit1, 4),
            "hit@3": round(self.hit3, 4),
            "mrr": round(self.mrr, 4),
            "mode": self.mode,
            "provenance": self.provenance,
            "n_answerable": self.n_answerable,
            "index_ms": round(self.index_ms, 1),
            "query_ms_p50": round(self.query_ms_p50, 2),
            "query_ms_p95": round(self.query_ms_p95, 2),
        }
        if self.auroc is not None:
            out["auroc"] = round(self.auroc, 4)
        return out


def load_queries(paths: Sequence[Path]) -> list[EvalQuery]:
    """Read and validate every query file, in order."""
    out: list[EvalQuery] = []
    for path in paths:
        if not path.is_file():
            raise BadQueriesFile(path, 0, "file not found")
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                raise BadQueriesFile(path, number, "not valid JSON") from None
            if not isinstance(record, dict) or not isinstance(record.get("query"), str):
                raise BadQueriesFile(path, number, 'missing "query" text')
            expected = record.get("expected")
            if expected is not None and not isinstance(expected, str):
                raise BadQueriesFile(path, number, '"expected" is neither a slug nor null')
            out.append(EvalQuery(record["query"], normalise_slug(expected) if expected else None))
    return out


def auroc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """Probability a random positive outranks a random negative (ties count half)."""
    if not positive or not negative:
        return float("nan")
    wins = sum((p > q) + 0.5 * (p == q) for p in positive for q in negative)
    return wins / (len(positive) * len(negative))


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


async def evaluate(knowledge: Knowledge, queries: Sequence[EvalQuery], mode: Mode) -> EvalReport:
    """Index (or reuse the index), run every query, and score the rankings."""
    started = time.perf_counter()
    gen = await knowledge.ensure_index()
    index_ms = (time.perf_counter() - started) * 1000
    hits1 = hits3 = 0
    rr = 0.0
    pos: list[float] = []
    neg: list[float] = []
    timings: list[float] = []
    misses: list[dict[str, object]] = []
    used_mode = mode
    for q in queries:
        t0 = time.perf_counter()
        ranked, used_mode, _n_terms = await knowledge.rank(q.query, mode, gen)
        conf = confidence(confidence_features(ranked), knowledge.config, used_mode)
        timings.append((time.perf_counter() - t0) * 1000)
        slugs = [c.slug for _, c in ranked]
        if q.expected is None:
            neg.append(conf)
            continue
        pos.append(conf)
        rank = slugs.index(q.expected) + 1 if q.expected in slugs else 0
        hits1 += rank == 1
        hits3 += 1 <= rank <= 3
        rr += 1 / rank if rank else 0.0
        if rank != 1:
            misses.append({"expected": q.expected, "rank": rank, "top": slugs[:3]})
    n_ans = len(pos)
    return EvalReport(
        n=len(queries),
        n_answerable=n_ans,
        hit1=hits1 / n_ans if n_ans else 0.0,
        hit3=hits3 / n_ans if n_ans else 0.0,
        mrr=rr / n_ans if n_ans else 0.0,
        auroc=auroc(pos, neg) if neg and pos else None,
        mode=used_mode,
        provenance=gen.as_dict(),
        index_ms=index_ms,
        query_ms_p50=_percentile(timings, 50),
        query_ms_p95=_percentile(timings, 95),
        misses=misses,
    )
