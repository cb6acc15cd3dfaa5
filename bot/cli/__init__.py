"""The `opsmemory` command: parses arguments, builds settings once, runs one subcommand.

Errors become one line on stderr: bad settings (a token Slack refuses included) exit 2 naming the
variable and the fix, any other OpsmemoryError exits 1 with its message.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from slack_sdk.errors import SlackApiError

from bot.cli.slack_check import refused_token
from bot.logs import configure_logging
from bot.settings import Settings, SettingsError, load_settings
from memory.errors import OpsmemoryError

Handler = Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree; every command and subcommand has --help text."""
    from bot.cli import (
        audit_cmd,
        doctor,
        knowledge_cmds,
        memory_cmds,
        memory_eval,
        redact_cmd,
        run_cmd,
        sandbox_cmd,
        slack_eval,
    )

    parser = argparse.ArgumentParser(
        prog="opsmemory",
        description="A Slack bot for SRE incident channels that remembers.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run_cmd.add_run_parser(sub)
    sandbox_cmd.add_sandbox_parser(sub)
    knowledge_cmds.add_index_parser(sub)

    evaluate = sub.add_parser(
        "eval",
        help="measure retrieval and memory quality on labelled data",
        description="Evaluations: runbook retrieval (hit@k, MRR, AUROC) and memory recall.",
    )
    eval_sub = evaluate.add_subparsers(dest="eval_command", metavar="WHAT", required=True)
    knowledge_cmds.add_eval_runbooks_parser(eval_sub)
    memory_eval.add_eval_memory_parser(eval_sub)
    memory_eval.add_eval_calibrate_parser(eval_sub)
    slack_eval.add_eval_slack_parser(eval_sub)

    redact_cmd.add_redact_parser(sub)
    memory_cmds.add_memory_parser(sub)
    audit_cmd.add_audit_parser(sub)
    doctor.add_doctor_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `opsmemory` console script."""
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        for problem in exc.problems:
            print(f"opsmemory: {problem}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    handler: Handler = args.handler
    try:
        return asyncio.run(handler(args, settings))
    except SettingsError as exc:  # e.g. `run` without Slack credentials
        for problem in exc.problems:
            print(f"opsmemory: {problem}", file=sys.stderr)
        return 2
    except OpsmemoryError as exc:
        print(f"opsmemory: {exc}", file=sys.stderr)
        return 1
    except SlackApiError as exc:  # `run` warming up with a token Slack refuses
        refused = refused_token(exc)
        if refused is None:
            raise
        print(f"opsmemory: {refused}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover - `python -m bot.cli`
    sys.exit(main())
