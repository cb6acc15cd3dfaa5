"""Socket Mode for the stand-in: apps.connections.open hands out a ws:// URL on the stand-in,
which says hello and then pushes envelopes (events_api, slash_commands, interactive) and
collects the bot's acks, as Slack's WebSocket gateway does. No signing in Socket Mode.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from aiohttp import WSMsgType, web


def envelope(
    kind: str, payload: dict[str, Any], *, envelope_id: str, retry_attempt: int = 0
) -> dict[str, Any]:
    """One frame as Slack sends it; first deliveries carry retry_attempt 0 and reason ''."""
    frame: dict[str, Any] = {
        "envelope_id": envelope_id,
        "payload": payload,
        "type": kind,
        "accepts_response_payload": kind != "events_api",
    }
    if kind == "events_api":
        frame["retry_attempt"] = retry_attempt
        frame["retry_reason"] = "" if retry_attempt == 0 else "timeout"
    return frame


class SocketHub:
    """The WebSocket side of the stand-in; one connection at a time is enough for tests."""

    def __init__(self) -> None:
        self._ws: web.WebSocketResponse | None = None
        self._connected = asyncio.Event()
        self._acks: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._ws = ws
        hello = {
            "type": "hello",
            "num_connections": 1,
            "connection_info": {"app_id": "A0STANDIN"},
            "debug_info": {"host": "standin", "approximate_connection_time": 3600},
        }
        await ws.send_str(json.dumps(hello))
        self._connected.set()
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                ack = json.loads(msg.data)
                future = self._acks.pop(str(ack.get("envelope_id")), None)
                if future is not None and not future.done():
                    future.set_result(ack)
        self._connected.clear()
        return ws

    async def wait_connected(self, within_s: float = 10.0) -> None:
        await asyncio.wait_for(self._connected.wait(), within_s)

    async def push(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        retry_attempt: int = 0,
        envelope_id: str | None = None,
        within_s: float = 5.0,
    ) -> dict[str, Any]:
        """Send one envelope and return the bot's ack frame (TimeoutError if it never acks)."""
        assert self._ws is not None, "no Socket Mode connection yet"
        eid = envelope_id or f"env-{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._acks[eid] = future
        frame = envelope(kind, payload, envelope_id=eid, retry_attempt=retry_attempt)
        await self._ws.send_str(json.dumps(frame))
        return await asyncio.wait_for(future, within_s)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
