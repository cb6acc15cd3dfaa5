"""Serves the Bolt app: HTTP mode (aiohttp on OPSMEMORY_PORT with /slack/events, /healthz,
/metrics) or Socket Mode when SLACK_APP_TOKEN is set. Owns start-up warm-up and clean shutdown.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp

from bot.metrics import CONTENT_TYPE
from bot.settings import Settings
from memory.store.health import ping

if TYPE_CHECKING:
    from bot.deps import Deps

log = logging.getLogger("opsmemory.runtime")


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
        if deps.knowledge is not None:
            await deps.knowledge.ensure_index()

    async def start_http(
        self, *, host: str | None = None, port: int | None = None, slack_events: bool = True
    ) -> int:
        """Serve HTTP; returns the bound port (pass 0 to pick a free one).

        In Socket Mode this still runs, without /slack/events, so /healthz and /metrics work the
        same in both modes (the Docker health check relies on it).
        """
        self._runner = web.AppRunner(self.web_app(slack_events=slack_events), access_log=None)
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
        from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler

        assert self.settings.slack_app_token is not None
        self._socket = AsyncSocketModeHandler(
            self.app,
            self.settings.slack_app_token.get_secret_value(),
            logger=logging.getLogger("opsmemory.socket"),
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
        self._scheduler.start()

    async def serve_forever(self) -> None:
        await self._stopped.wait()

    def request_stop(self) -> None:
        self._stopped.set()

    async def stop(self) -> None:
        """Stop accepting work and close everything (scheduler, sockets, HTTP, model, database)."""
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
        if self._socket is not None:
            await self._socket.close_async()
        if self._runner is not None:
            await self._runner.cleanup()
        if self.deps.generator is not None:
            await self.deps.generator.close()
        await self.deps.dedupe.drain()
        await self.session.close()
        await self.deps.db.close()

    async def _slack(self, request: web.Request) -> web.Response:
        bolt_resp = await self.app.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(bolt_resp)

    async def _healthz(self, request: web.Request) -> web.Response:
        ok = await ping(self.deps.db)
        return web.json_response({"ok": ok}, status=200 if ok else 503)

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(
            body=self.deps.metrics.render(),
            headers={"Content-Type": CONTENT_TYPE, "X-Content-Type-Options": "nosniff"},
        )
