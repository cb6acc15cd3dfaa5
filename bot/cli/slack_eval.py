"""`opsmemory eval slack`: memory measured through the real Bolt app and the local Slack stand-in.

The replay and scoring live in `evals.slack_replay`; this module only starts the stand-in and a
bot on a throwaway data directory, runs it, and prints the figures (JSON last with --json).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.settings import Settings

SECRET = "eval-slack-signing-secret-0123456789"


def add_eval_slack_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `slack` under the `eval` subcommands."""
    parser = sub.add_parser(
        "slack",
        help="Score memory through Slack: replay conversations into the local stand-in and ask "
        "every question as an @mention.",
        description="Replay each conversation of a LoCoMo-format file into an incident channel "
        "of the local Slack stand-in (signed events through the real Bolt app), ask each "
        "question as an @mention by a member who wrote none of it (half in the same channel, "
        "half from a new incident channel), and score the memory items the answers show.",
    )
    parser.add_argument("--threads", type=Path, metavar="FILE", required=True)
    parser.add_argument(
        "--limit-conversations", type=int, default=None, metavar="N", help="only the first N"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object as the last line"
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="also ask every question in the other place, so same-channel and cross-channel "
        "figures compare the same questions (reported under 'paired')",
    )
    parser.add_argument(
        "--answers",
        type=Path,
        metavar="FILE",
        default=None,
        help="also write every question and its posted answer as JSON lines (to read them)",
    )
    parser.set_defaults(handler=run_eval_slack)
    return parser


async def run_eval_slack(args: argparse.Namespace, settings: Settings) -> int:
    """Start stand-in and bot, replay, ask, print; return the exit code."""
    from bot.app import build_app
    from bot.settings import Settings as Built
    from bot.standin import FakeSlack, SlackDriver
    from evals.slack_replay import SlackReplay
    from memory.embedding.embedder import build_embedder

    slack = FakeSlack()
    await slack.start()
    with tempfile.TemporaryDirectory(prefix="opsmemory-eval-slack-") as tmp:
        values: dict[str, Any] = {
            "data_dir": Path(tmp) / "data",
            "runbooks_dir": settings.runbooks_dir,
            "slack_bot_token": slack.workspace.bot_token,
            "slack_signing_secret": SECRET,
            "slack_api_url": slack.api_url,
            "embedder": settings.embedder,
            "ollama_host": None,  # the cited, model-free answer is what is scored
        }
        runtime = await build_app(Built(_env_file=None, **values))  # type: ignore[call-arg]
        try:
            await runtime.warm_up()
            port = await runtime.start_http(host="127.0.0.1", port=0)
            url = f"http://127.0.0.1:{port}/slack/events"
            async with SlackDriver(url, SECRET, slack) as driver:
                replay = SlackReplay(
                    runtime,
                    slack,
                    driver,
                    progress=lambda msg: print(msg, file=sys.stderr, flush=True),
                )
                report = await replay.run(
                    args.threads, limit=args.limit_conversations, paired=args.paired
                )
            embedder = build_embedder(
                settings.embedder,
                ollama_host=None,
                ollama_model=settings.ollama_embed_model,
                timeout_s=settings.ollama_timeout_s,
            )  # not loaded: only its name and weights digest are read
            provenance = {
                "embedder": embedder.name if embedder else "none",
                "embedder_digest": embedder.digest if embedder else None,
                "threads_sha256": hashlib.sha256(args.threads.read_bytes()).hexdigest(),
            }
        finally:
            await runtime.stop()
            await slack.stop()
    print(
        f"slack  n={len(report.asked)}  messages={report.messages}  replay={report.replay_s:.1f}s"
    )
    for where in (None, "same", "cross"):
        cells = "  ".join(f"{k}={v:.3f}" for k, v in report.metrics(where).items())
        print(f"  [{where or 'all'}] {cells}")
    for where in ("same", "cross") if report.again else ():
        cells = "  ".join(f"{k}={v:.3f}" for k, v in report.metrics(where, paired=True).items())
        print(f"  [paired {where}] {cells}")
    if args.answers is not None:
        with args.answers.open("w", encoding="utf-8") as out:
            for a in [*report.asked, *report.again]:
                row = {
                    "conversation": a.conversation,
                    "where": a.where,
                    "question": a.question,
                    "evidence": sorted(a.evidence),
                    "shown": list(a.shown),
                    "latency_ms": round(a.latency_ms, 1),
                    "posted": a.posted,
                }
                out.write(json.dumps(row) + "\n")
    if args.json:
        print(json.dumps({**report.as_json(), **provenance}))
    return 0
