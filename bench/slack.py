"""Benchmark the Slack edge against the local stand-in (no Slack, no LLM) and print numbers:

ack latency p50/p99 for N concurrent mentions (each in its own incident channel, so per-channel
pacing does not serialise them), mention → first answer posted p50/p95 (concurrent and one at a
time), and RSS of this process (bot + stand-in) after start-up.

  python -m bench.slack --notes 10000 --runbooks 400 --mentions 50
  python -m bench.slack --notes 100000 --runbooks 400 --precomputed-vectors

--precomputed-vectors loads the notes through Notes.save_many with real redaction but random
unit vectors under the real model's identity (embedding 100k texts with MiniLM takes ~15 min here);
questions are still embedded with the real model, so the search work per mention is real.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bot.app import build_app
from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver
from memory.incidents import Incidents
from memory.notes.notes import NoteDraft, Notes
from memory.scopes import WriteContext
from memory.subjects import Author, SlackIdentity

SECRET = "bench-signing-secret"
TEAM = "T0STANDIN"
WORDS = [
    "checkout",
    "payments",
    "db-3",
    "latency",
    "p99",
    "deploy",
    "rollback",
    "cache",
    "redis",
    "kafka",
    "lag",
    "pod",
    "crashloop",
    "oom",
    "node",
    "disk",
    "full",
    "cert",
    "expired",
    "dns",
    "timeout",
    "502",
    "ingress",
    "replica",
    "failover",
    "queue",
    "backlog",
    "cpu",
    "throttling",
    "memory",
    "leak",
]
RUNBOOK_DIR = Path(__file__).resolve().parents[1] / "knowledge" / "runbooks"


def current_rss_mb() -> float:
    """Resident set size now (Linux /proc), falling back to the peak from getrusage."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stage_totals(runtime) -> dict[str, tuple[float, int]]:  # type: ignore[no-untyped-def]
    """(seconds, count) per answering stage, from the bot's own /metrics histograms."""
    families = runtime.deps.metrics.registry.collect()
    (family,) = [f for f in families if f.name == "opsmemory_retrieval_seconds"]
    sums = {s.labels["what"]: s.value for s in family.samples if s.name.endswith("_sum")}
    counts = {s.labels["what"]: int(s.value) for s in family.samples if s.name.endswith("_count")}
    return {what: (sums[what], counts[what]) for what in sums}


def stage_means_ms(
    after: dict[str, tuple[float, int]], before: dict[str, tuple[float, int]]
) -> dict[str, float]:
    """Mean ms per stage over the mentions answered between two snapshots."""
    out = {}
    for name, (total, count) in after.items():
        t0, c0 = before.get(name, (0.0, 0))
        out[name] = (total - t0) / max(1, count - c0) * 1000
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def make_runbooks(target: Path, count: int, rng: random.Random) -> int:
    """The project's runbooks plus synthetic ones up to `count` (3 sections each)."""
    target.mkdir(parents=True)
    real = sorted(RUNBOOK_DIR.glob("*.md"))
    for f in real[:count]:
        shutil.copy(f, target / f.name)
    for i in range(max(0, count - len(real))):
        topic = " ".join(rng.sample(WORDS, 3))
        body = "\n\n".join(
            f"## {name}\n\n" + " ".join(rng.choices(WORDS, k=60)) + "."
            for name in ("Symptoms", "Diagnosis", "Mitigation")
        )
        (target / f"synthetic-{i:04d}.md").write_text(f"# {topic.title()} {i}\n\n{body}\n")
    return len(list(target.glob("*.md")))


async def load_notes(  # type: ignore[no-untyped-def]
    runtime, channels: list[str], count: int, rng: random.Random, *, precomputed: bool
) -> float:
    started = time.perf_counter()
    notes = runtime.deps.notes
    if precomputed:
        from bench.memory_bench import PrecomputedVectors
        from memory.embedding.embedder import build_embedder

        identity = build_embedder("onnx-minilm")  # name, dim and digest only; never run
        notes = Notes(runtime.deps.db, runtime.deps.redactor, PrecomputedVectors(identity))
    ident = SlackIdentity(team_id=TEAM, user_id="U0BENCH")
    author = Author.of(ident, "bench")
    incidents = Incidents(runtime.deps.db, channel_pattern="^inc-")
    for ch in channels:
        await incidents.recognise_channel(TEAM, ch, f"inc-{ch[-4:]}-bench", False)
    batch: list[NoteDraft] = []
    for i in range(count):
        ch = channels[i % len(channels)]
        ctx = WriteContext(
            author=author, team_id=TEAM, channel_id=ch, channel_is_private=False, scope="channel"
        )
        batch.append(NoteDraft(ctx, " ".join(rng.choices(WORDS, k=14))))
        if len(batch) == 500:
            await notes.save_many(batch)
            batch = []
    if batch:
        await notes.save_many(batch)
    return time.perf_counter() - started


async def mention_round(
    slack: FakeSlack, driver: SlackDriver, channels: list[str], user: str
) -> tuple[list[float], list[float]]:
    """One concurrent mention per channel; returns (ack latencies, first-answer latencies)."""
    starts: dict[str, float] = {}

    async def one(ch: str) -> float:
        starts[ch] = time.monotonic()
        (d,) = await driver.mention(
            ch, user, "checkout p99 latency after deploy, what now?", also_message=False
        )
        return d.elapsed_s

    before = len(slack.calls)
    acks = await asyncio.gather(*(one(ch) for ch in channels))
    firsts: dict[str, float] = {}
    deadline = time.monotonic() + 60
    while len(firsts) < len(channels) and time.monotonic() < deadline:
        for call in slack.calls[before:]:
            ch = str(call.body.get("channel"))
            if call.method == "chat.postMessage" and ch in starts and ch not in firsts:
                firsts[ch] = call.at - starts[ch]
        await asyncio.sleep(0.01)
    return list(acks), list(firsts.values())


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(7)
    tmp = Path(tempfile.mkdtemp(prefix="opsmemory-bench-"))
    slack = FakeSlack()
    ws = slack.workspace
    ws.add_user("U0ALICE", "alice")
    channels = [f"C0BENCH{i:04d}" for i in range(args.mentions)]
    for ch in channels:
        ws.add_channel(ch, f"inc-{ch[-4:]}-bench", members=["U0ALICE"])
    await slack.start()
    n_runbooks = make_runbooks(tmp / "runbooks", args.runbooks, rng)
    settings = Settings(
        _env_file=None,
        data_dir=tmp / "data",
        runbooks_dir=tmp / "runbooks",  # type: ignore[call-arg]
        slack_bot_token=ws.bot_token,
        slack_signing_secret=SECRET,
        slack_api_url=slack.api_url,
        embedder=args.embedder,
    )
    t0 = time.perf_counter()
    runtime = await build_app(settings)
    await runtime.warm_up()
    port = await runtime.start_http(host="127.0.0.1", port=0)
    start_s = time.perf_counter() - t0
    rss_mb = current_rss_mb()
    load_s = await load_notes(
        runtime, channels, args.notes, rng, precomputed=args.precomputed_vectors
    )
    try:
        async with SlackDriver(f"http://127.0.0.1:{port}/slack/events", SECRET, slack) as driver:
            await mention_round(slack, driver, channels[:2], "U0ALICE")  # warm caches
            await asyncio.sleep(1.1)  # let per-channel pacing slots expire
            acks, firsts = await mention_round(slack, driver, channels, "U0ALICE")
            await asyncio.sleep(1.1)
            serial: list[float] = []
            before_serial = stage_totals(runtime)
            for ch in channels[: args.serial]:
                _, first = await mention_round(slack, driver, [ch], "U0ALICE")
                serial += first
        stages = stage_means_ms(stage_totals(runtime), before_serial)
    finally:
        await runtime.stop()
        await slack.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"corpus: {args.notes} notes (loaded in {load_s:.1f} s), {n_runbooks} runbooks, "
        f"embedder={args.embedder}, no LLM"
    )
    print(f"start-up (build + warm-up + index): {start_s:.1f} s; RSS after start: {rss_mb:.0f} MB")
    print(
        f"ack latency, {len(acks)} concurrent mentions: p50 {pct(acks, 0.5):.1f} ms, "
        f"p99 {pct(acks, 0.99):.1f} ms"
    )
    print(
        f"mention -> first answer posted, {len(firsts)} concurrent: p50 {pct(firsts, 0.5):.0f} ms, "
        f"p95 {pct(firsts, 0.95):.0f} ms"
    )
    print(
        f"mention -> first answer posted, one at a time ({len(serial)}): "
        f"p50 {pct(serial, 0.5):.0f} ms, p95 {pct(serial, 0.95):.0f} ms, "
        f"mean {statistics.mean(serial) * 1000:.0f} ms"
    )
    print(
        "mean per stage (one at a time; stages run concurrently): "
        + ", ".join(f"{k} {v:.0f} ms" for k, v in stages.items())
    )


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notes", type=int, default=10_000)
    p.add_argument("--runbooks", type=int, default=400)
    p.add_argument("--mentions", type=int, default=50)
    p.add_argument("--serial", type=int, default=20)
    p.add_argument("--embedder", default="onnx-minilm", choices=["onnx-minilm", "none"])
    p.add_argument(
        "--precomputed-vectors",
        action="store_true",
        help="bulk-load notes with random unit vectors (real redaction) to reach 100k quickly",
    )
    asyncio.run(main(p.parse_args()))
