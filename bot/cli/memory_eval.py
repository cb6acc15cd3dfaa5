"""`opsmemory eval memory`: LoCoMo / LongMemEval recall through the real memory write path."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.settings import Settings
    from memory.text import Mode


def _ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(
            "--k takes numbers separated by commas, e.g. 5,10,25"
        ) from None
    if not ks or ks[0] < 1 or ks[-1] > 100:
        raise argparse.ArgumentTypeError("--k values must be between 1 and 100")
    return ks


def add_eval_memory_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `memory` under the `eval` subcommands."""
    parser = sub.add_parser(
        "memory",
        help="Score memory recall on LoCoMo or LongMemEval (ingests through the real write path).",
        description="Ingest a benchmark turn by turn with redaction and embedding, then score "
        "recall@k of the evidence turns for every question.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--locomo", type=Path, metavar="FILE", help="locomo10.json")
    source.add_argument(
        "--longmemeval", type=Path, metavar="FILE", help="longmemeval_s_cleaned_useronly.json.gz"
    )
    parser.add_argument(
        "--granularity",
        choices=("session", "turn"),
        default="turn",
        help="LongMemEval: score sessions or turns (default turn)",
    )
    parser.add_argument("--k", type=_ks, default=(5, 10, 25), help="cut-offs, e.g. 5,10,25")
    parser.add_argument(
        "--mode",
        choices=("keyword", "semantic", "hybrid"),
        default="hybrid",
        help="which retrieval lists to use (default hybrid)",
    )
    parser.add_argument(
        "--limit-conversations",
        type=int,
        default=None,
        metavar="N",
        help="LoCoMo: only the first N conversations",
    )
    parser.add_argument(
        "--limit-questions",
        type=int,
        default=None,
        metavar="N",
        help="LongMemEval: only the first N questions",
    )
    parser.add_argument(
        "--half-life-hours",
        type=float,
        default=None,
        help="recency half-life during the eval (default: no decay)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="keep the evaluation database here (default: a temporary directory)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    parser.set_defaults(handler=run_eval_memory)
    return parser


async def run_eval_memory(args: argparse.Namespace, settings: Settings) -> int:
    """Run the evaluation; print a table (and JSON with --json); return the exit code."""
    from evals.memory import MemoryEval
    from memory.embedding.embedder import build_embedder
    from memory.recall.recall import RecallConfig
    from memory.redaction.redactor import RedactionPolicy, Redactor
    from memory.store.db import Database

    embedder = build_embedder(
        settings.embedder,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_embed_model,
        timeout_s=settings.ollama_timeout_s,
    )
    redactor = Redactor(
        RedactionPolicy(
            redact_ip_addresses=settings.redact_ip_addresses,
            redact_person_names=settings.redact_person_names,
            ner_model=settings.ner_model,
        )
    )
    await redactor.warm_up()
    if embedder is not None:
        await embedder.warm_up()
    with tempfile.TemporaryDirectory(prefix="opsmemory-eval-") as tmp:
        workdir = args.workdir or Path(tmp)
        db = await Database.open(workdir / "eval.db")
        try:
            runner = MemoryEval(
                db,
                redactor,
                embedder,
                mode=args.mode,
                config=RecallConfig(half_life_hours=args.half_life_hours),
                progress=lambda msg: print(msg, file=sys.stderr, flush=True),
            )
            if args.locomo is not None:
                report = await runner.locomo(args.locomo, args.k, limit=args.limit_conversations)
            else:
                report = await runner.longmemeval(
                    args.longmemeval,
                    args.k,
                    granularity=args.granularity,
                    limit=args.limit_questions,
                )
        finally:
            await db.close()
    print(
        f"{report.benchmark}  mode={report.mode}  embedder={report.embedder}  n={report.n}  "
        f"notes={report.notes}  ingest={report.ingest_s:.1f}s  queries={report.query_s:.1f}s"
    )
    names = [
        m for m in report.metrics if not m.startswith("recall@") or report.benchmark == "locomo"
    ]
    for name in names:
        print(f"  {name:<16} {report.metrics[name]:.3f}")
    for group, values in report.by_group.items():
        cells = "  ".join(
            f"{k}={v:.3f}" for k, v in values.items() if k.startswith(("recall", "n"))
        )
        print(f"  [{group}] {cells}")
    if args.json:
        print(json.dumps(report.as_json()))
    return 0


def add_eval_calibrate_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `calibrate` under the `eval` subcommands."""
    parser = sub.add_parser(
        "calibrate",
        help="Fit memory's relevance floor on a LoCoMo-format file (held-out folds reported).",
        description="Ingest the conversations, ask each question in its own channel and in "
        "another, fit the floor that decides what answers a question and when memory has "
        "nothing, and print fitted and leave-one-conversation-out figures.",
    )
    parser.add_argument("--locomo", type=Path, metavar="FILE", required=True)
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    parser.set_defaults(handler=run_eval_calibrate)
    return parser


async def run_eval_calibrate(args: argparse.Namespace, settings: Settings) -> int:
    """Fit the floor for hybrid and keyword-only search; print the configs and the figures."""
    from evals import calibrate
    from evals.memory import MemoryEval
    from memory.recall.recall import RecallConfig
    from memory.store.db import Database

    redactor, embedder = await _parts(settings)
    result: dict[str, object] = {"benchmark": "calibrate"}
    with tempfile.TemporaryDirectory(prefix="opsmemory-calibrate-") as tmp:
        db = await Database.open(Path(tmp) / "eval.db")
        try:
            runner = MemoryEval(db, redactor, embedder, config=RecallConfig(half_life_hours=None))
            channels = await calibrate.ingest(runner, args.locomo)
            modes: tuple[Mode, ...] = ("hybrid", "keyword") if embedder else ("keyword",)
            for mode in modes:
                cases = await calibrate.collect(runner, args.locomo, channels, mode=mode)
                config = calibrate.fit(cases, keyword_only=mode == "keyword")
                fitted = calibrate.score(config, cases)
                held = calibrate.held_out(cases, keyword_only=mode == "keyword")
                print(f"{mode}: {config!r}")
                for name in fitted:
                    print(f"  {name:<14} fitted {fitted[name]:.3f}  held-out {held[name]:.3f}")
                result[mode] = {
                    "config": vars(config),
                    "fitted": {k: round(v, 4) for k, v in fitted.items()},
                    "held_out": {k: round(v, 4) for k, v in held.items()},
                }
        finally:
            await db.close()
    if args.json:
        print(json.dumps(result))
    return 0


async def _parts(settings: Settings) -> tuple[Any, Any]:
    """The redactor and embedder the settings name, warmed up."""
    from memory.embedding.embedder import build_embedder
    from memory.redaction.redactor import RedactionPolicy, Redactor

    embedder = build_embedder(
        settings.embedder,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_embed_model,
        timeout_s=settings.ollama_timeout_s,
    )
    redactor = Redactor(
        RedactionPolicy(
            redact_ip_addresses=settings.redact_ip_addresses,
            redact_person_names=settings.redact_person_names,
            ner_model=settings.ner_model,
        )
    )
    await redactor.warm_up()
    if embedder is not None:
        await embedder.warm_up()
    return redactor, embedder
