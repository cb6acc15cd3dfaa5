"""Benchmark: redaction latency on incident-like text, and leaks / kept words on probe files.

Run: .venv/bin/python -m bench.redaction [--messages 500] [--seed 7]
     .venv/bin/python -m bench.redaction --probes tests/memory/probes/secrets.jsonl [--probes F2]
A probe is one JSON object a line: {"family", "text", "must_not_contain", "must_keep"}; a leak is
a must_not_contain substring still in the output, a kept word a must_keep substring that is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from memory.redaction.redactor import RedactionPolicy, Redactor

_OPS = [
    "payments-api returned HTTP 503 for {n} minutes starting 14:32 UTC",
    "pod api-7d9f8b6c5-x2k4j exited with exit code 137 (OOMKilled) on node-pool-b",
    "rolled out v2.3.{n} to the 1.27.4 cluster at 2026-11-30T12:00Z, canary at 10%",
    "ECONNRESET from checkout-svc to ledger-svc, retries exhausted after {n} attempts",
    "failover to db-primary-01.prod.example.com finished in {n}00 ms, replica lag 4000 ms",
    "p99 latency went from 230ms to 2.{n}s; 1,234 req/s at peak, error budget burn 14.4x",
    "reverted commit a1b2c3d; see https://grafana.example.com/d/abc123/payments?orgId=1",
    "Kafka consumer lag {n}25000 on topic orders.v2, partition 7, rebalancing since 09:15",
]
_SECRETS = [
    "password={w}2024",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp{n}",
    "customer jane.doe{n}@example.com called (212) 555-0198",
    "curl -H 'Authorization: Bearer sk_live_4eC39HqLyjWDarjtT1zd{n}'",
    "ghp_abcdefghijklmnopqrstuvwxyz012345678{n}",
]
_PATHOLOGICAL_CHARS = 40_000
# Runs that make a careless regex (or tokenizer) backtrack: one character, a repeated key or
# prefix, an unclosed PEM header, base64 without an end.
_PATHOLOGICAL_SEEDS = {
    "a": "a",
    "=": "=",
    "_": "_",
    "-": "-",
    "space": " ",
    "base64": "Zm9vYmFyQmF6+/09",
    "key=": "key=",
    "password=": "password=",
    "token ": "token ",
    "-----BEGIN": "-----BEGIN ",
    "unclosed pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq98\n",
    "xoxb-": "xoxb-",
    "xoxb-1-": "xoxb-1-\n",
    "a://b:": "a://b:",
    "a:b@": "a:b@",
    "eyJ.": "eyJ.",
    "//": "//",
    "--password ": "--password ",
    "mysql -p": "mysql -p",
    "hex": "0123456789abcdef",
    "a-": "a-",
    "a_": "a_",
}


def messages(count: int, seed: int) -> list[str]:
    """~200-character messages: two or three ops lines, a secret in about one in five."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = [rng.choice(_OPS) for _ in range(rng.choice((2, 3)))]
        if rng.random() < 0.2:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(_SECRETS))
        text = "; ".join(
            p.format(n=rng.randrange(10), w=rng.choice(["hunter", "s3cret"])) for p in parts
        )
        out.append(text[:240])
    return out


def pathological() -> dict[str, str]:
    """Each seed repeated to 40,000 characters."""
    n = _PATHOLOGICAL_CHARS
    return {name: (seed * (n // len(seed) + 1))[:n] for name, seed in _PATHOLOGICAL_SEEDS.items()}


def _percentiles(timings_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(timings_ms)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def _timed(redact: Callable[[str], str], text: str) -> tuple[str, float]:
    t0 = time.perf_counter()
    out = redact(text)
    return out, (time.perf_counter() - t0) * 1000


def run_probes(redactor: Redactor, paths: list[Path]) -> None:
    """Leaks per family, kept-word rate and timings for each probe file, then the worst case."""

    def redact(text: str) -> str:
        return redactor.redact_sync(text).text

    for path in paths:
        raw = path.read_bytes()
        probes = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        leaks: dict[str, int] = defaultdict(int)
        secrets: dict[str, int] = defaultdict(int)
        kept = wanted = 0
        timings: list[float] = []
        lost: list[str] = []
        for probe in probes:
            out, ms = _timed(redact, probe["text"])
            timings.append(ms)
            family = probe.get("family", "?")
            for value in probe.get("must_not_contain", []):
                secrets[family] += 1
                leaks[family] += value in out
            for word in probe.get("must_keep", []):
                wanted += 1
                if word in out:
                    kept += 1
                else:
                    lost.append(word)
        p50, p95 = _percentiles(timings)
        mean_chars = statistics.mean(len(p["text"]) for p in probes)
        print(
            f"\nprobes: {path} sha256 {hashlib.sha256(raw).hexdigest()[:16]} ({len(probes)} lines)"
        )
        print(f"{'family':<16}{'values':>8}{'leaks':>7}")
        for family in sorted(secrets):
            print(f"{family:<16}{secrets[family]:>8}{leaks[family]:>7}")
        print(f"leaks total: {sum(leaks.values())} of {sum(secrets.values())} values")
        rate = 100 * kept / wanted if wanted else 100.0
        print(f"kept words: {kept}/{wanted} = {rate:.1f}%")
        if lost:
            print("  lost (first 10): " + ", ".join(repr(w) for w in lost[:10]))
        print(f"redact_sync: p50 {p50:.2f} ms  p95 {p95:.2f} ms  (mean {mean_chars:.0f} chars)")

    # CPU time too: on a busy machine wall time also counts other processes' turns.
    print(f"\nworst case, {_PATHOLOGICAL_CHARS:,} characters (wall ms, cpu ms):")
    worst = ("", 0.0, 0.0)
    for name, text in pathological().items():
        cpu0 = time.process_time()
        _, ms = _timed(redact, text)
        cpu_ms = (time.process_time() - cpu0) * 1000
        print(f"  {name!r:<18} {ms:9.1f} {cpu_ms:9.1f}")
        worst = max(worst, (name, ms, cpu_ms), key=lambda w: w[1])
    print(f"worst: {worst[0]!r} {worst[1]:.1f} ms wall, {worst[2]:.1f} ms cpu")


def run_latency(redactor: Redactor, count: int, seed: int) -> None:
    """The original mode: p50/p95 on synthetic ~200-character incident messages."""
    texts = messages(count, seed)
    timings_ms = []
    redacted = 0
    for text in texts:
        t0 = time.perf_counter()
        out = redactor.redact_sync(text)
        timings_ms.append((time.perf_counter() - t0) * 1000)
        redacted += out.removed_any
    p50, p95 = _percentiles(timings_ms)
    mean_chars = statistics.mean(len(t) for t in texts)
    print(f"messages: {len(texts)} (mean {mean_chars:.0f} chars, {redacted} had findings)")
    mean = statistics.mean(timings_ms)
    print(f"redact_sync: p50 {p50:.2f} ms  p95 {p95:.2f} ms  mean {mean:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--redact-ips", action="store_true")
    parser.add_argument("--probes", type=Path, action="append", default=[])
    args = parser.parse_args()

    policy = RedactionPolicy(redact_ip_addresses=args.redact_ips)
    redactor = Redactor(policy)
    start = time.perf_counter()
    names = redactor.recognizer_names()  # builds the engines
    build_s = time.perf_counter() - start
    redactor.redact_sync("warm up")  # first call compiles regexes lazily; not what we measure

    mode = "probes" if args.probes else "latency"
    print(
        f"mode: {mode}; presidio offline, blank spaCy 'en' + lowercase-lemma component, "
        f"{len(names)} recognizers, ip={policy.redact_ip_addresses}, names=False"
    )
    print(f"engine build: {build_s * 1000:.0f} ms")
    if args.probes:
        run_probes(redactor, args.probes)
    else:
        run_latency(redactor, args.messages, args.seed)


if __name__ == "__main__":
    main()
