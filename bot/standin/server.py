"""A local, stateful stand-in for the Slack Web API (and response_url webhooks) on 127.0.0.1.

Answers like Slack: HTTP 200 with `ok`/`error`, `ts`, `response_metadata`; 429 with `Retry-After`
when rate limiting is injected. Every call is recorded with its parsed body so tests can assert on
what a user would see. Faults (ok:false errors, 429, 5xx, slow replies) are queued per method.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.standin import methods
from bot.standin.socket_mode import SocketHub
from bot.standin.workspace import Workspace


@dataclass(frozen=True)
class Call:
    """One request the bot made: Web API method (or `response_url`) and its parsed body."""

    method: str
    body: dict[str, Any]
    at: float


@dataclass
class Fault:
    status: int = 200
    error: str | None = None
    retry_after: int | None = None
    delay_s: float = 0.0
    enforce: bool = False  # refuse calls until retry_after has passed
    applied: bool = False  # the call takes effect, then its reply is lost (HTTP 500)


@dataclass
class FakeSlack:
    """Start with `await fake.start()` (returns the API base URL), stop with `await fake.stop()`."""

    workspace: Workspace = field(default_factory=Workspace)
    calls: list[Call] = field(default_factory=list)
    _faults: dict[str, deque[Fault]] = field(default_factory=lambda: defaultdict(deque))
    _runner: web.AppRunner | None = None
    _changed: asyncio.Condition | None = None
    base_url: str = ""
    sockets: SocketHub = field(default_factory=SocketHub)
    _holds: dict[str, asyncio.Event] = field(default_factory=dict)
    _limited_until: dict[str, float] = field(default_factory=dict)
    # Called (synchronously, no arguments) after anything may have changed the workspace: the
    # sandbox streams updates to its page from here.
    listeners: list[Callable[[], None]] = field(default_factory=list)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        self._changed = asyncio.Condition()
        app = web.Application(client_max_size=4 * 1024 * 1024)
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)
        app.router.add_post("/respond/{key}", self._respond)
        app.router.add_get("/socket", self.sockets.handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound = self._runner.addresses[0][1]
        self.base_url = f"http://{host}:{bound}"
        return self.api_url

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    async def stop(self) -> None:
        await self.sockets.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # Fault injection -----------------------------------------------------------------------
    def rate_limit(
        self, method: str, *, retry_after: int = 1, times: int = 1, enforce: bool = False
    ) -> None:
        """The next `times` calls to `method` get HTTP 429 with Retry-After. With `enforce`, as
        on Slack, a call made before that Retry-After has passed is refused with 429 again."""
        for _ in range(times):
            fault = Fault(429, "ratelimited", retry_after=retry_after, enforce=enforce)
            self._faults[method].append(fault)

    def fail(self, method: str, error: str, *, times: int = 1) -> None:
        """The next `times` calls answer HTTP 200 {"ok": false, "error": error}."""
        for _ in range(times):
            self._faults[method].append(Fault(200, error))

    def server_error(self, method: str, *, status: int = 500, times: int = 1) -> None:
        for _ in range(times):
            self._faults[method].append(Fault(status))

    def lose_reply(self, method: str, *, times: int = 1) -> None:
        """The next `times` calls take effect (a message is posted), then answer HTTP 500: the
        reply a timeout or a proxy lost, so the caller cannot tell the call worked."""
        for _ in range(times):
            self._faults[method].append(Fault(500, applied=True))

    def slow(self, method: str, delay_s: float, *, times: int = 1) -> None:
        for _ in range(times):
            self._faults[method].append(Fault(delay_s=delay_s))

    def hold(self, method: str) -> asyncio.Event:
        """Calls to `method` (or "response_url") are recorded, then wait unanswered until the
        returned event is set: tests order things without timing them."""
        gate = asyncio.Event()
        self._holds[method] = gate
        return gate

    # Inspection ----------------------------------------------------------------------------
    def calls_to(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def response_url(self, key: str) -> str:
        """A response_url the bot can POST to (slash commands, actions)."""
        return f"{self.base_url}/respond/{key}"

    async def wait_for(self, predicate: Any, within_s: float = 5.0) -> None:
        """Wait until `predicate()` is true after some call; raise TimeoutError otherwise."""
        assert self._changed is not None, "start() the stand-in first"
        async with asyncio.timeout(within_s), self._changed:
            await self._changed.wait_for(predicate)

    # HTTP ----------------------------------------------------------------------------------
    async def _record(self, method: str, body: dict[str, Any]) -> None:
        self.calls.append(Call(method, body, time.monotonic()))

    async def changed(self) -> None:
        """Tell waiters and listeners the workspace changed outside a Web API call (a human
        posted, a view was closed): the driver's and the sandbox's own writes."""
        await self._notify()

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()
        for listener in self.listeners:
            listener()

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        body = await _parse_body(request)
        await self._record(method, body)
        try:
            await self._wait_if_held(method)
            limited = self._limited_until.get(method, 0.0) - time.monotonic()
            if limited > 0:
                return _too_many(math.ceil(limited))
            fault = self._faults[method].popleft() if self._faults.get(method) else None
            if fault is not None and fault.applied:
                handler = methods.HANDLERS.get(method)
                if handler is not None:
                    handler(self.workspace, body)
                return web.Response(status=fault.status, text="upstream error")
            if fault is not None:
                if fault.delay_s:
                    await asyncio.sleep(fault.delay_s)
                if fault.retry_after is not None:
                    if fault.enforce:
                        self._limited_until[method] = time.monotonic() + fault.retry_after
                    return _too_many(fault.retry_after)
                if fault.status >= 500:
                    return web.Response(status=fault.status, text="upstream error")
                if fault.error:
                    return web.json_response({"ok": False, "error": fault.error})
            token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            token = token or str(body.get("token", ""))
            if method == "apps.connections.open":
                return web.json_response(self._connections_open(token))
            if token != self.workspace.bot_token:
                return web.json_response({"ok": False, "error": "invalid_auth"})
            handler = methods.HANDLERS.get(method)
            if handler is None:
                return web.json_response({"ok": False, "error": "unknown_method"})
            scopes = {"x-oauth-scopes": ",".join(self.workspace.bot_scopes)}  # as Slack does
            return web.json_response(handler(self.workspace, body), headers=scopes)
        finally:
            await self._notify()

    def _connections_open(self, token: str) -> dict[str, Any]:
        """Socket Mode needs the app-level token (xapp-), never the bot token."""
        if token != self.workspace.app_token:
            return {"ok": False, "error": "invalid_auth"}
        ws_url = self.base_url.replace("http://", "ws://", 1) + "/socket"
        return {"ok": True, "url": ws_url}

    async def _wait_if_held(self, method: str) -> None:
        gate = self._holds.get(method)
        if gate is not None and not gate.is_set():
            await self._notify()  # the held call is visible to wait_for / polling now
            await gate.wait()

    async def _respond(self, request: web.Request) -> web.Response:
        body = await _parse_body(request)
        await self._record("response_url", {**body, "_key": request.match_info["key"]})
        await self._wait_if_held("response_url")
        methods.apply_response_url(self.workspace, request.match_info["key"], body)
        await self._notify()
        return web.Response(text="ok")


def _too_many(retry_after: int) -> web.Response:
    return web.json_response(
        {"ok": False, "error": "ratelimited"},
        status=429,
        headers={"Retry-After": str(retry_after)},
    )


async def _parse_body(request: web.Request) -> dict[str, Any]:
    """JSON, form or query arguments, as slack_sdk sends them for different methods."""
    body: dict[str, Any] = dict(request.query)
    if request.can_read_body:
        if request.content_type == "application/json":
            body.update(await request.json())
        else:
            form = await request.post()
            for key, value in form.items():
                body[key] = _maybe_json(str(value))
    return body


def _maybe_json(value: str) -> Any:
    """slack_sdk form-encodes nested arguments (blocks, view) as JSON strings."""
    if value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
