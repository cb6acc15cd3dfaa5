"""`opsmemory sandbox`: the bot, the Slack stand-in and a browser page on localhost, seeded with
an incident scenario, so the bot can be tried before a Slack app exists."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from pathlib import Path

from bot.settings import Settings, SettingsError


def default_data_dir() -> Path:
    """The sandbox's own state directory ($XDG_STATE_HOME, else ~/.local/state)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "opsmemory-sandbox"


def add_sandbox_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sandbox",
        help="try the bot in a local Slack-like page in your browser (no Slack needed)",
        description=(
            "Start the bot in HTTP mode, the built-in Slack stand-in and a web page on "
            "localhost, seeded with an incident scenario (runbooks, an incident thread, an "
            "earlier resolved incident). Type as one of the seeded people, mention @opsmemory, "
            "run /incident commands, click buttons, open App Home. Uses its own data directory "
            "and the offline embedder; no LLM unless OPSMEMORY_OLLAMA_HOST is set."
        ),
    )
    add_sandbox_arguments(p)
    p.set_defaults(handler=run_sandbox)


def add_sandbox_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port", type=int, default=None, help="page port (default: OPSMEMORY_PORT, 3000)"
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to serve the page on (default 127.0.0.1)"
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help=f"where the sandbox keeps its state (default {default_data_dir()})",
    )
    p.add_argument(
        "--reset", action="store_true", help="forget the sandbox's state and seed it again"
    )


def checked_data_dir(args: argparse.Namespace, settings: Settings) -> Path:
    """The sandbox's directory; never the real bot's data directory, nor one inside it."""
    chosen = (getattr(args, "data_dir", None) or default_data_dir()).expanduser().resolve()
    real = settings.data_dir.expanduser().resolve()
    if chosen == real or real in chosen.parents or chosen in real.parents:
        raise SettingsError(
            [
                f"--data-dir {chosen} overlaps OPSMEMORY_DATA_DIR ({real}); the sandbox keeps "
                "its own state apart from a real bot's memory, choose another directory"
            ]
        )
    return chosen


async def run_sandbox(args: argparse.Namespace, settings: Settings) -> int:
    import shutil

    from bot.sandbox.server import Sandbox

    data_dir = checked_data_dir(args, settings)
    if "OPSMEMORY_LOG_LEVEL" not in os.environ:  # the page is the interface; keep the terminal calm
        logging.getLogger().setLevel(logging.WARNING)
    if getattr(args, "reset", False):
        shutil.rmtree(data_dir, ignore_errors=True)
    port = settings.port if args.port is None else args.port
    print(f"opsmemory sandbox: starting (state in {data_dir}) …", file=sys.stderr, flush=True)
    started = time.perf_counter()
    sandbox = Sandbox(settings, data_dir)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        url = await sandbox.serve(host=getattr(args, "host", "127.0.0.1"), port=port)
        print(f"opsmemory sandbox: open {url}  (Ctrl-C stops)", flush=True)
        boot = asyncio.create_task(sandbox.boot())
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait([boot, stopped], return_when=asyncio.FIRST_COMPLETED)
        if boot.done():
            boot.result()  # a failed start-up is reported, not swallowed
            took = time.perf_counter() - started
            print(f"opsmemory sandbox: ready in {took:.1f} s", file=sys.stderr, flush=True)
            await stopped
        else:  # stopped while still seeding: the next start seeds again
            boot.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await boot
    except OSError as exc:
        print(f"opsmemory: cannot serve the sandbox on port {port}: {exc.strerror}; "
              "pick another with --port", file=sys.stderr)  # fmt: skip
        return 1
    finally:
        await sandbox.stop()
    return 0
