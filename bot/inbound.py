"""Slack's request URL: the signature is checked on the raw bytes before anything is decoded or
parsed (issue 18), then the body goes to Bolt. Each way a request can be wrong has its status:
too large 413 (aiohttp's client_max_size), unsigned, stale or forged 401, undecodable 400.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.request.internals import parse_body

log = logging.getLogger("opsmemory.inbound")
MAX_AGE_S = 5 * 60  # Slack's own rule: refuse a signature older (or newer) than five minutes


def signed_by_slack(
    raw: bytes,
    headers: Mapping[str, str],
    secret: str | None,
    *,
    now: Callable[[], float] = time.time,
) -> bool:
    """Whether `raw` carries a fresh v0 signature made with `secret` (never decodes `raw`)."""
    timestamp = headers.get("X-Slack-Request-Timestamp", "")
    given = headers.get("X-Slack-Signature", "")
    if not secret or not given or not timestamp.isascii() or not timestamp.isdigit():
        return False
    if len(timestamp) > 12 or abs(now() - int(timestamp)) > MAX_AGE_S:
        return False
    base = b"v0:" + timestamp.encode() + b":" + raw
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), given.encode("utf-8", "replace"))


def parsed_body(text: str, content_type: str | None) -> dict[str, Any] | None:
    """The body as Bolt will read it, or None when it is not a Slack request body at all."""
    try:
        body = parse_body(text, content_type)
    except ValueError:  # JSON (json.JSONDecodeError), also inside a form's payload=
        return None
    if not isinstance(body, dict):
        return None
    # Events and interactivity carry `type`, slash commands `command`; Slack's certificate
    # check posts `ssl_check=1` to slash command URLs.
    if not ({"type", "command", "ssl_check"} & body.keys()):
        return None
    return body


async def dispatch(app: AsyncApp, request: web.Request, *, secret: str | None) -> web.Response:
    """Verify, decode, parse, then let Bolt answer; nothing runs for a refused request."""
    raw = await request.read()  # over client_max_size: aiohttp answers 413 from here
    if not signed_by_slack(raw, request.headers, secret):
        log.info("request_refused", extra={"reason": "signature", "status": 401})
        return web.Response(status=401, text="invalid signature")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        log.info("request_refused", extra={"reason": "encoding", "status": 400})
        return web.Response(status=400, text="the body is not UTF-8")
    # The content type exactly as Bolt extracts it, so both read the body the same way.
    content_type = request.headers.get("Content-Type", "").split(";")[0] or None
    if parsed_body(text, content_type) is None:
        log.info("request_refused", extra={"reason": "body", "status": 400})
        return web.Response(status=400, text="the body is not a Slack request")
    bolt_request = AsyncBoltRequest(
        body=text,
        query=request.query_string,
        headers=request.headers,  # type: ignore[arg-type]  # Bolt reads it as a mapping
    )
    return await to_aiohttp_response(await app.async_dispatch(bolt_request))
