"""`opsmemory doctor`: checks every part the bot needs and says what is broken and how to fix it."""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from slack_sdk.errors import SlackApiError

from bot.cli import slack_check
from bot.manifest import BOT_SCOPES
from bot.preflight import check_runbooks, runbooks_path
from bot.settings import Settings, SettingsError
from bot.slack_failures import slack_error
from memory.errors import OpsmemoryError

Status = Literal["ok", "warn", "FAIL"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    bad_setting: bool = False  # the fix is a setting: doctor exits 2, like every command


def add_doctor_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="check SQLite, redaction, embedder, Ollama, runbooks and the Slack token",
        description=(
            "Prints one line per check (SQLite version, FTS5, sqlite-vec, database, Presidio "
            "recognizers, embedder backend and model digest, Ollama, runbooks directory, Slack: "
            "the token against auth.test and its scopes against manifest.yml, approvers and "
            "digest channel). Exits 2 when a setting is wrong (the line names the variable and "
            "the fix), 1 when something else required is broken."
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


async def check_runbooks_dir(settings: Settings) -> Check:
    path = runbooks_path(settings)
    corpus = await check_runbooks(path, allow_empty=settings.runbooks_allow_empty)
    if not corpus.files:
        return Check(
            "runbooks",
            "warn",
            f"{path} holds no runbooks (allowed by "
            "OPSMEMORY_RUNBOOKS_ALLOW_EMPTY): answers cite memory only",
        )
    skipped = (
        f", {len(corpus.skipped)} skipped (`opsmemory index` lists why)" if corpus.skipped else ""
    )
    return Check("runbooks", "ok", f"{len(corpus.files)} runbooks in {path}{skipped}")


async def check_slack_token(settings: Settings) -> Check:
    if settings.slack_bot_token is None:
        return Check(
            "slack",
            "warn",
            "SLACK_BOT_TOKEN not set: `opsmemory run` needs it (see README, 'Connect to Slack')",
        )
    if settings.slack_app_token is None and settings.slack_signing_secret is None:
        raise SettingsError(
            ["set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)"]
        )
    who = await slack_check.bot_identity(settings)
    if settings.slack_app_token is not None:
        await slack_check.check_app_token(settings)
    mode = "Socket Mode" if settings.slack_app_token else f"HTTP on port {settings.port}"
    missing = [s for s in BOT_SCOPES if who.scopes is not None and s not in who.scopes]
    if missing:
        return Check(
            "slack",
            "FAIL",
            f"the token lacks {', '.join(missing)} (manifest.yml asks for them): add them in "
            "your app's settings under OAuth & Permissions > Bot Token Scopes, reinstall the "
            "app, and set SLACK_BOT_TOKEN to the new token",
        )
    scopes = (
        f"all {len(BOT_SCOPES)} manifest scopes granted"
        if who.scopes is not None
        else "scopes not reported by the API, not compared"
    )
    return Check(
        "slack",
        "ok" if who.scopes is not None else "warn",
        f"token accepted for team {who.team_id} as {who.user_id}, {scopes}, {mode}, "
        f"API {settings.slack_api_base}",
    )


async def check_approvals(settings: Settings) -> Check:
    """Approvers are people and the digest channel has the bot (ids are checked by Settings)."""
    line, status = _approvers_line(settings)
    if settings.slack_bot_token is None:
        return Check("approvals", status, f"{line} (not looked up: no SLACK_BOT_TOKEN)")
    problems: list[str] = []
    for check in (slack_check.check_approvers, slack_check.check_digest_channel):
        try:
            await check(settings)
        except SettingsError as exc:
            problems.extend(exc.problems)
        except SlackApiError as exc:  # e.g. the token was refused: the slack line says why
            error = slack_error(exc)
            return Check("approvals", "warn", f"{line} (not looked up: Slack said {error})")
    if problems:
        raise SettingsError(problems)
    return Check("approvals", status, line)


def _approvers_line(settings: Settings) -> tuple[str, Status]:
    """Who can approve what: the catalogue's own approvers, OPSMEMORY_APPROVERS for actions
    that name none. A catalogue that does not load raises SettingsError (doctor fails)."""
    from bot.guarded.catalogue import load_catalogue

    n = len(settings.approver_ids)
    fallback = f"{n} approver{'s' if n != 1 else ''} in OPSMEMORY_APPROVERS"
    if settings.actions_file is None:
        approvers = "no action catalogue (OPSMEMORY_ACTIONS_FILE not set)"
        status: Status = "ok"
    else:
        actions = load_catalogue(settings.actions_file).actions.values()
        orphans = sorted(a.name for a in actions if a.approvers is None)
        approvers = f"{len(actions)} guarded action(s) in {settings.actions_file}"
        status = "ok"
        if orphans and not n:
            approvers += f"; nobody can approve {', '.join(orphans)} (no approvers of its own"
            approvers += " and OPSMEMORY_APPROVERS is empty)"
            status = "warn"
        elif orphans:
            approvers += f"; {', '.join(orphans)} use the {fallback}"
    digest = (
        f"digest to {settings.digest_channel} at {settings.digest_time} {settings.timezone}"
        if settings.digest_channel
        else "no digest (OPSMEMORY_DIGEST_CHANNEL not set)"
    )
    return f"{approvers}; {digest}", status


CheckFn = Callable[[Settings], Awaitable[Check]]
CHECKS: list[tuple[str, CheckFn]] = [
    ("sqlite", _sqlite),
    ("database", _database),
    ("redaction", _redaction),
    ("embedder", _embedder),
    ("ollama", _ollama),
    ("runbooks", check_runbooks_dir),
    ("slack", check_slack_token),
    ("approvals", check_approvals),
]


async def run_check(name: str, check: CheckFn, settings: Settings) -> Check:
    """One check; whatever it raises becomes its FAIL line (a SettingsError marks a bad setting)."""
    try:
        return await check(settings)
    except SettingsError as exc:
        return Check(name, "FAIL", " ".join(exc.problems), bad_setting=True)
    except OpsmemoryError as exc:
        return Check(name, "FAIL", str(exc))
    except Exception as exc:  # doctor reports every failure instead of stopping at the first
        return Check(name, "FAIL", f"{type(exc).__name__}: {exc}")


async def run_checks(settings: Settings) -> list[Check]:
    return [await run_check(name, check, settings) for name, check in CHECKS]


def exit_code(results: list[Check]) -> int:
    """2 when a setting must change (as for every command), 1 when something else is broken."""
    failed = [c for c in results if c.status == "FAIL"]
    if any(c.bad_setting for c in failed):
        return 2
    return 1 if failed else 0


async def run_doctor(args: argparse.Namespace, settings: Settings) -> int:
    results = await run_checks(settings)
    for check in results:
        print(f"{check.status:<4} {check.name:<10} {check.detail}")
    return exit_code(results)
