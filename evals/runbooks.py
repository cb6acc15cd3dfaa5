"""Retrieval evaluation: hit@1, hit@3, MRR and abstention AUROC over JSONL query files.

Each line is `{"query": ..., "expected": "<slug>" | null}`, optionally with `"section"` (the heading
that answers it). hit@k and MRR are over queries with an expected slug; AUROC measures how well the
confidence separates those from null-expected queries (1.0 = every answerable query is more
confident than every unanswerable one).

What a person sees is measured too, through `Knowledge.search` (abstention included): `shown@1`
(the top runbook shown is the expected one), `abstained_answerable` (the share of answerable
queries refused) and, over queries with a `section`, `section@1` / `section@3` (the first / one of
the first three citations is the expected runbook *and* section; an abstention is a miss).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.corpus import normalise_slug
from knowledge.ranking import confidence, confidence_features, question_shifted
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
    section: str | None = None


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
    shown1: float = 0.0
    abstained_answerable: float = 0.0
    n_sections: int = 0
    section1: float | None = None
    section3: float | None = None
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
        if self.n_answerable:
            out["shown@1"] = round(self.shown1, 4)
            out["abstained_answerable"] = round(self.abstained_answerable, 4)
        if self.section1 is not None and self.section3 is not None:
            out["n_sections"] = self.n_sections
            out["section@1"] = round(self.section1, 4)
            out["section@3"] = round(self.section3, 4)
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
            section = record.get("section")
            if section is not None and (not isinstance(section, str) or not expected):
                raise BadQueriesFile(
                    path, number, '"section" must be a heading, given with an expected slug'
                )
            out.append(
                EvalQuery(
                    record["query"],
                    normalise_slug(expected) if expected else None,
                    section.strip() if section else None,
                )
            )
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
        conf = confidence(
            confidence_features(ranked),
            knowledge.config,
            used_mode,
            question=question_shifted(q.query, ranked),
        )
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
    shown, sections = await _as_shown(knowledge, queries, mode)
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
        shown1=shown.hit1,
        abstained_answerable=shown.abstained,
        n_sections=len(sections),
        section1=sum(r <= 1 for r in sections if r) / len(sections) if sections else None,
        section3=sum(r <= 3 for r in sections if r) / len(sections) if sections else None,
        misses=misses + shown.misses,
    )


@dataclass
class _Shown:
    hit1: float = 0.0
    abstained: float = 0.0
    misses: list[dict[str, object]] = field(default_factory=list)


def section_matches(expected: str, heading_path: Sequence[str], heading: str) -> bool:
    """Whether a citation is the expected section (or one of its subsections)."""
    want = " ".join(expected.lower().split())
    return any(" ".join(h.lower().split()) == want for h in (*heading_path, heading))


async def _as_shown(
    knowledge: Knowledge, queries: Sequence[EvalQuery], mode: Mode
) -> tuple[_Shown, list[int]]:
    """What a person sees for every answerable query: (top-runbook and abstention rates, the
    1-based citation rank of the expected section per sectioned query, 0 when not cited)."""
    out = _Shown()
    section_ranks: list[int] = []
    answerable = [q for q in queries if q.expected is not None]
    for q in answerable:
        result = await knowledge.search(q.query, limit=3, mode=mode)
        top = result.hits[0].slug if result.hits else None
        out.hit1 += (not result.abstained) and top == q.expected
        out.abstained += result.abstained
        cites = [(h.slug, s) for h in result.hits for s in h.sections]
        if q.section is not None:
            rank = next(
                (
                    i
                    for i, (slug, s) in enumerate(cites, 1)
                    if slug == q.expected and section_matches(q.section, s.heading_path, s.heading)
                ),
                0,
            )
            section_ranks.append(rank)
            if rank != 1:
                first = f"{cites[0][0]} › {cites[0][1].heading}" if cites else "abstained"
                out.misses.append(
                    {"expected": f"{q.expected} › {q.section}", "rank": rank, "top": [first]}
                )
    if answerable:
        out.hit1 /= len(answerable)
        out.abstained /= len(answerable)
    return out, section_ranks
