"""Embeddings from an Ollama server's POST /api/embed, with explicit timeouts and shape checks.

Plain aiohttp rather than the `ollama` client: we need separate connect and total timeouts, and
no proxy or host settings picked up from the environment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import aiohttp
import numpy as np
from yarl import URL

from memory.errors import EmbeddingUnavailable

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "nomic-embed-text"
BATCH_SIZE = 32  # keeps each request well inside the timeout on a CPU-only Ollama
CONNECT_TIMEOUT_S = 3.0


class OllamaEmbedder:
    """Embeds through Ollama; `dim` is learned from the first response unless given."""

    def __init__(
        self,
        *,
        host: str = DEFAULT_OLLAMA_HOST,
        model: str = DEFAULT_OLLAMA_MODEL,
        timeout_s: float = 10.0,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        dim: int | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self._base = URL(host)
        # Shown in error messages: scheme, host and port only, never credentials in the URL.
        self._shown_host = str(self._base.origin()) if self._base.absolute else host
        self._model = model
        self._timeout = aiohttp.ClientTimeout(
            total=timeout_s, sock_connect=min(connect_timeout_s, timeout_s)
        )
        self._timeout_s = timeout_s
        self._dim = dim
        self._batch_size = batch_size
        self._digest: str | None = None
        self._digest_fetched = False  # /api/tags is asked once, on the first embed

    @property
    def name(self) -> str:
        return f"ollama:{self._model}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            raise RuntimeError("OllamaEmbedder.dim is known after warm_up() or the first embed()")
        return self._dim

    @property
    def digest(self) -> str:
        """Ollama's digest from /api/tags (asked on the first embed), else "ollama:<model>"."""
        return self._digest or f"ollama:{self._model}"

    async def warm_up(self) -> None:
        """Reach the server, fetch the digest and learn `dim` with a one-word probe."""
        await self.embed(["warm-up"])

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:  # with no dim known yet there is nothing to learn it from: shape (0, 0)
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        try:
            async with aiohttp.ClientSession(timeout=self._timeout) as session:
                if not self._digest_fetched:
                    self._digest = await self._fetch_digest(session)
                    self._digest_fetched = True
                parts = [
                    await self._embed_batch(session, texts[i : i + self._batch_size])
                    for i in range(0, len(texts), self._batch_size)
                ]
        except TimeoutError as exc:
            raise self._unavailable(f"did not answer within {self._timeout_s:g} s") from exc
        except aiohttp.ClientError as exc:
            raise self._unavailable(f"could not be reached ({type(exc).__name__})") from exc
        return np.vstack(parts)

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Runs `embed` on a private event loop; call from worker threads or the CLI only."""
        return asyncio.run(self.embed(texts))

    async def _fetch_digest(self, session: aiohttp.ClientSession) -> str | None:
        """The model's digest as listed by /api/tags; None when the server does not list it."""
        async with session.get(self._base / "api" / "tags") as resp:
            try:
                body = await resp.json(content_type=None) if resp.status == 200 else None
            except ValueError:
                body = None
        models = body.get("models") if isinstance(body, dict) else None
        wanted = {self._model, _with_default_tag(self._model)}
        for entry in models if isinstance(models, list) else []:
            if isinstance(entry, dict) and wanted & {entry.get("name"), entry.get("model")}:
                digest = entry.get("digest")
                return digest if isinstance(digest, str) and digest else None
        return None

    async def _embed_batch(self, session: aiohttp.ClientSession, texts: list[str]) -> np.ndarray:
        payload = {"model": self._model, "input": texts}
        async with session.post(self._base / "api" / "embed", json=payload) as resp:
            if resp.status == 404:
                raise EmbeddingUnavailable(
                    f"Ollama at {self._shown_host} has no model {self._model}; run "
                    f"`ollama pull {self._model}` there or configure another embedding model."
                )
            if resp.status != 200:
                raise self._unavailable(f"answered HTTP {resp.status} to /api/embed")
            try:
                body = await resp.json(content_type=None)
            except ValueError as exc:
                raise self._unavailable("sent a response that is not JSON") from exc
        return self._validated(body, expected_rows=len(texts))

    def _validated(self, body: Any, *, expected_rows: int) -> np.ndarray:
        """Check the response is n rows of one known width, then L2-normalise them."""
        rows = body.get("embeddings") if isinstance(body, dict) else None
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):  # ragged rows or non-numbers
            vectors = np.zeros((0, 0), dtype=np.float32)
        width = vectors.shape[1] if vectors.ndim == 2 else 0
        if vectors.ndim != 2 or vectors.shape[0] != expected_rows or width == 0:
            raise self._unavailable(
                f"returned embeddings of the wrong shape for {expected_rows} texts"
            )
        if self._dim is not None and width != self._dim:
            raise self._unavailable(f"returned {width}-dimensional vectors, expected {self._dim}")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(np.isfinite(norms)) or np.any(norms == 0):
            raise self._unavailable("returned empty or non-finite vectors")
        self._dim = width
        return vectors / norms

    def _unavailable(self, problem: str) -> EmbeddingUnavailable:
        return EmbeddingUnavailable(
            f"Ollama at {self._shown_host} {problem}; check that it is running and serving "
            f"{self._model}, or switch the embedder to onnx-minilm."
        )


def _with_default_tag(model: str) -> str:
    """Ollama lists "nomic-embed-text" as "nomic-embed-text:latest"."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"
