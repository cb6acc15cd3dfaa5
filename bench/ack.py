"""Benchmark acknowledgements that mean "stored" (issue 18) against the local stand-in and print:

`/incident note` ack latency p50/p95/p99/max for rounds of N concurrent commands (each ack is
sent only after its note is committed; target p99 < 300 ms at N = 50, Slack's limit is 3 s), and
the draining stop: M concurrent thread messages acknowledged, then `Runtime.stop()` at once, how
long the drain took and how many of the M were stored.

  python -m bench.ack --concurrent 50 --rounds 5 --burst 300
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from bench.slack import RUNBOOK_DIR, SECRET, pct
from bot.app import build_app
from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver
from memory.store.db import Database
from memory.threads import Threads

TEAM = "T0STANDIN"
CHANNEL = "C0BENCHINC"
USERS = [f"U0BENCH{i:03d}" for i in range(50)]


async def note_round(driver: SlackDriver, n: int, round_no: int) -> list[float]:
    """n people send `/incident note` at once; returns each ack's latency (s). Every ack must be
    a confirmation (the note was committed first)."""

    async def one(i: int) -> float:
        user = USERS[i % len(USERS)]
        d = await driver.command(
            CHANNEL, user, f"note round {round_no}: restarted pod {i} on node-7"
        )
        assert d.status == 200 and d.json()["text"].startswith("Saved note"), d
        return d.elapsed_s

    return list(await asyncio.gather(*(one(i) for i in range(n))))


async def drain_round(settings: Settings, slack: FakeSlack, burst: int) -> tuple[float, bool, int]:
    """A fresh bot takes `burst` concurrent messages, then stops at once: (drain s, clean, stored)."""
    runtime = await build_app(settings)
    await runtime.warm_up()
    port = await runtime.start_http(host="127.0.0.1", port=0)
    async with SlackDriver(f"http://127.0.0.1:{port}/slack/events", SECRET, slack) as driver:
        root = await driver.say(CHANNEL, USERS[0], "checkout p99 is 4 s since the deploy")
        await asyncio.gather(
            *(
                driver.say(CHANNEL, USERS[i % len(USERS)], f"update {i}", thread_ts=root.ts)
                for i in range(burst - 1)
            )
        )
        started = time.perf_counter()
        report = await runtime.stop()
        drain_s = time.perf_counter() - started
    assert root.ts is not None
    db = await Database.open(settings.database_path, migrate=False)
    try:
        stored = len(await Threads(db, runtime.deps.redactor).messages(TEAM, CHANNEL, root.ts))
    finally:
        await db.close()
    return drain_s, report.clean, stored


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="opsmemory-bench-ack-"))
    slack = FakeSlack()
    for user in USERS:
        slack.workspace.add_user(user, user.lower())
    slack.workspace.add_channel(CHANNEL, "inc-7-bench-checkout", members=USERS)
    await slack.start()
    shutil.copytree(RUNBOOK_DIR, tmp / "runbooks")
    settings = Settings(
        _env_file=None,
        data_dir=tmp / "data",
        runbooks_dir=tmp / "runbooks",  # type: ignore[call-arg]
        slack_bot_token=slack.workspace.bot_token,
        slack_signing_secret=SECRET,
        slack_api_url=slack.api_url,
        embedder=args.embedder,
    )
    runtime = await build_app(settings)
    await runtime.warm_up()
    port = await runtime.start_http(host="127.0.0.1", port=0)
    try:
        async with SlackDriver(f"http://127.0.0.1:{port}/slack/events", SECRET, slack) as driver:
            await driver.command(CHANNEL, USERS[0], "open sev2 Checkout latency")
            cold = await note_round(driver, args.concurrent, 0)  # user and channel caches empty
            acks: list[float] = []
            cpu_started = time.process_time()
            for r in range(1, args.rounds + 1):
                acks += await note_round(driver, args.concurrent, r)
            cpu_s = time.process_time() - cpu_started
    finally:
        await runtime.stop()
    drain_s, clean, stored = await drain_round(settings, slack, args.burst)
    await slack.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"embedder={args.embedder}; every ack below is a confirmation sent after the commit")
    print(
        f"/incident note ack, {args.concurrent} concurrent x {args.rounds} rounds "
        f"({len(acks)} acks): p50 {pct(acks, 0.5):.1f} ms, p95 {pct(acks, 0.95):.1f} ms, "
        f"p99 {pct(acks, 0.99):.1f} ms, max {max(acks) * 1000:.1f} ms"
    )
    print(
        f"process CPU per ack {cpu_s / len(acks) * 1000:.2f} ms (bot, its threads and the "
        "in-process driver; less sensitive to other load on the machine than latency)"
    )
    print(
        f"first round (cold user/channel caches, {len(cold)} acks): p50 {pct(cold, 0.5):.1f} ms, "
        f"p99 {pct(cold, 0.99):.1f} ms"
    )
    print(
        f"stop right after {args.burst} concurrent acknowledged messages: drained in "
        f"{drain_s * 1000:.0f} ms, clean={clean}, stored {stored}/{args.burst}"
    )


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--concurrent", type=int, default=50)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--burst", type=int, default=300)
    p.add_argument("--embedder", default="onnx-minilm", choices=["onnx-minilm", "none"])
    asyncio.run(main(p.parse_args()))
