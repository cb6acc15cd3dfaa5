"""Runbook index build time and warm search latency on a ~400-runbook corpus.

Combines the shared prometheus-operator (108) and openshift (272) runbook sets and the project's
built-in runbooks into one temporary corpus (symlink-free copies under a temp dir, never in the
project), then tops it up to `--runbooks` (default 400) with renamed copies of shared runbooks,
so the index has the size the target names; skips cleanly if the shared sets are absent.
Usage: python bench/knowledge.py [--data DIR] [--queries N]
"""

from __future__ import annotations

import sys
from pathlib import Path

# ruff: noqa: E402  # imports must follow the sys.path fix below
# Run as a script, this folder is sys.path[0] and bench/knowledge.py would shadow the package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from knowledge.search import Knowledge
from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.store.db import Database

DEFAULT_DATA = Path("/work/shared/data/runbooks")


BUILT_IN = Path(__file__).resolve().parent.parent / "knowledge" / "runbooks"


def _combine(data: Path, into: Path, total: int) -> int:
    """Shared sets + built-in runbooks, topped up to `total` with renamed copies of shared ones."""
    for sub in ("prometheus-operator", "openshift"):
        src = data / sub
        if src.is_dir():
            shutil.copytree(src, into / sub, ignore=shutil.ignore_patterns("*.json", "LICENSE"))
    shutil.copytree(BUILT_IN, into / "built-in", ignore=shutil.ignore_patterns("LICENSE*"))
    files = sorted(into.rglob("*.md"))
    shared = [f for f in files if "built-in" not in f.parts]
    (into / "copies").mkdir()
    for i in range(max(0, total - len(files))):
        src = shared[i % len(shared)]
        shutil.copyfile(src, into / "copies" / f"copy-{i}-{src.name}")
    # Equal stems in two folders are a documented DuplicateRunbook error, so later copies of a
    # stem (e.g. alertmanager-failed-reload in both shared sets) get their folder as a prefix.
    seen: set[str] = set()
    for f in sorted(into.rglob("*.md")):
        if f.stem in seen:
            f.rename(f.with_name(f"{f.parent.name}-{f.name}"))
        seen.add(f.stem)
    return len(list(into.rglob("*.md")))


def _queries(data: Path, limit: int) -> list[str]:
    out: list[str] = []
    for name in ("queries-alerts.jsonl", "queries-openshift-alerts.jsonl"):
        path = data / name
        if path.is_file():
            out += [json.loads(line)["query"] for line in path.read_text().splitlines() if line]
    return out[:limit]


async def main(data: Path, n_queries: int, n_runbooks: int, keep: Path | None = None) -> int:
    if not (data / "prometheus-operator").is_dir():
        print(f"skip: {data} has no runbook corpora")
        return 0
    with tempfile.TemporaryDirectory(prefix="opsmemory-bench-") as tmp:
        root = keep or Path(tmp)
        if (root / "corpus").is_dir():  # kept from an earlier run: its index is reused
            n_runbooks = len(list((root / "corpus").rglob("*.md")))
        else:
            n_runbooks = _combine(data, root / "corpus", n_runbooks)
        db = await Database.open(root / "bench.db")
        embedder = OnnxMiniLmEmbedder()
        await embedder.warm_up()
        knowledge = Knowledge(db, root / "corpus", embedder)
        t0 = time.perf_counter()
        gen = await knowledge.ensure_index()
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        await Knowledge(db, root / "corpus", embedder).ensure_index()
        reuse_ms = (time.perf_counter() - t0) * 1000
        print(f"runbooks={n_runbooks} indexed={gen.runbook_count} chunks={gen.chunk_count}")
        print(
            f"full index build: {build_s:.1f} s (embedding included); reuse check: {reuse_ms:.0f} ms"
        )
        queries = _queries(data, n_queries)
        times = []
        for q in queries:  # the query embedding alone: the floor under semantic and hybrid
            t0 = time.perf_counter()
            await embedder.embed([q])
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        print(
            f"embed one query n={len(times)} p50={statistics.median(times):.1f} ms"
            f" p95={times[int(0.95 * (len(times) - 1))]:.1f} ms"
        )
        for mode in ("keyword", "semantic", "hybrid"):
            await knowledge.search(queries[0], mode=mode)  # warm caches
            times = []
            for q in queries:
                t0 = time.perf_counter()
                await knowledge.search(q, mode=mode)
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            p95 = times[int(0.95 * (len(times) - 1))]
            print(
                f"search {mode:8s} n={len(times)} p50={statistics.median(times):.1f} ms"
                f" p95={p95:.1f} ms max={times[-1]:.1f} ms"
            )
        await db.close()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runbooks", type=int, default=400)
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="keep the corpus and index in this directory and reuse them on the next run"
        " (latency can be re-measured without the build)",
    )
    ns = parser.parse_args()
    if ns.keep is not None:
        ns.keep.mkdir(parents=True, exist_ok=True)
    sys.exit(asyncio.run(main(ns.data, ns.queries, ns.runbooks, ns.keep)))
