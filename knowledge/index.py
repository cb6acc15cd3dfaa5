"""Index generations: build, validate and switch the runbook index; provenance decides reuse.

`Knowledge.ensure_index()` compares the provenance the current corpus and embedder would give
with the current generation's; on a difference a new generation is embedded (outside the write
lock, cached by model digest + text hash), then written, validated and made current in one
transaction that re-checks first (a concurrent builder may have won). Any failure rolls back; if
embedding fails the generation is keyword-only: vectors of another embedder are never compared.
SQL lives in `knowledge.store`.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from knowledge.chunking import CHUNKER_VERSION, ChunkedRunbook, chunk_runbook
from knowledge.corpus import Corpus
from knowledge.errors import IndexBuildFailed
from knowledge.index_text import INDEX_TEXT_VERSION, chunk_fields, doc_fields, embedding_texts
from knowledge.store import embedding_cache, fts, generations
from knowledge.store import runbooks as store_runbooks
from knowledge.store import vectors as vector_tables
from memory.clock import Clock, iso, utc_now
from memory.embedding.embedder import Embedder
from memory.errors import EmbeddingUnavailable
from memory.store import Database, Tx

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Provenance:
    """What an index generation was built from; equal provenance means the index can be reused."""

    corpus_digest: str
    chunker_version: str
    embedder_backend: str | None
    embedder_name: str | None
    embedder_digest: str | None
    dim: int | None


@dataclass(frozen=True)
class Generation:
    """A built index generation as stored."""

    id: int
    provenance: Provenance
    runbook_count: int
    chunk_count: int
    vector_count: int
    built_at: str
    build_ms: int

    @property
    def semantic(self) -> bool:
        return self.provenance.dim is not None and self.vector_count > 0

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"generation": self.id, **asdict(self.provenance)}
        out.update(
            runbook_count=self.runbook_count,
            chunk_count=self.chunk_count,
            vector_count=self.vector_count,
            built_at=self.built_at,
            build_ms=self.build_ms,
        )
        return out


#: Recorded as the generation's chunker version: chunk boundaries plus what text each index sees.
INDEX_VERSION = f"{CHUNKER_VERSION}+{INDEX_TEXT_VERSION}"


def provenance_for(corpus: Corpus, embedder: Embedder | None) -> Provenance:
    """The provenance an index of `corpus` built with `embedder` would carry."""
    if embedder is None:
        return Provenance(corpus.digest, INDEX_VERSION, None, None, None, None)
    return Provenance(
        corpus_digest=corpus.digest,
        chunker_version=INDEX_VERSION,
        embedder_backend=embedder.name.split(":", 1)[0],
        embedder_name=embedder.name,
        embedder_digest=embedder.digest,
        dim=embedder.dim,
    )


_Vectors = tuple[np.ndarray, np.ndarray, list[tuple[str, str, bytes]]]


def _row_to_generation(row: Sequence[Any]) -> Generation:
    prov = Provenance(*row[1:7])  # columns match the dataclass order
    return Generation(int(row[0]), prov, *row[7:12])


class RunbookIndex:
    """Builds and reads index generations in one database."""

    def __init__(self, db: Database, *, clock: Clock = utc_now) -> None:
        self._db = db
        self._clock = clock

    async def current(self) -> Generation | None:
        row = await generations.current(self._db)
        return None if row is None else _row_to_generation(tuple(row))

    async def build(self, corpus: Corpus, embedder: Embedder | None) -> Generation:
        """Build (or reuse) the generation for `corpus`; keyword-only if embedding fails."""
        started = time.perf_counter()
        runbooks = [chunk_runbook(f.slug, f.text) for f in corpus.files.values()]
        vectors: _Vectors | None = None
        if embedder is not None:
            try:
                vectors = await self._embed(runbooks, embedder)
            except EmbeddingUnavailable:
                log.warning("runbook_index_keyword_only", extra={"reason": "embedder unavailable"})
                embedder = None
        try:
            return await self._write(corpus, runbooks, embedder, vectors, started)
        except IndexBuildFailed:
            if embedder is None:
                raise
            log.warning("runbook_index_keyword_only", extra={"reason": "semantic build failed"})
            return await self._write(corpus, runbooks, None, None, started)

    async def _embed(self, runbooks: list[ChunkedRunbook], embedder: Embedder) -> _Vectors:
        """(chunk vectors, doc vectors, new cache rows), reusing cached vectors by text hash."""
        chunk_texts, doc_texts = embedding_texts(runbooks)
        texts = chunk_texts + doc_texts
        keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        cached = await embedding_cache.cached(self._db, embedder.digest, keys)
        missing = [i for i, k in enumerate(keys) if k not in cached]
        fresh = await embedder.embed([texts[i] for i in missing]) if missing else None
        dim = embedder.dim
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, k in enumerate(keys):
            if k in cached:
                vec = np.frombuffer(cached[k], dtype=np.float32)
                if vec.shape[0] != dim:
                    raise IndexBuildFailed("a cached vector has the wrong dimensions")
                out[i] = vec
        if fresh is not None:
            if fresh.shape != (len(missing), dim):
                raise EmbeddingUnavailable("The embedder returned vectors of the wrong shape.")
            out[missing] = fresh
            new_rows = [
                (embedder.digest, keys[i], fresh[j].tobytes()) for j, i in enumerate(missing)
            ]
        else:
            new_rows = []
        return out[: len(chunk_texts)], out[len(chunk_texts) :], new_rows

    async def _write(
        self,
        corpus: Corpus,
        runbooks: list[ChunkedRunbook],
        embedder: Embedder | None,
        vectors: _Vectors | None,
        started: float,
    ) -> Generation:
        prov = provenance_for(corpus, embedder)
        async with self._db.transaction() as tx:
            row = await generations.current(tx)
            if row is not None and _row_to_generation(tuple(row)).provenance == prov:
                return _row_to_generation(tuple(row))  # a concurrent caller built it: reuse
            gen_id = await generations.insert(
                tx, asdict(prov), runbook_count=len(runbooks), built_at=iso(self._clock())
            )
            chunk_ids, doc_ids = await _write_rows(tx, gen_id, corpus, runbooks)
            n_vectors = 0
            if vectors is not None and prov.dim is not None:
                n_vectors = await _write_vectors(tx, prov.dim, chunk_ids, doc_ids, vectors[:2])
                await embedding_cache.insert(tx, vectors[2])
            await _validate(tx, gen_id, len(chunk_ids), n_vectors, prov.dim)
            await generations.drop_others(tx, gen_id)
            build_ms = int((time.perf_counter() - started) * 1000)
            await generations.mark_current(
                tx, gen_id, chunk_count=len(chunk_ids), vector_count=n_vectors, build_ms=build_ms
            )
            row = await generations.get(tx, gen_id)
        log.info("runbook_index_built", extra={"generation": gen_id, "chunks": len(chunk_ids)})
        return _row_to_generation(tuple(row))  # type: ignore[arg-type]  # just inserted


async def _write_rows(
    tx: Tx, gen_id: int, corpus: Corpus, runbooks: list[ChunkedRunbook]
) -> tuple[list[int], list[int]]:
    """Insert runbooks, chunks and both keyword indexes; return (chunk ids, runbook ids)."""
    chunk_ids: list[int] = []
    doc_ids: list[int] = []
    for rb in runbooks:
        f = corpus.files[rb.slug]
        rb_id = await store_runbooks.insert_runbook(
            tx, gen_id, slug=rb.slug, title=rb.title, relpath=f.relpath, sha256=f.sha256
        )
        doc_ids.append(rb_id)
        await fts.insert_doc(tx, rb_id, doc_fields(rb))
        for chunk in rb.chunks:
            cid = await store_runbooks.insert_chunk(
                tx,
                gen_id,
                rb_id,
                slug=rb.slug,
                ordinal=chunk.ordinal,
                heading_path=chunk.heading_path,
                anchor=chunk.anchor,
                content_hash=chunk.content_hash,
                text=chunk.text,
            )
            chunk_ids.append(cid)
            await fts.insert_chunk(tx, cid, chunk_fields(chunk))
    return chunk_ids, doc_ids


async def _write_vectors(
    tx: Tx,
    dim: int,
    chunk_ids: list[int],
    doc_ids: list[int],
    vecs: tuple[np.ndarray, np.ndarray],
) -> int:
    chunk_vecs, doc_vecs = vecs
    if chunk_vecs.shape != (len(chunk_ids), dim) or doc_vecs.shape != (len(doc_ids), dim):
        raise IndexBuildFailed("vector count or dimensions do not match the chunks")
    await vector_tables.insert(tx, "chunk", dim, chunk_ids, chunk_vecs)
    await vector_tables.insert(tx, "doc", dim, doc_ids, doc_vecs)
    return len(chunk_ids) + len(doc_ids)


async def _validate(tx: Tx, gen_id: int, n_chunks: int, n_vectors: int, dim: int | None) -> None:
    stored = await store_runbooks.count_chunks(tx, gen_id)
    if stored != n_chunks or (n_chunks == 0 and stored != 0):
        raise IndexBuildFailed(f"{stored} chunks stored, {n_chunks} expected")
    if dim is not None and n_vectors == 0 and n_chunks > 0:
        raise IndexBuildFailed("no vectors were stored")
