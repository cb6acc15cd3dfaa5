"""A small cache in front of an embedder for questions: one mention asks recall, runbook search
and past-incident search the same question, so the text is embedded once, not three times.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from memory.embedding.embedder import Embedder


class QueryCachingEmbedder:
    """Wraps an Embedder; single-text calls are cached (LRU) and concurrent duplicates share one
    computation. Batches pass straight through (ingest texts are rarely repeated)."""

    def __init__(self, inner: Embedder, *, size: int = 512) -> None:
        self._inner = inner
        self._size = size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._inflight: dict[str, asyncio.Future[np.ndarray]] = {}

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def digest(self) -> str:
        return self._inner.digest

    async def warm_up(self) -> None:
        await self._inner.warm_up()

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) != 1:
            return await self._inner.embed(texts)
        text = texts[0]
        hit = self._cache.get(text)
        if hit is not None:
            self._cache.move_to_end(text)
            return hit
        pending = self._inflight.get(text)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        self._inflight[text] = future
        try:
            vectors = await self._inner.embed(texts)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved here so an unawaited failure is not reported twice
            raise
        else:
            vectors.setflags(write=False)  # shared between callers: nobody may change it
            future.set_result(vectors)
            self._cache[text] = vectors
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
            return vectors
        finally:
            del self._inflight[text]

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed_sync(texts)
