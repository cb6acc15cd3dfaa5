"""Index generations: build, validate and switch the runbook index; provenance decides reuse.

A generation records corpus digest, chunker version, embedder backend/name/digest, dimensions,
chunk count and build time. `RunbookIndex.ensure()` derives the provenance the current corpus and
embedder would produce; when the current generation differs, a new one is built: embeddings are
computed first (outside the write lock, reusing cached vectors by model digest + text hash), then
one `BEGIN IMMEDIATE` transaction re-checks (another writer may have just built it: reuse), writes
the whole generation, validates counts and dimensions, drops the old one and marks the new one
current. Any failure rolls the transaction back. If embedding fails, a keyword-only generation is
built instead and a warning logged: vectors of another embedder are never compared.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from knowledge.chunking import CHUNKER_VERSION, ChunkedRunbook, chunk_runbook
from knowledge.corpus import Corpus
from knowledge.errors import IndexBuildFailed
from knowledge.index_text import INDEX_TEXT_VERSION, chunk_fields, doc_fields, embedding_texts
from memory.clock import Clock, iso, utc_now
from memory.embedding.embedder import Embedder
from memory.errors import EmbeddingUnavailable
from memory.store.db import Database, Tx

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


def vec_table(dim: int, kind: str) -> str:
    """Name of the sqlite-vec table for one dimension; `kind` is 'chunk' or 'doc'."""
    if kind not in ("chunk", "doc") or not 1 <= int(dim) <= 8192:
        raise ValueError("bad vector table")
    return f"knowledge_{kind}vec_{int(dim)}"


_Vectors = tuple[np.ndarray, np.ndarray, list[tuple[str, str, bytes]]]
_VEC_TABLE = re.compile(r"knowledge_(chunk|doc)vec_[0-9]+")

_GEN_COLUMNS = (
    "id, corpus_digest, chunker_version, embedder_backend, embedder_name, embedder_digest, dim,"
    " runbook_count, chunk_count, vector_count, built_at, build_ms"
)


def _row_to_generation(row: Sequence[Any]) -> Generation:
    prov = Provenance(*row[1:7])  # columns match the dataclass order
    return Generation(int(row[0]), prov, *row[7:12])


class RunbookIndex:
    """Builds and reads index generations in one database."""

    def __init__(self, db: Database, *, clock: Clock = utc_now) -> None:
        self._db = db
        self._clock = clock

    async def current(self) -> Generation | None:
        row = await self._db.fetchone(
            f"SELECT {_GEN_COLUMNS} FROM knowledge_generations WHERE is_current = 1"
        )
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
        cached = await self._cached(embedder.digest, keys)
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

    async def _cached(self, digest: str, keys: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            batch = keys[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = await self._db.fetchall(
                "SELECT text_sha256, vector FROM knowledge_embedding_cache"
                f" WHERE embedder_digest = ? AND text_sha256 IN ({marks})",
                (digest, *batch),
            )
            found.update({r[0]: bytes(r[1]) for r in rows})
        return found

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
            row = await tx.fetchone(
                f"SELECT {_GEN_COLUMNS} FROM knowledge_generations WHERE is_current = 1"
            )
            if row is not None and _row_to_generation(tuple(row)).provenance == prov:
                return _row_to_generation(tuple(row))  # a concurrent caller built it: reuse
            gen_id = await tx.execute(
                "INSERT INTO knowledge_generations (corpus_digest, chunker_version,"
                " embedder_backend, embedder_name, embedder_digest, dim, runbook_count,"
                " chunk_count, built_at, build_ms) VALUES (?,?,?,?,?,?,?,?,?,0)",
                (*asdict(prov).values(), len(runbooks), 0, iso(self._clock())),
            )
            chunk_ids, doc_ids = await _write_rows(tx, gen_id, corpus, runbooks)
            n_vectors = 0
            if vectors is not None and prov.dim is not None:
                n_vectors = await _write_vectors(tx, prov.dim, chunk_ids, doc_ids, vectors[:2])
                await tx.executemany(
                    "INSERT OR IGNORE INTO knowledge_embedding_cache VALUES (?, ?, ?)", vectors[2]
                )
            await _validate(tx, gen_id, len(chunk_ids), n_vectors, prov.dim)
            await _drop_other_generations(tx, gen_id)
            build_ms = int((time.perf_counter() - started) * 1000)
            await tx.execute(
                "UPDATE knowledge_generations SET is_current = 1, chunk_count = ?,"
                " vector_count = ?, build_ms = ? WHERE id = ?",
                (len(chunk_ids), n_vectors, build_ms, gen_id),
            )
            row = await tx.fetchone(
                f"SELECT {_GEN_COLUMNS} FROM knowledge_generations WHERE id = ?", (gen_id,)
            )
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
        rb_id = await tx.execute(
            "INSERT INTO knowledge_runbooks (generation_id, slug, title, relpath, sha256)"
            " VALUES (?, ?, ?, ?, ?)",
            (gen_id, rb.slug, rb.title, f.relpath, f.sha256),
        )
        doc_ids.append(rb_id)
        await tx.execute(
            "INSERT INTO knowledge_doc_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)",
            (rb_id, *doc_fields(rb)),
        )
        for chunk in rb.chunks:
            cid = await tx.execute(
                "INSERT INTO knowledge_chunks (generation_id, runbook_id, slug, ordinal,"
                " heading_path, anchor, content_hash, text) VALUES (?,?,?,?,?,?,?,?)",
                (
                    gen_id,
                    rb_id,
                    rb.slug,
                    chunk.ordinal,
                    json.dumps(chunk.heading_path),
                    chunk.anchor,
                    chunk.content_hash,
                    chunk.text,
                ),
            )
            chunk_ids.append(cid)
            await tx.execute(
                "INSERT INTO knowledge_chunk_fts (rowid, title, headings, body) VALUES (?,?,?,?)",
                (cid, *chunk_fields(chunk)),
            )
    return chunk_ids, doc_ids


async def _write_vectors(
    tx: Tx,
    dim: int,
    chunk_ids: list[int],
    doc_ids: list[int],
    vectors: tuple[np.ndarray, np.ndarray],
) -> int:
    chunk_vecs, doc_vecs = vectors
    if chunk_vecs.shape != (len(chunk_ids), dim) or doc_vecs.shape != (len(doc_ids), dim):
        raise IndexBuildFailed("vector count or dimensions do not match the chunks")
    for kind, ids, vecs in (("chunk", chunk_ids, chunk_vecs), ("doc", doc_ids, doc_vecs)):
        table = vec_table(dim, kind)
        await tx.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING vec0("
            f"embedding float[{dim}] distance_metric=cosine)"
        )
        await tx.executemany(
            f"INSERT INTO {table} (rowid, embedding) VALUES (?, ?)",
            [(i, v.astype(np.float32).tobytes()) for i, v in zip(ids, vecs, strict=True)],
        )
    return len(chunk_ids) + len(doc_ids)


async def _validate(tx: Tx, gen_id: int, n_chunks: int, n_vectors: int, dim: int | None) -> None:
    stored = (
        await tx.fetchone(
            "SELECT count(*) FROM knowledge_chunks WHERE generation_id = ?", (gen_id,)
        )
    )[0]  # type: ignore[index]  # count(*) always returns a row
    if stored != n_chunks or (n_chunks == 0 and stored != 0):
        raise IndexBuildFailed(f"{stored} chunks stored, {n_chunks} expected")
    if dim is not None and n_vectors == 0 and n_chunks > 0:
        raise IndexBuildFailed("no vectors were stored")


async def _drop_other_generations(tx: Tx, keep: int) -> None:
    """Remove every other generation's rows, keyword rows and vectors (all dimensions)."""
    names = await tx.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")
    tables = [r[0] for r in names if _VEC_TABLE.fullmatch(r[0])]
    old_chunks = "SELECT id FROM knowledge_chunks WHERE generation_id != ?"
    old_docs = "SELECT id FROM knowledge_runbooks WHERE generation_id != ?"
    await tx.execute(f"DELETE FROM knowledge_chunk_fts WHERE rowid IN ({old_chunks})", (keep,))
    await tx.execute(f"DELETE FROM knowledge_doc_fts WHERE rowid IN ({old_docs})", (keep,))
    for table in tables:
        source = old_chunks if table.startswith("knowledge_chunkvec_") else old_docs
        await tx.execute(f"DELETE FROM {table} WHERE rowid IN ({source})", (keep,))
    await tx.execute("DELETE FROM knowledge_generations WHERE id != ?", (keep,))
