"""`opsmemory doctor`: checks every part the bot needs and says what is broken and how to fix it."""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from bot.settings import Settings
from memory.errors import OpsmemoryError

Status = Literal["ok", "warn", "FAIL"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str


def add_doctor_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="check SQLite, extensions, redaction, embedder, Ollama and Slack settings",
        description=(
            "Prints one line per check (SQLite version, FTS5, sqlite-vec, database, Presidio "
            "recognizers, embedder backend and model digest, Ollama, Slack settings). Exits 1 "
            "when something required is broken."
        ),
    )
    p.set_defaults(handler=run_doctor)


async def _sqlite(settings: Settings) -> Check:
    from memory.store.db import sqlite_info

    info = sqlite_info()
    return Check(
        "sqlite", "ok", f"SQLite {info['sqlite']}, FTS5 on, sqlite-vec {info['sqlite_vec']}"
    )


async def _database(settings: Settings) -> Check:
    from memory.store.db import Database
    from memory.store.migrations import current_version

    db = await Database.open(settings.database_path, readers=0)
    try:
        version = await current_version(db)
    finally:
        await db.close()
    return Check("database", "ok", f"{settings.database_path} at schema version {version}")


async def _redaction(settings: Settings) -> Check:
    from bot.cli.redact_cmd import redaction_policy
    from memory.redaction.redactor import Redactor

    redactor = Redactor(redaction_policy(settings))
    started = time.perf_counter()
    await redactor.warm_up()
    probe = await redactor.redact("contact ops@example.com, token xoxb-123456789012-abcdefghijkl")
    if not probe.removed_any:
        return Check("redaction", "FAIL", "the engine did not find a known secret in a probe text")
    names = redactor.recognizer_names()
    took = time.perf_counter() - started
    return Check(
        "redaction", "ok", f"Presidio offline, {len(names)} recognizers, built in {took:.1f}s"
    )


async def _embedder(settings: Settings) -> Check:
    from memory.embedding.embedder import build_embedder

    embedder = build_embedder(
        settings.embedder,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_embed_model,
        timeout_s=settings.ollama_timeout_s,
    )
    if embedder is None:
        return Check("embedder", "warn", "OPSMEMORY_EMBEDDER=none: keyword search only")
    vectors = await embedder.embed(["disk filling up on db-primary"])
    return Check(
        "embedder",
        "ok",
        f"{embedder.name}, dim {vectors.shape[1]}, digest {embedder.digest[:16]}…",
    )


async def _ollama(settings: Settings) -> Check:
    if not settings.ollama_host:
        return Check("ollama", "ok", "not configured: answers are deterministic and cited")
    import ollama

    client = ollama.AsyncClient(host=settings.ollama_host, timeout=5)
    try:
        listed = await client.list()
    except Exception as exc:  # any transport failure means "unreachable"; reported, not raised
        return Check("ollama", "FAIL", f"{settings.ollama_host} unreachable ({type(exc).__name__})")
    names = sorted(m.model or "" for m in listed.models)
    if not any(n.split(":")[0] == settings.ollama_chat_model.split(":")[0] for n in names):
        return Check(
            "ollama",
            "warn",
            f"reachable, but model {settings.ollama_chat_model} is not pulled "
            f"(run `ollama pull {settings.ollama_chat_model}`)",
        )
    return Check("ollama", "ok", f"reachable, {len(names)} models")


async def _slack(settings: Settings) -> Check:
    if settings.slack_bot_token is None:
        return Check(
            "slack",
            "warn",
            "SLACK_BOT_TOKEN not set: `opsmemory run` needs it (see README, 'Connect to Slack')",
        )
    if settings.slack_app_token is None and settings.slack_signing_secret is None:
        return Check(
            "slack",
            "FAIL",
            "set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)",
        )
    mode = "Socket Mode" if settings.slack_app_token else f"HTTP on port {settings.port}"
    return Check("slack", "ok", f"tokens well-formed, {mode}, API {settings.slack_api_base}")


CHECKS: list[tuple[str, Callable[[Settings], Awaitable[Check]]]] = [
    ("sqlite", _sqlite),
    ("database", _database),
    ("redaction", _redaction),
    ("embedder", _embedder),
    ("ollama", _ollama),
    ("slack", _slack),
]


async def run_checks(settings: Settings) -> list[Check]:
    results = []
    for name, check in CHECKS:
        try:
            results.append(await check(settings))
        except OpsmemoryError as exc:
            results.append(Check(name, "FAIL", str(exc)))
        except Exception as exc:  # doctor reports every failure instead of stopping at the first
            results.append(Check(name, "FAIL", f"{type(exc).__name__}: {exc}"))
    return results


async def run_doctor(args: argparse.Namespace, settings: Settings) -> int:
    results = await run_checks(settings)
    for check in results:
        print(f"{check.status:<4} {check.name:<10} {check.detail}")
    return 1 if any(c.status == "FAIL" for c in results) else 0
