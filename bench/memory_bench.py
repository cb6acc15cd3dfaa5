"""Memory speed: save_note latency, batched ingest rate, recall latency with 100k visible notes.

Run: .venv/bin/python -m bench.memory_bench [--notes 100000] [--queries 200]
Bulk load (documented shortcut): the 100k notes go through Notes.save_many with real
redaction, but their vectors are precomputed random unit vectors from `PrecomputedVectors`
(an Embedder with the real model's name, dim and digest), because embedding 100k texts with
MiniLM takes ~15 min on this box. Queries are embedded with the real model.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memory.embedding.embedder import build_embedder
from memory.notes.notes import NoteDraft, Notes
from memory.recall.recall import Recall
from memory.redaction.redactor import Redactor
from memory.scopes import Requester, WriteContext
from memory.store.db import Database
from memory.subjects import Author, SlackIdentity

WORDS = [
    "database",
    "replica",
    "primary",
    "failover",
    "latency",
    "timeout",
    "retry",
    "pool",
    "connection",
    "deploy",
    "rollback",
    "kafka",
    "consumer",
    "lag",
    "broker",
    "partition",
    "redis",
    "cache",
    "eviction",
    "memory",
    "leak",
    "cpu",
    "throttling",
    "pod",
    "kubernetes",
    "node",
    "drain",
    "autoscaler",
    "ingress",
    "nginx",
    "certificate",
    "expired",
    "dns",
    "ttl",
    "record",
    "api",
    "gateway",
    "rate",
    "limit",
    "error",
    "budget",
    "slo",
    "alert",
    "pager",
    "oncall",
    "runbook",
    "postgres",
    "vacuum",
    "index",
    "lock",
    "deadlock",
    "migration",
    "schema",
    "queue",
    "backlog",
    "worker",
    "crash",
    "oom",
    "disk",
    "full",
    "volume",
    "snapshot",
    "backup",
    "restore",
    "region",
    "outage",
    "network",
    "packet",
    "loss",
    "bgp",
    "load",
    "balancer",
    "health",
    "check",
    "canary",
    "feature",
    "flag",
    "config",
    "secret",
    "rotation",
    "token",
    "auth",
    "login",
    "session",
    "checkout",
    "payments",
    "search",
    "indexing",
]
CHANNELS = [f"CBENCH{i}" for i in range(10)]


class PrecomputedVectors:
    """Embedder stand-in for bulk loading only: random unit vectors under the real model's identity."""

    def __init__(self, real: object, seed: int = 7) -> None:
        self.name, self.dim, self.digest = real.name, real.dim, real.digest  # type: ignore[attr-defined]
        self._rng = np.random.default_rng(seed)

    async def warm_up(self) -> None:
        return None

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_sync(texts)

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def sentence(rng: random.Random) -> str:
    return " ".join(
        rng.choices(WORDS, weights=[1 / (i + 1) for i in range(len(WORDS))], k=rng.randint(8, 24))
    )


def ctx(channel: str, user: int) -> WriteContext:
    author = Author.of(SlackIdentity("TBENCH", f"U{user}"), f"user{user}")
    return WriteContext(author, "TBENCH", channel, False, "channel")


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


async def main(n_notes: int, n_queries: int) -> None:
    rng = random.Random(1)
    redactor, embedder = Redactor(), build_embedder("onnx-minilm")
    assert embedder is not None
    await redactor.warm_up()
    await embedder.warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.db")
        notes = Notes(db, redactor, embedder)
        lat = []
        for i in range(200):
            started = time.perf_counter()
            await notes.save(ctx("CSAVE", i % 5), sentence(rng))
            lat.append(time.perf_counter() - started)
        print(
            f"save_note (redaction + embedding + write), 200 notes: p50 {pct(lat, 50):.1f} ms,"
            f" p95 {pct(lat, 95):.1f} ms"
        )
        for label, emb, later in [
            ("vectors in the same transaction", embedder, False),
            ("vectors later (accepted, keyword-searchable)", embedder, True),
            ("keyword-only (no embedder)", None, False),
        ]:
            batch_notes = Notes(db, redactor, emb)
            drafts = [NoteDraft(ctx("CBATCH", i % 5), sentence(rng)) for i in range(1000)]
            started = time.perf_counter()
            for start in range(0, len(drafts), 100):
                await batch_notes.save_many(drafts[start : start + 100], vectors_later=later)
            accepted = time.perf_counter() - started
            print(
                f"batched ingest, {label}, 1000 notes in batches of 100: "
                f"{len(drafts) / accepted:.0f} notes/s"
            )
            if later:
                started = time.perf_counter()
                drained = await batch_notes.index_missing_vectors()
                drain = time.perf_counter() - started
                print(
                    f"  vector job drained {drained} notes at {drained / drain:.0f} notes/s; "
                    f"accept + drain {drained / (accepted + drain):.0f} notes/s"
                )

        bulk = Notes(db, redactor, PrecomputedVectors(embedder))  # type: ignore[arg-type]
        started = time.perf_counter()
        for start in range(0, n_notes, 1000):
            await bulk.save_many(
                [
                    NoteDraft(ctx(CHANNELS[i % len(CHANNELS)], i % 50), sentence(rng))
                    for i in range(start, min(n_notes, start + 1000))
                ]
            )
        load_s = time.perf_counter() - started
        print(
            f"bulk load {n_notes} notes (redaction, precomputed vectors): {load_s:.0f} s "
            f"({n_notes / load_s:.0f} notes/s)"
        )
        recall = Recall(db, embedder)
        asker = Requester(
            "TBENCH/UASK", "TBENCH", channel_id=CHANNELS[0], member_channel_ids=frozenset(CHANNELS)
        )
        for mode in ("keyword", "semantic", "hybrid"):
            lat = []
            for _ in range(n_queries):
                query = " ".join(rng.sample(WORDS, rng.randint(2, 6)))
                started = time.perf_counter()
                await recall.recall(asker, query, k=8, mode=mode)  # type: ignore[arg-type]
                lat.append(time.perf_counter() - started)
            print(
                f"recall {mode}, {n_notes} visible notes, {n_queries} queries: "
                f"p50 {pct(lat, 50):.1f} ms, p95 {pct(lat, 95):.1f} ms"
            )
        print(
            f"notes visible: {await db.scalar('SELECT count(*) FROM memory_notes')} total rows, "
            f"spread over {len(CHANNELS)} member channels; median of "
            f"{statistics.median([len(sentence(rng).split()) for _ in range(100)])} words/note"
        )
        await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.notes, args.queries))
