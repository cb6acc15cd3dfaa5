"""sqlite-vec tables of the runbook index: one per (kind, dimension), rowid = chunk or runbook id.

Which embedder wrote the vectors is the generation's provenance, not the table name: a rebuild
for another embedder of the same dimension first drops the old generation's rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

from memory.store import Database, Row, Tx

VecKind = Literal["chunk", "doc"]
MAX_DIM = 8192
_TABLE = re.compile(r"knowledge_(chunk|doc)vec_[0-9]+")

_TABLES = """
SELECT name
FROM sqlite_master
WHERE type = 'table'
"""

# Rows of other generations, by the id a vec table's rowid holds.
_OLD_IDS: dict[VecKind, str] = {
    "chunk": "SELECT id FROM knowledge_chunks WHERE generation_id != :keep",
    "doc": "SELECT id FROM knowledge_runbooks WHERE generation_id != :keep",
}


def vec_table(dim: int, kind: VecKind) -> str:
    """Name of the sqlite-vec table for one dimension; `kind` is 'chunk' or 'doc'."""
    if kind not in ("chunk", "doc") or not 1 <= int(dim) <= MAX_DIM:
        raise ValueError("bad vector table")
    return f"knowledge_{kind}vec_{int(dim)}"


async def insert(tx: Tx, kind: VecKind, dim: int, ids: Sequence[int], vectors: np.ndarray) -> None:
    """Create the table if needed and store one vector per id (rows of `vectors`, in order)."""
    table = vec_table(dim, kind)
    await tx.execute(
        f"""
        CREATE VIRTUAL TABLE IF NOT EXISTS {table}
        USING vec0(embedding float[{int(dim)}] distance_metric=cosine)
        """
    )
    await tx.executemany(
        f"INSERT INTO {table} (rowid, embedding) VALUES (:rowid, :embedding)",
        [
            {"rowid": i, "embedding": v.astype(np.float32).tobytes()}
            for i, v in zip(ids, vectors, strict=True)
        ],
    )


async def nearest_chunks(db: Database, dim: int, query: bytes, *, k: int) -> list[Row]:
    """(chunk id, runbook id, slug, title, cosine) of the k nearest sections to `query`."""
    return await db.fetchall(
        f"""
        SELECT v.rowid, c.runbook_id, r.slug, r.title, 1.0 - v.distance
        FROM {vec_table(dim, "chunk")} v
        JOIN knowledge_chunks c ON c.id = v.rowid
        JOIN knowledge_runbooks r ON r.id = c.runbook_id
        WHERE v.embedding MATCH :query AND k = :k
        """,
        {"query": query, "k": k},
    )


async def nearest_docs(db: Database, dim: int, query: bytes, *, k: int) -> list[Row]:
    """(runbook id, slug, title, cosine) of the k nearest runbook summaries to `query`."""
    return await db.fetchall(
        f"""
        SELECT v.rowid, r.slug, r.title, 1.0 - v.distance
        FROM {vec_table(dim, "doc")} v
        JOIN knowledge_runbooks r ON r.id = v.rowid
        WHERE v.embedding MATCH :query AND k = :k
        """,
        {"query": query, "k": k},
    )


async def delete_other_generations(tx: Tx, keep: int) -> None:
    """Vectors of every generation but `keep`, from the tables of every dimension (run before
    their chunk and runbook rows go)."""
    names = [r[0] for r in await tx.fetchall(_TABLES) if _TABLE.fullmatch(r[0])]
    for table in names:
        kind: VecKind = "chunk" if table.startswith("knowledge_chunkvec_") else "doc"
        await tx.execute(f"DELETE FROM {table} WHERE rowid IN ({_OLD_IDS[kind]})", {"keep": keep})
