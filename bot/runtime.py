"""Serves the Bolt app: HTTP mode (aiohttp on OPSMEMORY_PORT with /slack/events, /healthz,
/metrics) or Socket Mode when SLACK_APP_TOKEN is set. Owns start-up warm-up and the draining stop.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web
from slack_bolt.async_app import AsyncApp

from bot.drain import JOB_EVENTS, DrainReport, InFlight
from bot.inbound import dispatch
from bot.metrics import CONTENT_TYPE
from bot.settings import Settings
from memory.store.health import ping

if TYPE_CHECKING:
    from bot.deps import Deps

log = logging.getLogger("opsmemory.runtime")
# After the grace period: how long cancelled listeners get to unwind, and how long aiohttp waits
# for a request still in Bolt's 3-second ack wait, before the database closes.
UNWIND_S = 3.0


@dataclass
class Runtime:
    settings: Settings
    app: AsyncApp
    deps: Deps
    session: aiohttp.ClientSession
    _runner: web.AppRunner | None = None
    _socket: Any = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    port: int | None = None
    jobs: Any = None
    _scheduler: Any = None
    inflight: InFlight = field(default_factory=InFlight)
    _report: DrainReport | None = None

    def __post_init__(self) -> None:
        self.inflight.install(self.app)

    def web_app(self, *, slack_events: bool = True) -> web.Application:
        """The aiohttp application: Slack's request URL (HTTP mode only), health and metrics."""
        web_app = web.Application()
        if slack_events:
            web_app.router.add_post("/slack/events", self._slack)
        web_app.router.add_get("/healthz", self._healthz)
        web_app.router.add_get("/metrics", self._metrics)
        return web_app

    async def warm_up(self) -> None:
        """Learn our own team (auth.test), load models and the runbook index before the first
        question arrives."""
        deps = self.deps
        team_id = await deps.home.learn(self.app.client)
        log.info("home_team_learned", extra={"team": team_id})
        await deps.redactor.warm_up()
        await deps.notes.apply_pending_context()  # what a stop or crash left pending
        if deps.knowledge is not None:
            await deps.knowledge.ensure_index()
        from bot.guarded.thread import recover

        await recover(deps, self.app.client)  # interrupted executions: reported, never re-run

    async def start_http(
        self, *, host: str | None = None, port: int | None = None, slack_events: bool = True
    ) -> int:
        """Serve HTTP; returns the bound port (pass 0 to pick a free one).

        In Socket Mode this still runs, without /slack/events, so /healthz and /metrics work the
        same in both modes (the Docker health check relies on it).
        """
        self._runner = web.AppRunner(
            self.web_app(slack_events=slack_events), access_log=None, shutdown_timeout=UNWIND_S
        )
        await self._runner.setup()
        site = web.TCPSite(
            self._runner, host or self.settings.host, self.settings.port if port is None else port
        )
        await site.start()
        self.port = self._runner.addresses[0][1]
        log.info("http_listening", extra={"port": self.port})
        return self.port

    async def start_socket_mode(self) -> None:
        """Connect over Socket Mode (apps.connections.open goes to OPSMEMORY_SLACK_API_URL)."""
        assert self.settings.slack_app_token is not None
        self._socket = _socket_handler(
            self.app,
            self.settings.slack_app_token.get_secret_value(),
            self.inflight,
        )
        await self._socket.connect_async()
        log.info("socket_mode_connected")

    async def start_scheduler(self) -> None:
        """Start roll-ups and the daily digest (team id from auth.test)."""
        from bot.scheduler import Jobs, build_scheduler

        team_id = self.deps.home.team_id or await self.deps.home.learn(self.app.client)
        self.jobs = Jobs(self.deps, self.app.client, team_id=team_id)
        self._scheduler = build_scheduler(
            self.jobs, digest_time=self.settings.digest_time, timezone=self.settings.timezone
        )
        self._scheduler.add_listener(self.inflight.on_job_event, JOB_EVENTS)
        self._scheduler.start()

    async def serve_forever(self) -> None:
        await self._stopped.wait()

    def request_stop(self) -> None:
        """A signal: the first starts the draining stop, a second abandons what still runs."""
        if self._stopped.is_set():
            log.warning("stop_hurried")
            self.inflight.hurry()
        self._stopped.set()

    async def stop(self) -> DrainReport:
        """Drain, then close: refuse new work (/healthz and /slack/events answer 503 first), let
        accepted listeners, their writes and posts, and running jobs finish within
        OPSMEMORY_SHUTDOWN_GRACE_S, then close scheduler, sockets, HTTP, model and database.
        Whatever outlived the grace period is cancelled and named in the log (ids, no text).
        """
        if self._report is not None:
            return self._report
        self.inflight.accepting = False
        log.info("drain_started", extra={"grace_s": self.settings.shutdown_grace_s})
        if self._scheduler is not None:
            self._scheduler.pause()  # no new runs; running jobs are waited for below
        report = await self.inflight.wait_idle(self.settings.shutdown_grace_s)
        if report.clean:
            log.info("drain_done", extra=report.log_fields())
        else:
            log.error("drain_abandoned", extra=report.log_fields())
            await self.inflight.cancel_listeners(within_s=UNWIND_S)
        self._report = report
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)  # cancels any job still running
        if self._socket is not None:
            await self._socket.close_async()
        if self._runner is not None:
            await self._runner.cleanup()
        if self.deps.generator is not None:
            await self.deps.generator.close()
        await self.deps.dedupe.drain()
        await self.session.close()
        await self.deps.db.close()
        return report

    async def _slack(self, request: web.Request) -> web.Response:
        if not self.inflight.accepting:
            # Slack retries an Events API delivery that is not acknowledged, later or elsewhere.
            return web.Response(status=503, text="stopping")
        self.inflight.request_started()
        try:
            # Signature first, on the raw bytes; then decoding and parsing (issue 18).
            secret = self.settings.slack_signing_secret
            return await dispatch(
                self.app, request, secret=secret.get_secret_value() if secret else None
            )
        finally:
            await self.inflight.request_done()

    async def _healthz(self, request: web.Request) -> web.Response:
        if not self.inflight.accepting:
            return web.json_response({"ok": False, "draining": True}, status=503)
        ok = await ping(self.deps.db)
        return web.json_response({"ok": ok}, status=200 if ok else 503)

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(
            body=self.deps.metrics.render(),
            headers={"Content-Type": CONTENT_TYPE, "X-Content-Type-Options": "nosniff"},
        )


def _socket_handler(app: AsyncApp, app_token: str, inflight: InFlight) -> Any:
    """Bolt's Socket Mode handler, counting each frame's dispatch as a request and leaving frames
    unacknowledged while stopping, so Slack redelivers them to a live connection."""
    from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler

    class DrainingSocketModeHandler(AsyncSocketModeHandler):
        async def handle(self, client: Any, req: Any) -> None:
            if not inflight.accepting:
                return
            inflight.request_started()
            try:
                await super().handle(client, req)
            finally:
                await inflight.request_done()

    return DrainingSocketModeHandler(app, app_token, logger=logging.getLogger("opsmemory.socket"))
