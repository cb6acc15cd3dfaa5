"""The embedder (issue 2, item 7): real ONNX MiniLM model, and Ollama via the fake server."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from memory.embedding.embedder import (
    Embedder,
    EmbeddingUnavailable,
    OllamaEmbedder,
    OnnxMiniLmEmbedder,
    build_embedder,
)
from memory.embedding.onnx import MODEL_SHA256, TOKENIZER_PATH, _Loaded, default_model_path
from tests.fakes.ollama_server import FakeOllama, fake_vector

INCIDENT_TEXTS = [
    "database connection pool exhausted",
    "too many db connections",
    "certificate expired",
    "p99 latency on checkout-api went from 180ms to 2.4s after the 14:05 deploy",
    "Rolled back build 4812; error rate back under 0.1%. Keeping the incident open for an hour.",
    "disk full on kafka-broker-3",
]


@pytest.fixture(scope="module")
def onnx() -> OnnxMiniLmEmbedder:
    """One real model for the module: loading it takes about a second."""
    return OnnxMiniLmEmbedder()


@pytest.fixture
async def fake_ollama() -> AsyncIterator[tuple[FakeOllama, str]]:
    fake = FakeOllama(dim=16)
    base_url = await fake.start()
    yield fake, base_url
    await fake.stop()


def _corrupt_copy(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    data = bytearray(dst.read_bytes())
    data[len(data) // 2] ^= 0x01
    dst.write_bytes(bytes(data))
    return dst


async def test_onnx_embeds_to_unit_float32_rows_of_dim_384(onnx: OnnxMiniLmEmbedder) -> None:
    vectors = await onnx.embed(INCIDENT_TEXTS)
    assert isinstance(onnx, Embedder)
    assert vectors.shape == (len(INCIDENT_TEXTS), 384) == (len(INCIDENT_TEXTS), onnx.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert onnx.name == "onnx-minilm:all-MiniLM-L6-v2-int8"
    assert onnx.digest == MODEL_SHA256


async def test_onnx_empty_input_gives_zero_rows(onnx: OnnxMiniLmEmbedder) -> None:
    assert (await onnx.embed([])).shape == (0, 384)


async def test_onnx_similar_incidents_score_higher_than_unrelated(
    onnx: OnnxMiniLmEmbedder,
) -> None:
    pool, conns, cert = await onnx.embed(INCIDENT_TEXTS[:3])
    assert pool @ conns > pool @ cert + 0.3
    assert pool @ conns > conns @ cert + 0.3


async def test_onnx_batch_equals_one_at_a_time_despite_dynamic_padding(
    onnx: OnnxMiniLmEmbedder,
) -> None:
    """Mixed lengths pad short texts inside a batch; the mask must make that invisible."""
    texts = INCIDENT_TEXTS * 7  # 42 texts: more than one chunk of 32
    batched = await onnx.embed(texts)
    singles = np.vstack([await onnx.embed([t]) for t in INCIDENT_TEXTS])
    np.testing.assert_allclose(batched, np.vstack([singles] * 7), atol=1e-5)


async def test_onnx_text_beyond_256_tokens_is_truncated_not_refused(
    onnx: OnnxMiniLmEmbedder,
) -> None:
    long_text = " ".join(f"step {i}: restarted pod web-{i} in us-east-1" for i in range(200))
    prefix_only = " ".join(f"step {i}: restarted pod web-{i} in us-east-1" for i in range(60))
    vectors = await onnx.embed([long_text, prefix_only])
    assert vectors.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > 0.95  # only the first 256 tokens count


async def test_onnx_embed_sync_matches_embed_in_a_worker_thread(
    onnx: OnnxMiniLmEmbedder,
) -> None:
    from_thread = await asyncio.to_thread(onnx.embed_sync, INCIDENT_TEXTS)
    np.testing.assert_allclose(from_thread, await onnx.embed(INCIDENT_TEXTS), atol=1e-6)


class _LoadCountingEmbedder(OnnxMiniLmEmbedder):
    """The real embedder, counting how often it reads and builds the model."""

    loads = 0

    def _load_files(self) -> _Loaded:
        self.loads += 1
        return super()._load_files()


async def test_onnx_concurrent_first_calls_load_the_model_once() -> None:
    embedder = _LoadCountingEmbedder()
    results = await asyncio.gather(*(embedder.embed([t]) for t in INCIDENT_TEXTS))
    await asyncio.gather(embedder.warm_up(), asyncio.to_thread(embedder.embed_sync, ["again"]))
    assert all(r.shape == (1, 384) for r in results)
    assert embedder.loads == 1


async def test_onnx_model_with_one_byte_changed_is_refused(tmp_path: Path) -> None:
    bad = _corrupt_copy(default_model_path(), tmp_path / "model.onnx")
    embedder = OnnxMiniLmEmbedder(model_path=bad)
    with pytest.raises(EmbeddingUnavailable, match=r"sha256 check .*force-reinstall"):
        await embedder.embed(["certificate expired"])


async def test_onnx_tokenizer_with_one_byte_changed_is_refused(tmp_path: Path) -> None:
    bad = _corrupt_copy(TOKENIZER_PATH, tmp_path / "tokenizer.json")
    with pytest.raises(EmbeddingUnavailable, match=r"tokenizer file .* sha256 check"):
        await OnnxMiniLmEmbedder(tokenizer_path=bad).embed(["certificate expired"])


async def test_onnx_missing_model_file_is_refused(tmp_path: Path) -> None:
    embedder = OnnxMiniLmEmbedder(model_path=tmp_path / "absent.onnx")
    with pytest.raises(EmbeddingUnavailable, match="cannot be read; reinstall"):
        await embedder.warm_up()


async def test_onnx_file_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    """The hash matches what we were told to expect, but onnxruntime cannot load it."""
    junk = tmp_path / "model.onnx"
    junk.write_bytes(b"not an onnx model")
    embedder = OnnxMiniLmEmbedder(
        model_path=junk, model_sha256=hashlib.sha256(b"not an onnx model").hexdigest()
    )
    with pytest.raises(EmbeddingUnavailable, match="could not be loaded"):
        await embedder.embed(["x"])


async def test_ollama_embeds_learns_dim_and_reports_digest(
    fake_ollama: tuple[FakeOllama, str],
) -> None:
    fake, url = fake_ollama
    embedder = OllamaEmbedder(host=url, timeout_s=2)
    vectors = await embedder.embed(["certificate expired", "disk full"])
    assert vectors.shape == (2, 16) and vectors.dtype == np.float32
    assert embedder.dim == 16
    np.testing.assert_allclose(vectors[0], fake_vector("certificate expired", 16), atol=1e-6)
    assert embedder.digest == fake.digest_of("nomic-embed-text")
    await embedder.embed(["again"])
    assert [r.path for r in fake.requests].count("/api/tags") == 1
    assert fake.requests[1].body == {
        "model": "nomic-embed-text",
        "input": ["certificate expired", "disk full"],
    }


async def test_ollama_large_input_is_sent_in_batches_in_order(
    fake_ollama: tuple[FakeOllama, str],
) -> None:
    fake, url = fake_ollama
    texts = [f"alert {i}" for i in range(70)]
    vectors = await OllamaEmbedder(host=url, timeout_s=2).embed(texts)
    np.testing.assert_allclose(vectors[69], fake_vector("alert 69", 16), atol=1e-6)
    assert [len(r.body["input"]) for r in fake.requests if r.path == "/api/embed"] == [32, 32, 6]


async def test_ollama_http_500_is_unavailable(fake_ollama: tuple[FakeOllama, str]) -> None:
    fake, url = fake_ollama
    fake.fail_status = 500
    with pytest.raises(EmbeddingUnavailable, match="HTTP 500"):
        await OllamaEmbedder(host=url, timeout_s=2).embed(["x"])


async def test_ollama_unknown_model_says_to_pull_it(fake_ollama: tuple[FakeOllama, str]) -> None:
    _, url = fake_ollama
    with pytest.raises(EmbeddingUnavailable, match="ollama pull mxbai-embed-large"):
        await OllamaEmbedder(host=url, model="mxbai-embed-large", timeout_s=2).embed(["x"])


async def test_ollama_slower_than_timeout_is_unavailable(
    fake_ollama: tuple[FakeOllama, str],
) -> None:
    fake, url = fake_ollama
    fake.delay_s = 5
    embedder = OllamaEmbedder(host=url, timeout_s=0.3)
    started = asyncio.get_running_loop().time()
    with pytest.raises(EmbeddingUnavailable, match=r"did not answer within 0\.3 s"):
        await embedder.embed(["x"])
    assert asyncio.get_running_loop().time() - started < 2


@pytest.mark.parametrize("shape", ["missing_row", "ragged", "wrong_dim", "not_a_list"])
async def test_ollama_wrong_shape_response_is_unavailable(
    fake_ollama: tuple[FakeOllama, str], shape: str
) -> None:
    fake, url = fake_ollama
    embedder = OllamaEmbedder(host=url, timeout_s=2, dim=16)
    fake.embed_shape = shape  # type: ignore[assignment]  # parametrised over the Literal
    with pytest.raises(EmbeddingUnavailable, match=r"wrong shape|dimensional"):
        await embedder.embed(["a", "b"])


async def test_ollama_unreachable_is_unavailable(fake_ollama: tuple[FakeOllama, str]) -> None:
    fake, url = fake_ollama
    await fake.stop()  # the port is now closed
    with pytest.raises(EmbeddingUnavailable, match="could not be reached"):
        await OllamaEmbedder(host=url, timeout_s=2).embed(["x"])


async def test_ollama_embed_sync_works_from_a_worker_thread(
    fake_ollama: tuple[FakeOllama, str],
) -> None:
    _, url = fake_ollama
    embedder = OllamaEmbedder(host=url, timeout_s=2)
    vectors = await asyncio.to_thread(embedder.embed_sync, ["disk full"])
    np.testing.assert_allclose(vectors[0], fake_vector("disk full", 16), atol=1e-6)


def test_build_embedder_picks_the_backend() -> None:
    assert isinstance(build_embedder("onnx-minilm"), OnnxMiniLmEmbedder)
    ollama = build_embedder("ollama", ollama_host="http://127.0.0.1:1", ollama_model="m")
    assert isinstance(ollama, OllamaEmbedder) and ollama.name == "ollama:m"
    assert ollama.digest == "ollama:m"
    assert build_embedder("none") is None
