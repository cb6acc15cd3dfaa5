"""The embedder interface and the factory that picks a backend from settings.

Backends: `onnx-minilm` (default, all-MiniLM-L6-v2 int8 run in-process) and `ollama` (an Ollama
server's /api/embed). Every failure surfaces as `memory.errors.EmbeddingUnavailable`, which callers
catch to fall back to keyword search.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from memory.embedding.ollama import DEFAULT_OLLAMA_HOST, DEFAULT_OLLAMA_MODEL, OllamaEmbedder
from memory.embedding.onnx import OnnxMiniLmEmbedder
from memory.errors import EmbeddingUnavailable

__all__ = [
    "DEFAULT_OLLAMA_HOST",
    "DEFAULT_OLLAMA_MODEL",
    "Embedder",
    "EmbedderKind",
    "EmbeddingUnavailable",
    "OllamaEmbedder",
    "OnnxMiniLmEmbedder",
    "build_embedder",
]

EmbedderKind = Literal["onnx-minilm", "ollama", "none"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors; raises `EmbeddingUnavailable` on any failure.

    `name` is backend + model ("onnx-minilm:all-MiniLM-L6-v2-int8", "ollama:nomic-embed-text").
    `digest` identifies the exact model weights, so stored vectors can be invalidated when it
    changes: sha256 of the ONNX file, or the digest Ollama reports in /api/tags (fetched once, on
    the first embed; "ollama:<model>" when Ollama does not list the model).
    `dim` for Ollama is learned from the first response unless configured; read it after
    `warm_up()` or a first `embed()`.
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def digest(self) -> str: ...

    async def warm_up(self) -> None:
        """Load the model (or reach the server) now, so the first real query is not slow."""
        ...

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts` into a float32 array of shape [len(texts), dim] with unit-length rows."""
        ...

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Same as `embed`, for worker threads and CLI batch jobs (never on the event loop)."""
        ...


def build_embedder(
    kind: EmbedderKind,
    *,
    ollama_host: str | None = None,
    ollama_model: str = DEFAULT_OLLAMA_MODEL,
    timeout_s: float = 10.0,
) -> Embedder | None:
    """Build the configured embedder (nothing is loaded yet); None when embeddings are off."""
    if kind == "onnx-minilm":
        return OnnxMiniLmEmbedder()
    if kind == "ollama":
        return OllamaEmbedder(
            host=ollama_host or DEFAULT_OLLAMA_HOST, model=ollama_model, timeout_s=timeout_s
        )
    if kind == "none":
        return None
    raise ValueError(f"unknown embedder kind {kind!r}; use onnx-minilm, ollama or none")
