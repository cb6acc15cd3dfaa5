"""Start-up time and memory of `opsmemory run` on its embedded defaults, before the first event.

Starts the local Slack stand-in in this process, launches `opsmemory run` (HTTP mode) as a child
process pointed at it, and times spawn → /healthz answering 200. Then reads the child's RSS from
/proc. Run: `.venv/bin/python -m bench.startup [--runs 3]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bot.standin import FakeSlack


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def one_start(api_url: str, data_dir: Path) -> tuple[float, float]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "OPSMEMORY_"))}
    env.update(
        SLACK_BOT_TOKEN="xoxb-standin-token",
        SLACK_SIGNING_SECRET="bench-secret",
        OPSMEMORY_SLACK_API_URL=api_url,
        OPSMEMORY_DATA_DIR=str(data_dir),
        OPSMEMORY_PORT=str(port),
        OPSMEMORY_HOST="127.0.0.1",
        OPSMEMORY_LOG_LEVEL="WARNING",
    )
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", env=env, stderr=asyncio.subprocess.PIPE
    )
    try:
        async with aiohttp.ClientSession() as session:
            while True:
                if proc.returncode is not None:
                    err = (await proc.stderr.read()).decode() if proc.stderr else ""
                    raise SystemExit(f"opsmemory run exited early:\n{err}")
                try:
                    async with session.get(f"http://127.0.0.1:{port}/healthz") as resp:
                        if resp.status == 200:
                            break
                except aiohttp.ClientConnectionError:
                    pass
                await asyncio.sleep(0.02)
        ready = time.perf_counter() - started
        await asyncio.sleep(0.5)  # let start-up allocations settle before reading RSS
        return ready, _rss_mb(proc.pid)
    finally:
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    fake = FakeSlack()
    api_url = await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp)
            cold, cold_rss = await one_start(api_url, data_dir)  # creates db + index
            warm = [await one_start(api_url, data_dir) for _ in range(args.runs)]
    finally:
        await fake.stop()
    print("opsmemory run, HTTP mode, embedded defaults (built-in runbooks, onnx-minilm, no LLM)")
    print(
        f"first start (new database, index build): {cold:.2f} s to /healthz, RSS {cold_rss:.0f} MB"
    )
    times = [t for t, _ in warm]
    rss = [r for _, r in warm]
    print(
        f"restart (existing database), {len(warm)} runs: median {statistics.median(times):.2f} s "
        f"to /healthz, RSS median {statistics.median(rss):.0f} MB"
    )


if __name__ == "__main__":
    asyncio.run(main())
