"""A stand-in Ollama server on 127.0.0.1 (port 0) speaking /api/embed, /api/chat, /api/tags.

Behaviour is plain attributes, changeable between requests: embedding `dim`, `delay_s` per request,
`fail_status` (e.g. 500 for every /api/* call), `embed_shape` to send malformed embeddings, and the
chat `reply` with its token counts. Unknown models get Ollama's 404. Every request is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from aiohttp import web

EmbedShape = Literal["ok", "missing_row", "ragged", "wrong_dim", "not_a_list"]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any  # parsed JSON, or None for bodiless requests


def fake_vector(text: str, dim: int) -> list[float]:
    """A unit vector derived from sha256(text): same text, same vector, on every run."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    v = np.random.default_rng(seed).standard_normal(dim)
    return (v / np.linalg.norm(v)).tolist()


def _tagged(model: str) -> str:
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


@dataclass
class FakeOllama:
    """Start with `base_url = await fake.start()`, stop with `await fake.stop()`."""

    models: list[str] = field(default_factory=lambda: ["nomic-embed-text", "llama3.2"])
    dim: int = 768
    delay_s: float = 0.0
    fail_status: int | None = None
    embed_shape: EmbedShape = "ok"
    reply: str = "This is the fake Ollama reply."
    prompt_eval_count: int = 42
    eval_count: int = 7
    requests: list[RecordedRequest] = field(default_factory=list)
    _runner: web.AppRunner | None = field(default=None, repr=False)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    async def start(self) -> str:
        self._stopping = asyncio.Event()
        app = web.Application()
        app.router.add_post("/api/embed", self._embed)
        app.router.add_post("/api/chat", self._chat)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/version", self._version)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        return f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        self._stopping.set()  # wakes handlers still sleeping out `delay_s`
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def digest_of(self, model: str) -> str:
        return hashlib.sha256(_tagged(model).encode()).hexdigest()

    async def _admit(self, request: web.Request) -> tuple[Any, web.Response | None]:
        """Record the request, apply delay and failure; returns (body, early response or None)."""
        body = await request.json() if request.can_read_body else None
        self.requests.append(RecordedRequest(request.method, request.path, body))
        if self.delay_s > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=self.delay_s)
        if self.fail_status is not None:
            return body, web.json_response({"error": "fake failure"}, status=self.fail_status)
        model = body.get("model") if isinstance(body, dict) else None
        if model is not None and _tagged(model) not in {_tagged(m) for m in self.models}:
            error = f'model "{model}" not found, try pulling it first'
            return body, web.json_response({"error": error}, status=404)
        return body, None

    async def _embed(self, request: web.Request) -> web.Response:
        body, early = await self._admit(request)
        if early is not None:
            return early
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        rows: Any = [fake_vector(t, self.dim) for t in texts]
        if self.embed_shape == "missing_row":
            rows = rows[:-1]
        elif self.embed_shape == "ragged":
            rows[-1] = rows[-1][:-1]
        elif self.embed_shape == "wrong_dim":
            rows = [[*r, 0.0] for r in rows]
        elif self.embed_shape == "not_a_list":
            rows = "embeddings"
        tokens = sum(len(t.split()) for t in texts)
        return web.json_response(
            {"model": body["model"], "embeddings": rows, "prompt_eval_count": tokens}
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body, early = await self._admit(request)
        if early is not None:
            return early
        message = {"role": "assistant", "content": self.reply}
        final = {
            "model": body["model"],
            "created_at": "2025-01-01T00:00:00Z",
            "message": message,
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": self.prompt_eval_count,
            "eval_count": self.eval_count,
        }
        if body.get("stream") is False:
            return web.json_response(final)
        # Ollama streams by default: NDJSON chunks, the last one carrying done and the counts.
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        chunk = {"model": body["model"], "message": message, "done": False}
        await resp.write(json.dumps(chunk).encode() + b"\n")
        await resp.write(json.dumps({**final, "message": {**message, "content": ""}}).encode())
        await resp.write_eof()
        return resp

    async def _tags(self, request: web.Request) -> web.Response:
        _, early = await self._admit(request)
        if early is not None:
            return early
        models = [
            {"name": _tagged(m), "model": _tagged(m), "digest": self.digest_of(m)}
            for m in self.models
        ]
        return web.json_response({"models": models})

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.0.0-fake"})
