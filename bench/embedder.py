"""Benchmark the default ONNX MiniLM embedder: load time, single-text and batched throughput.

Run: `.venv/bin/python bench/embedder.py`. Prints one block per onnxruntime thread count (1 and 2)
so DEFAULT_THREADS in memory/_onnx_minilm.py can be chosen from numbers measured on this box.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time

from memory.embedding.onnx import OnnxMiniLmEmbedder

SINGLE_CALLS = 300
BATCH_TEXTS = 1000
ROUNDS = 3

_SERVICES = ["checkout-api", "payments", "kafka-broker-3", "auth-gateway", "search-indexer"]
_SHORT = [
    "database connection pool exhausted on {s}",
    "certificate expired for {s}",
    "{s} OOMKilled again",
    "disk full on {s}",
    "rolled back {s}",
]
_MEDIUM = [
    "p99 latency on {s} went from 180ms to 2.4s right after the 14:05 deploy of build {n}",
    "{s} is returning 502s for about {n} requests per minute; the load balancer marks two "
    "of five targets unhealthy",
    "paging the on-call for {s}: error budget burn rate is {n}x over the last hour",
]
_LONG = [
    "Timeline so far: at 09:12 alerts fired for {s}; at 09:15 we saw the connection pool at "
    "100% and queries queueing for more than {n}ms. We failed over the primary at 09:31, which "
    "cleared the backlog, but replication lag on the new replica is still climbing. Next steps: "
    "raise max_connections, find the client leaking connections, and write the postmortem.",
]


def incident_texts(n: int, seed: int = 7) -> list[str]:
    """Mixed-length incident-channel sentences (about 5 : 3 : 1 short : medium : long)."""
    rng = random.Random(seed)
    pools = _SHORT * 5 + _MEDIUM * 3 + _LONG
    return [
        rng.choice(pools).format(s=rng.choice(_SERVICES), n=rng.randint(2, 5000)) for _ in range(n)
    ]


def bench(threads: int) -> None:
    embedder = OnnxMiniLmEmbedder(threads=threads)
    started = time.perf_counter()
    asyncio.run(embedder.warm_up())
    load_s = time.perf_counter() - started

    singles = incident_texts(SINGLE_CALLS, seed=1)
    embedder.embed_sync(singles[:5])  # warm onnxruntime's first-run allocations
    per_call = []
    for text in singles:
        t0 = time.perf_counter()
        embedder.embed_sync([text])
        per_call.append(time.perf_counter() - t0)

    batch = incident_texts(BATCH_TEXTS, seed=2)
    t0 = time.perf_counter()
    embedder.embed_sync(batch)
    batch_s = time.perf_counter() - t0

    async def via_event_loop() -> float:
        t0 = time.perf_counter()
        for text in singles[:100]:
            await embedder.embed([text])
        return (time.perf_counter() - t0) / 100

    async_ms = asyncio.run(via_event_loop()) * 1000
    print(f"intra_op_num_threads={threads}")
    print(f"  load (sha256 x2 + tokenizer + session): {load_s * 1000:.0f} ms")
    print(
        f"  single: {SINGLE_CALLS / sum(per_call):.1f} texts/s, "
        f"p50 {statistics.median(per_call) * 1000:.2f} ms, "
        f"p95 {statistics.quantiles(per_call, n=20)[18] * 1000:.2f} ms"
    )
    print(f"  single via async embed (to_thread): {async_ms:.2f} ms mean")
    print(f"  batched (32 per run, {BATCH_TEXTS} texts): {BATCH_TEXTS / batch_s:.1f} texts/s")


def main() -> None:
    probe = OnnxMiniLmEmbedder()
    print(f"model: {probe.name}  dim={probe.dim}  sha256={probe.digest}")
    # Interleaved rounds: on a shared 2-core box one run is noisy; compare like with like.
    for _ in range(ROUNDS):
        for threads in (1, 2):
            bench(threads)


if __name__ == "__main__":
    main()
