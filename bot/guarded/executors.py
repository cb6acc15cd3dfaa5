"""Running an approved action: a signed webhook POST or an argv command (no shell). Each returns
an Outcome; neither retries, because a production change sent twice is worse than one reported
as failed."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import aiohttp

from bot.guarded.catalogue import PLACEHOLDER, Action, CommandExecutor, WebhookExecutor

SIGNATURE_HEADER = "X-Opsmemory-Signature"
TIMESTAMP_HEADER = "X-Opsmemory-Timestamp"
_SHOWN = 300  # characters of output or response kept as the outcome


@dataclass(frozen=True)
class Outcome:
    state: Literal["succeeded", "failed", "unknown"]
    detail: str


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>.<body>"), what the receiver checks."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def webhook_body(
    action: Action, params: Mapping[str, str], request_id: int, meta: Mapping[str, str]
) -> bytes:
    payload = {"action": action.name, "parameters": dict(params), "request_id": request_id, **meta}
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()


def command_argv(executor: CommandExecutor, params: Mapping[str, str]) -> list[str]:
    """The argv template with each {name} replaced by its value: one template element is one
    argument whatever the value holds (spaces, `;`, `$(…)`), and nothing is given to a shell."""
    return [PLACEHOLDER.sub(lambda m: params[m.group(1)], arg) for arg in executor.argv]


async def run(
    action: Action,
    params: Mapping[str, str],
    *,
    request_id: int,
    meta: Mapping[str, str],
    secret: str | None,
    session: aiohttp.ClientSession | None = None,
) -> Outcome:
    """Execute once. Dry run (the default per action) describes what would run instead."""
    ex = action.executor
    if isinstance(ex, WebhookExecutor):
        body = webhook_body(action, params, request_id, meta)
        if action.dry_run:
            return Outcome("succeeded", f"dry run: would POST {body.decode()} to {ex.url}")
        return await _post(ex, body, secret, session)
    argv = command_argv(ex, params)
    if action.dry_run:
        return Outcome("succeeded", f"dry run: would run {json.dumps(argv)}")
    return await _exec(ex, argv)


async def _post(
    ex: WebhookExecutor, body: bytes, secret: str | None, session: aiohttp.ClientSession | None
) -> Outcome:
    if not secret:
        return Outcome("failed", "not sent: OPSMEMORY_ACTIONS_WEBHOOK_SECRET is not set")
    ts = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        TIMESTAMP_HEADER: ts,
        SIGNATURE_HEADER: sign(secret, ts, body),
    }
    own = session is None
    s = session or aiohttp.ClientSession()
    try:
        timeout = aiohttp.ClientTimeout(total=ex.timeout_s)
        async with s.post(ex.url, data=body, headers=headers, timeout=timeout) as r:
            text = (await r.text())[:_SHOWN]
            if 200 <= r.status < 300:
                return Outcome("succeeded", f"HTTP {r.status} {_flat(text)}".strip())
            return Outcome("failed", f"HTTP {r.status} {_flat(text)}".strip())
    except TimeoutError:
        return Outcome("unknown", f"no answer within {ex.timeout_s:g} s; it may have run")
    except aiohttp.ClientConnectionError as exc:
        return Outcome("failed", f"could not connect ({type(exc).__name__})")
    finally:
        if own:
            await s.close()


async def _exec(ex: CommandExecutor, argv: list[str]) -> Outcome:
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    except OSError as exc:
        return Outcome("failed", f"could not start {argv[0]}: {exc.strerror or type(exc).__name__}")
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=ex.timeout_s)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return Outcome("unknown", f"killed after {ex.timeout_s:g} s; it may have partly run")
    text = _flat(out.decode(errors="replace")[-_SHOWN:])
    if proc.returncode == 0:
        return Outcome("succeeded", f"exit 0 {text}".strip())
    return Outcome("failed", f"exit {proc.returncode} {text}".strip())


def _flat(text: str) -> str:
    return " ".join(text.split())
