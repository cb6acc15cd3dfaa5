"""CLI commands for runbook knowledge: `opsmemory index` and `opsmemory eval runbooks`."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bot.preflight import check_runbooks, runbooks_path
from bot.settings import Settings
from knowledge.search import Knowledge
from memory.embedding.embedder import build_embedder
from memory.store import Database
from memory.text import MODES

DEFAULT_MODE = "hybrid"  # chosen by measurement: see the README's retrieval table


def add_index_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "index",
        help="Build or reuse the runbook index (reused when corpus and embedder are unchanged).",
        description="Build the runbook search index for the configured corpus and embedder.",
    )
    p.add_argument(
        "--corpus", type=Path, default=None, help="Runbooks directory (default: settings)."
    )
    p.set_defaults(handler=run_index)


async def run_index(args: argparse.Namespace, settings: Settings) -> int:
    """Exit 2 before touching the database when the corpus is missing or (unless allowed) empty."""
    corpus = args.corpus or runbooks_path(settings)
    await check_runbooks(
        corpus,
        allow_empty=settings.runbooks_allow_empty,
        variable="--corpus" if args.corpus else "OPSMEMORY_RUNBOOKS_DIR",
    )
    db = await Database.open(settings.database_path)
    try:
        knowledge = Knowledge(db, corpus, _embedder(settings), runbooks_url=settings.runbooks_url)
        gen = await knowledge.ensure_index()
        skipped = (await knowledge.corpus()).skipped
    finally:
        await db.close()
    for rel, reason in skipped:
        print(f"skipped {rel}: {reason}", file=sys.stderr)
    print(json.dumps(gen.as_dict(), indent=2))
    return 0


def add_eval_runbooks_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "runbooks",
        help="Measure runbook retrieval (hit@1, hit@3, MRR, AUROC, section@k) on labelled queries.",
        description="Evaluate runbook search on JSONL files of {query, expected slug or null}.",
    )
    p.add_argument("--corpus", type=Path, required=True, help="Runbooks directory to search.")
    p.add_argument(
        "--queries",
        type=Path,
        action="append",
        required=True,
        help="JSONL queries file; repeat to mix files (e.g. answerable and no-runbook queries).",
    )
    p.add_argument("--mode", choices=MODES, default=DEFAULT_MODE, help="Retrieval mode.")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="Where to keep the index between runs (default: a fresh temporary directory).",
    )
    p.add_argument("--json", action="store_true", help="End with one JSON object on the last line.")
    p.add_argument(
        "--misses", action="store_true", help="List queries whose runbook was not first."
    )
    p.set_defaults(handler=run_eval_runbooks)


async def run_eval_runbooks(args: argparse.Namespace, settings: Settings) -> int:
    from evals.runbooks import evaluate, load_queries  # evals is never imported at run time

    queries = load_queries(args.queries)
    with tempfile.TemporaryDirectory(prefix="opsmemory-eval-") as tmp:
        data_dir = args.data_dir or Path(tmp)
        db = await Database.open(data_dir / "eval-index.db")
        try:
            knowledge = Knowledge(db, args.corpus, _embedder(settings))
            report = await evaluate(knowledge, queries, args.mode)
        finally:
            await db.close()
    print(f"n={report.n} (with a runbook: {report.n_answerable})  mode={report.mode}")
    print(f"hit@1={report.hit1:.3f}  hit@3={report.hit3:.3f}  MRR={report.mrr:.3f}")
    if report.auroc is not None:
        print(f"abstention AUROC={report.auroc:.3f}")
    if report.n_answerable:
        print(
            f"as shown: top runbook right {report.shown1:.3f},"
            f" answerable abstained {report.abstained_answerable:.1%}"
        )
    if report.section1 is not None and report.section3 is not None:
        print(
            f"section@1={report.section1:.3f}  section@3={report.section3:.3f}"
            f"  (n={report.n_sections})"
        )
    print(
        f"index {report.index_ms:.0f} ms; query p50 {report.query_ms_p50:.1f} ms,"
        f" p95 {report.query_ms_p95:.1f} ms"
    )
    for key, value in report.provenance.items():
        print(f"  {key}: {value}")
    if args.misses:
        for miss in report.misses:
            print(f"  miss: expected {miss['expected']} at rank {miss['rank']}, top {miss['top']}")
    if args.json:
        print(json.dumps(report.as_json(), sort_keys=True))
    return 0


def _embedder(settings: Settings):  # Embedder | None, imported lazily by build_embedder
    return build_embedder(
        settings.embedder,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_embed_model,
        timeout_s=settings.ollama_timeout_s,
    )
