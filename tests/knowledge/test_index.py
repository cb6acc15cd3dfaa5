"""Index generations: provenance, reuse, rebuild, concurrency and keyword fallback (issue 3)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from knowledge.index import INDEX_VERSION
from knowledge.search import Knowledge
from memory.embedding.embedder import OllamaEmbedder, OnnxMiniLmEmbedder
from memory.store import Database
from tests.fakes.ollama_server import FakeOllama


async def test_generation_records_full_provenance_and_is_reused(
    db: Database, corpus_dir: Path, onnx: OnnxMiniLmEmbedder
) -> None:
    first = await Knowledge(db, corpus_dir, onnx).ensure_index()
    prov = first.provenance
    assert prov.chunker_version == INDEX_VERSION and prov.dim == 384
    assert prov.embedder_backend == "onnx-minilm" and prov.embedder_digest == onnx.digest
    assert first.runbook_count == 5 and first.chunk_count > 5 and first.vector_count > 0
    again = await Knowledge(db, corpus_dir, onnx).ensure_index()
    assert again.id == first.id and again.built_at == first.built_at


async def test_corpus_change_builds_a_new_generation_and_drops_the_old(
    db: Database, corpus_dir: Path, onnx: OnnxMiniLmEmbedder
) -> None:
    first = await Knowledge(db, corpus_dir, onnx).ensure_index()
    (corpus_dir / "high-latency.md").write_text("# High latency\n\n## Symptoms\nSlow.\n")
    second = await Knowledge(db, corpus_dir, onnx).ensure_index()
    assert second.id != first.id
    assert second.provenance.corpus_digest != first.provenance.corpus_digest
    assert await db.scalar("SELECT count(*) FROM knowledge_generations") == 1
    assert await db.scalar("SELECT count(*) FROM knowledge_chunkvec_384") == second.chunk_count
    assert (
        await db.scalar(
            "SELECT count(*) FROM knowledge_chunks WHERE generation_id != ?", (second.id,)
        )
        == 0
    )


async def test_concurrent_callers_share_one_build(
    tmp_path: Path, corpus_dir: Path, onnx: OnnxMiniLmEmbedder
) -> None:
    db = await Database.open(tmp_path / "x.db")
    try:
        gens = await asyncio.gather(
            *(Knowledge(db, corpus_dir, onnx).ensure_index() for _ in range(4))
        )
        assert len({g.id for g in gens}) == 1
        assert await db.scalar("SELECT count(*) FROM knowledge_generations") == 1
    finally:
        await db.close()


async def test_unreachable_embedder_falls_back_to_keyword_with_a_warning(
    db: Database, corpus_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeOllama(dim=16)
    url = await fake.start()
    try:
        fake.fail_status = 500
        embedder = OllamaEmbedder(host=url, model="nomic-embed-text", timeout_s=2)
        with caplog.at_level(logging.WARNING):
            k = Knowledge(db, corpus_dir, embedder)
            gen = await k.ensure_index()
            result = await k.search("certificate expires")
        assert gen.provenance.dim is None and not gen.semantic
        assert result.mode == "keyword" and result.hits[0].slug == "certificate-expiry"
        assert any("keyword" in r.message for r in caplog.records)
    finally:
        await fake.stop()


async def test_new_embedder_dimension_rebuilds_and_never_mixes_vectors(
    db: Database, corpus_dir: Path
) -> None:
    fake = FakeOllama(dim=16, models=["m1", "m2"])
    url = await fake.start()
    try:
        small = await Knowledge(db, corpus_dir, OllamaEmbedder(host=url, model="m1")).ensure_index()
        fake.dim = 24
        big_knowledge = Knowledge(db, corpus_dir, OllamaEmbedder(host=url, model="m2"))
        big = await big_knowledge.ensure_index()
        assert (small.provenance.dim, big.provenance.dim) == (16, 24)
        assert await db.scalar("SELECT count(*) FROM knowledge_chunkvec_16") == 0
        assert await db.scalar("SELECT count(*) FROM knowledge_chunkvec_24") == big.chunk_count
        assert (await big_knowledge.search("disk space", mode="semantic")).mode == "semantic"
    finally:
        await fake.stop()


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
async def test_embedder_down_at_query_time_gives_the_keyword_answer(
    db: Database, corpus_dir: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeOllama(dim=16)
    url = await fake.start()
    try:
        k = Knowledge(db, corpus_dir, OllamaEmbedder(host=url, model="nomic-embed-text"))
        assert (await k.ensure_index()).semantic
        keyword = await k.search(
            "The TLS certificate expires soon. Requests to the API server are slow.", mode="keyword"
        )
        fake.fail_status = 500  # the vectors exist, but the question cannot be embedded
        with caplog.at_level(logging.WARNING):
            result = await k.search(
                "The TLS certificate expires soon. Requests to the API server are slow.", mode=mode
            )  # type: ignore[arg-type]
        assert result.mode == "keyword" and result.hits[0].slug == "certificate-expiry"
        # The same ranking and confidence keyword mode gives, not a partial one.
        assert [h.slug for h in result.hits] == [h.slug for h in keyword.hits]
        assert result.confidence == keyword.confidence
        assert any("keyword" in r.message for r in caplog.records)
    finally:
        await fake.stop()
