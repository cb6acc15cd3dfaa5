"""Benchmark the sandbox as a person meets it and print numbers: start time (first start, which
plays the seeded scenario through the bot, and a restart on the same state), RSS of the sandbox
process (bot + stand-in + page server; Chromium is a separate process), and the time from a
mention typed in the page (Enter pressed) to the bot's answer rendered in the thread.

  python -m bench.sandbox --mentions 10
  python -m bench.sandbox --screenshot docs/sandbox.png   # the README's picture

Needs Debian's chromium at /usr/bin/chromium and the playwright package (dev extra).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.browser import launch_chromium
from bench.slack import current_rss_mb, pct
from bot.sandbox.server import Sandbox
from bot.settings import Settings

QUESTIONS = [
    "p99 latency is up since the deploy, what should I check first?",
    "database connection pool exhausted, what now?",
    "high latency after a deploy, how do we roll back?",
    "what is the runbook for high latency?",
]


async def started(base: Settings, data_dir: Path) -> tuple[Sandbox, float]:
    t0 = time.perf_counter()
    box = Sandbox(base, data_dir)
    await box.start(port=0)
    return box, time.perf_counter() - t0


async def typed_to_rendered(page: Any, question: str) -> float:
    """Seconds from Enter on a typed mention to the answer rendered in its thread."""
    before = await page.locator("#messages article.msg").count()
    await page.fill("#composer-input", f"@opsmemory {question}")
    t0 = time.perf_counter()
    await page.press("#composer-input", "Enter")
    await page.wait_for_function(
        "n => document.querySelectorAll('#messages article.msg').length > n", arg=before
    )
    answer = page.locator("#thread-messages article.msg.bot .bk-actions")
    await answer.first.wait_for(timeout=60_000)
    return time.perf_counter() - t0


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="opsmemory-sandbox-bench-"))
    base = Settings(_env_file=None, data_dir=tmp / "real-bot")  # type: ignore[call-arg]
    try:
        box, first_s = await started(base, tmp / "sandbox")
        await box.stop()
        box, restart_s = await started(base, tmp / "sandbox")
        rss_mb = current_rss_mb()
        times: list[float] = []
        try:
            async with launch_chromium(tmp / "chromium") as browser:
                page = await browser.new_page()
                await page.goto(box.url)
                await page.click("#channel-list a:has-text('inc-101-checkout-latency')")
                for i in range(args.mentions):
                    times.append(await typed_to_rendered(page, QUESTIONS[i % len(QUESTIONS)]))
                    if i == 0 and args.screenshot:
                        await page.set_viewport_size({"width": 1400, "height": 1280})
                        await page.locator("#thread-messages article.msg.bot").first.wait_for()
                        await page.screenshot(path=str(args.screenshot))
                        await page.set_viewport_size({"width": 1400, "height": 900})
                    await asyncio.sleep(1.1)  # per-channel pacing: one post per second
        finally:
            await box.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"sandbox first start (seeded scenario played through the bot): {first_s:.1f} s")
    print(f"sandbox restart on the same state: {restart_s:.1f} s; RSS after start: {rss_mb:.0f} MB")
    print(
        f"typed mention -> answer rendered in the page, {len(times)} one at a time: "
        f"p50 {pct(times, 0.5):.0f} ms, p95 {pct(times, 0.95):.0f} ms, "
        f"mean {statistics.mean(times) * 1000:.0f} ms"
    )
    if args.screenshot:
        print(f"screenshot written to {args.screenshot}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mentions", type=int, default=8)
    p.add_argument("--screenshot", type=Path, default=None, help="write a PNG of the page here")
    asyncio.run(main(p.parse_args()))
