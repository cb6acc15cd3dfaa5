"""One question is embedded once, however many searches ask for it (issue 5 answer latency)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import numpy as np
import pytest

from memory.embedding.cache import QueryCachingEmbedder
from memory.embedding.ollama import OllamaEmbedder
from memory.errors import EmbeddingUnavailable
from tests.fakes.ollama_server import FakeOllama


@pytest.fixture
async def ollama() -> AsyncIterator[tuple[FakeOllama, str]]:
    fake = FakeOllama(dim=16)
    url = await fake.start()
    yield fake, url
    await fake.stop()


def _embeds(fake: FakeOllama) -> list[object]:
    return [r.body for r in fake.requests if r.path == "/api/embed"]


async def test_repeated_question_reaches_the_model_once(ollama: tuple[FakeOllama, str]) -> None:
    fake, url = ollama
    cached = QueryCachingEmbedder(OllamaEmbedder(host=url, timeout_s=2))
    first = await cached.embed(["disk full on db-1"])
    again = await cached.embed(["disk full on db-1"])
    assert np.array_equal(first, again)
    assert len(_embeds(fake)) == 1


async def test_concurrent_identical_questions_share_one_call(
    ollama: tuple[FakeOllama, str],
) -> None:
    fake, url = ollama
    fake.delay_s = 0.2
    cached = QueryCachingEmbedder(OllamaEmbedder(host=url, timeout_s=2))
    results = await asyncio.gather(*(cached.embed(["pool exhausted"]) for _ in range(5)))
    assert all(np.array_equal(results[0], r) for r in results)
    assert len(_embeds(fake)) == 1


async def test_failure_is_raised_and_not_remembered(ollama: tuple[FakeOllama, str]) -> None:
    fake, url = ollama
    cached = QueryCachingEmbedder(OllamaEmbedder(host=url, timeout_s=2))
    fake.fail_status = 500
    with pytest.raises(EmbeddingUnavailable):
        await cached.embed(["cert expiry"])
    fake.fail_status = None
    vectors = await cached.embed(["cert expiry"])
    assert vectors.shape == (1, 16)


async def test_cached_vectors_cannot_be_changed_by_a_caller(
    ollama: tuple[FakeOllama, str],
) -> None:
    _, url = ollama
    cached = QueryCachingEmbedder(OllamaEmbedder(host=url, timeout_s=2))
    vectors = await cached.embed(["latency"])
    with pytest.raises(ValueError):
        vectors[0, 0] = 1.0


async def test_batches_pass_through_uncached(ollama: tuple[FakeOllama, str]) -> None:
    fake, url = ollama
    cached = QueryCachingEmbedder(OllamaEmbedder(host=url, timeout_s=2))
    await cached.embed(["a", "b"])
    await cached.embed(["a", "b"])
    assert len(_embeds(fake)) == 2
