"""Benchmark guarded actions (issue 17) through the real Bolt app, the Slack stand-in and a local
webhook receiver that checks every signature and counts calls, and print:

approve-click → executor-call latency p50/p95/max over N requests (one approve each, in turn),
and exactly-once under contention: for each of R requests, 50 simultaneous approve clicks from
50 different approvers, split over two bot replicas sharing one database, and how many webhook
calls each request got (must be 1).

  python -m bench.actions --requests 30 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import tempfile
import time
from pathlib import Path

from bench.slack import RUNBOOK_DIR, SECRET, pct
from bot.app import build_app
from bot.runtime import Runtime
from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver
from tests.fakes.webhook_receiver import WebhookReceiver

CHANNEL = "C0BENCHINC"
REQUESTER = "U0BENCHREQ"
APPROVERS = [f"U0BENCHAP{i:03d}" for i in range(50)]
HOOK_SECRET = "bench-hook-secret-0123456789abcdef"


def catalogue(url: str) -> str:
    return f"""
actions:
  rollback:
    title: roll back
    description: Roll a service back to an earlier version
    risk: medium
    parameters:
      service: {{type: string, allowed: [checkout, payments]}}
      version: {{type: string, pattern: 'v\\d+\\.\\d+\\.\\d+'}}
    approvers: {{users: [{", ".join(APPROVERS)}]}}
    dry_run: false
    executor: {{type: webhook, url: "{url}", timeout_s: 10}}
"""


async def open_request(driver: SlackDriver, slack: FakeSlack, n: int) -> tuple[str, str]:
    """`/incident run` → (request id, request message ts)."""
    d = await driver.command(CHANNEL, REQUESTER, f"run rollback service=checkout version=v1.{n}.0")
    text = d.json()["text"]
    assert text.startswith("Requested #"), text
    rid = text.split("#", 1)[1].split(":", 1)[0]
    while True:
        for m in slack.workspace.bot_messages(CHANNEL):
            if m.text.startswith(f"Action request #{rid} "):
                return rid, m.ts
        await asyncio.sleep(0.005)


async def approve(driver: SlackDriver, user: str, rid: str, ts: str) -> None:
    await driver.click(user, action_id="approve_action", value=rid, channel=CHANNEL,
                       message_ts=ts)  # fmt: skip


async def wait_calls(receiver: WebhookReceiver, n: int, within_s: float = 15) -> None:
    deadline = time.monotonic() + within_s
    while len(receiver.calls) < n:
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(receiver.calls)} webhook calls, expected {n}")
        receiver.arrived.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(receiver.arrived.wait(), timeout=0.5)


async def start(settings: Settings) -> Runtime:
    runtime = await build_app(settings)
    await runtime.warm_up()
    await runtime.start_http(host="127.0.0.1", port=0)
    return runtime


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="opsmemory-bench-actions-"))
    receiver = WebhookReceiver(HOOK_SECRET)
    url = await receiver.start()
    slack = FakeSlack()
    for user in [REQUESTER, *APPROVERS]:
        slack.workspace.add_user(user, user.lower())
    slack.workspace.add_channel(CHANNEL, "inc-7-bench-checkout", members=[REQUESTER, *APPROVERS])
    await slack.start()
    shutil.copytree(RUNBOOK_DIR, tmp / "runbooks")
    (tmp / "actions.yml").write_text(catalogue(url))
    settings = Settings(
        _env_file=None,
        data_dir=tmp / "data",
        runbooks_dir=tmp / "runbooks",  # type: ignore[call-arg]
        slack_bot_token=slack.workspace.bot_token,
        slack_signing_secret=SECRET,
        slack_api_url=slack.api_url,
        embedder=args.embedder,
        actions_file=tmp / "actions.yml",
        actions_webhook_secret=HOOK_SECRET,
    )
    one, two = await start(settings), await start(settings)  # two replicas, one database
    latencies: list[float] = []
    per_request: list[int] = []
    try:
        async with (
            SlackDriver(f"http://127.0.0.1:{one.port}/slack/events", SECRET, slack) as d1,
            SlackDriver(f"http://127.0.0.1:{two.port}/slack/events", SECRET, slack) as d2,
        ):
            for n in range(args.requests):
                rid, ts = await open_request(d1, slack, n)
                before = len(receiver.calls)
                clicked = time.perf_counter()
                await approve(d1, APPROVERS[n % len(APPROVERS)], rid, ts)
                await wait_calls(receiver, before + 1)
                latencies.append(receiver.calls[before].at - clicked)
            for r in range(args.rounds):
                rid, ts = await open_request(d1, slack, 1000 + r)
                await asyncio.gather(
                    *(approve(d1 if i % 2 else d2, u, rid, ts) for i, u in enumerate(APPROVERS))
                )
                await wait_calls(receiver, args.requests + r + 1)
                await asyncio.sleep(0.5)  # time for any second (wrong) call to arrive
                per_request.append(
                    sum(1 for c in receiver.calls if str(c.body["request_id"]) == rid)
                )
    finally:
        await one.stop()
        await two.stop()
        await slack.stop()
        await receiver.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        json.dumps(
            {
                "approve_click_to_executor_call_ms": {
                    "n": len(latencies),
                    "p50": round(pct(latencies, 0.5), 1),
                    "p95": round(pct(latencies, 0.95), 1),
                    "max": round(max(latencies) * 1000, 1),
                },
                "fifty_concurrent_clicks_two_replicas": {
                    "requests": len(per_request),
                    "executions_per_request": per_request,
                    "exactly_once": all(n == 1 for n in per_request),
                },
                "signature_rejections": receiver.rejected,
            }
        )
    )


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=30)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--embedder", default="onnx-minilm", choices=["onnx-minilm", "none"])
    asyncio.run(main(p.parse_args()))
