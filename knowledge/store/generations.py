"""Index generations: one row per built generation with its provenance; at most one is current."""

from __future__ import annotations

from collections.abc import Mapping

from knowledge.store import fts, vectors
from memory.store import Database, Row, Tx

#: Columns of a generation row, in the order `knowledge.index` reads them.
COLUMNS = """
    id, corpus_digest, chunker_version, embedder_backend, embedder_name, embedder_digest, dim,
    runbook_count, chunk_count, vector_count, built_at, build_ms
"""

_CURRENT = f"""
SELECT {COLUMNS}
FROM knowledge_generations
WHERE is_current = 1
"""

_BY_ID = f"""
SELECT {COLUMNS}
FROM knowledge_generations
WHERE id = :id
"""

_INSERT = """
INSERT INTO knowledge_generations (
    corpus_digest, chunker_version, embedder_backend, embedder_name, embedder_digest, dim,
    runbook_count, chunk_count, built_at, build_ms
) VALUES (
    :corpus_digest, :chunker_version, :embedder_backend, :embedder_name, :embedder_digest, :dim,
    :runbook_count, 0, :built_at, 0
)
"""

_MARK_CURRENT = """
UPDATE knowledge_generations
SET is_current = 1, chunk_count = :chunk_count, vector_count = :vector_count,
    build_ms = :build_ms
WHERE id = :id
"""

_DELETE_OTHERS = """
DELETE FROM knowledge_generations
WHERE id != :keep
"""


async def current(db: Database | Tx) -> Row | None:
    """The current generation's row (COLUMNS), or None before the first build."""
    return await db.fetchone(_CURRENT)


async def get(db: Database | Tx, generation_id: int) -> Row | None:
    return await db.fetchone(_BY_ID, {"id": generation_id})


async def insert(
    tx: Tx, provenance: Mapping[str, object], *, runbook_count: int, built_at: str
) -> int:
    """A new, not yet current generation (no chunks counted yet); returns its id.

    `provenance` maps corpus_digest, chunker_version, embedder_backend, embedder_name,
    embedder_digest and dim to their values."""
    return await tx.execute(
        _INSERT, {**provenance, "runbook_count": runbook_count, "built_at": built_at}
    )


async def mark_current(
    tx: Tx, generation_id: int, *, chunk_count: int, vector_count: int, build_ms: int
) -> None:
    """Make the generation current with its final counts (the others must be gone already)."""
    await tx.execute(
        _MARK_CURRENT,
        {
            "id": generation_id,
            "chunk_count": chunk_count,
            "vector_count": vector_count,
            "build_ms": build_ms,
        },
    )


async def drop_others(tx: Tx, keep: int) -> None:
    """Remove every other generation: keyword rows and vectors (all dimensions) first, then the
    generations themselves (their runbook and chunk rows cascade)."""
    await fts.delete_other_generations(tx, keep)
    await vectors.delete_other_generations(tx, keep)
    await tx.execute(_DELETE_OTHERS, {"keep": keep})
