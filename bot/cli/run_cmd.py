"""`opsmemory run`: serve the bot (Socket Mode when SLACK_APP_TOKEN is set, else HTTP mode)
until SIGTERM or SIGINT, then drain; exit 0 after a clean drain, 1 when work was abandoned.
With no Slack credentials at all it starts the local sandbox instead (`opsmemory sandbox`)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from bot.answer import messages
from bot.settings import Settings, SettingsError


def add_run_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the Slack bot",
        description=(
            "Serve the bot. With SLACK_APP_TOKEN set it connects over Socket Mode; otherwise it "
            "serves HTTP on OPSMEMORY_PORT: /slack/events (events, commands, interactivity), "
            "/healthz and /metrics. Needs SLACK_BOT_TOKEN, and SLACK_SIGNING_SECRET in HTTP mode. "
            "SIGTERM or SIGINT drains: new requests get 503, accepted work gets "
            "OPSMEMORY_SHUTDOWN_GRACE_S to finish (a second signal stops waiting); exit 0 when "
            "everything finished, 1 when something had to be abandoned (named in the log). "
            "With no Slack credentials set at all, starts the local sandbox instead (see "
            "`opsmemory sandbox --help`)."
        ),
    )
    p.add_argument("--port", type=int, default=None, help="override OPSMEMORY_PORT (HTTP mode)")
    p.set_defaults(handler=run_run)


def no_credentials(settings: Settings) -> bool:
    """Nothing Slack-related is set: a newcomer trying the bot, not a half-configured deploy."""
    return (
        settings.slack_bot_token is None
        and settings.slack_app_token is None
        and settings.slack_signing_secret is None
    )


def missing_credentials(settings: Settings) -> list[str]:
    """The Slack variables `run` needs but does not have, in the mode the settings select."""
    missing = [] if settings.slack_bot_token else ["SLACK_BOT_TOKEN"]
    if settings.slack_app_token is None and settings.slack_signing_secret is None:
        missing.append("SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)")
    return missing


async def run_run(args: argparse.Namespace, settings: Settings) -> int:
    from bot.app import build_app
    from bot.cli.slack_check import check_app_token

    if no_credentials(settings):
        from bot.cli.sandbox_cmd import run_sandbox

        print(
            "opsmemory: no Slack credentials set (SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET or "
            "SLACK_APP_TOKEN), so starting the local sandbox instead; see the README's "
            "'Connect to Slack' to run it in your workspace.",
            file=sys.stderr,
            flush=True,
        )
        return await run_sandbox(args, settings)
    missing = missing_credentials(settings)
    if missing:
        raise SettingsError([messages.missing_credentials(missing)])
    if settings.slack_app_token is not None:
        # Slack's Socket Mode client retries a refused app token forever; refuse it up front.
        await check_app_token(settings)
    runtime = await build_app(settings)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, runtime.request_stop)
    try:
        await runtime.warm_up()
        if settings.slack_app_token is not None:
            await runtime.start_socket_mode()
            await runtime.start_http(port=args.port, slack_events=False)
        else:
            await runtime.start_http(port=args.port)
        await runtime.start_scheduler()
        await runtime.serve_forever()
    finally:
        report = await runtime.stop()
    return 0 if report.clean else 1
