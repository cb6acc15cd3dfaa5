"""A local webhook receiver (a CI/CD pipeline's hook) on 127.0.0.1: checks opsmemory's HMAC
signature the way a real receiver would, counts every call, and answers with `status`.

`calls` holds each accepted call's parsed body and arrival time; `rejected` counts requests
whose signature or timestamp did not verify (they are answered 401 and not counted as calls).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class Call:
    body: dict[str, Any]
    at: float  # time.perf_counter() when it arrived


@dataclass
class WebhookReceiver:
    secret: str
    status: int = 200
    delay_s: float = 0.0
    max_skew_s: int = 300
    reply: dict[str, Any] | None = None  # the body of a 2xx answer (default: ok and a count)
    calls: list[Call] = field(default_factory=list)
    rejected: int = 0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _runner: web.AppRunner | None = field(default=None, repr=False)

    async def start(self) -> str:
        """Serve; returns the hook URL."""
        app = web.Application()
        app.router.add_post("/hook", self._hook)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        return f"http://127.0.0.1:{self._runner.addresses[0][1]}/hook"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def verifies(self, timestamp: str, body: bytes, signature: str) -> bool:
        if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > self.max_skew_s:
            return False
        mac = hmac.new(self.secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
        return hmac.compare_digest("sha256=" + mac.hexdigest(), signature)

    async def _hook(self, request: web.Request) -> web.Response:
        body = await request.read()
        ts = request.headers.get("X-Opsmemory-Timestamp", "")
        sig = request.headers.get("X-Opsmemory-Signature", "")
        if not self.verifies(ts, body, sig):
            self.rejected += 1
            return web.json_response({"error": "bad signature"}, status=401)
        self.calls.append(Call(json.loads(body), time.perf_counter()))
        self.arrived.set()
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.status >= 300:
            return web.json_response({"error": "pipeline unavailable"}, status=self.status)
        body_out = self.reply if self.reply is not None else {"ok": True, "run": len(self.calls)}
        return web.json_response(body_out, status=self.status)
