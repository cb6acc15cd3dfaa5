"""Note vectors: binary codes in a partitioned vec0 table for a fast first pass, floats to rescore.

Why two stages: brute-force float KNN in sqlite-vec took 45-90 ms per 100k vectors here, over
the 60 ms recall budget; Hamming distance over 384-bit codes took ~14 ms per 100k. The top
`coarse` codes are then rescored exactly with the stored float32 vectors (cosine).
Partitions are `scopes.partition_key_for` keys, so a search reads only partitions the requester
may see. Tables are per (dimension, embedder digest): vectors from different models never meet.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from memory.store.db import Database, Tx

_META_PREFIX = "memory_vectors:"


def bits_table(dim: int, digest: str) -> str:
    """Table name for one embedder; built only from an int and a hash, so safe in SQL."""
    short = hashlib.sha256(digest.encode()).hexdigest()[:12]
    return f"memory_note_bits_{int(dim)}_{short}"


class NoteVectors:
    """Writes and searches the vectors of one embedder (dimension + digest)."""

    def __init__(self, *, dim: int, digest: str, name: str = "") -> None:
        if dim % 8:
            raise ValueError("vector dimension must be a multiple of 8 for binary codes")
        self.dim = dim
        self.digest = digest
        self.name = name
        self.table = bits_table(dim, digest)
        self._ready = False

    async def ensure(self, tx: Tx) -> None:
        """Create this embedder's vec0 table once and record which model wrote it."""
        if self._ready:
            return
        await tx.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.table} USING vec0("
            f" note_id integer primary key, part text partition key, code bit[{self.dim}])"
        )
        meta = json.dumps({"table": self.table, "dim": self.dim, "name": self.name})
        await tx.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
            (_META_PREFIX + self.digest, meta),
        )
        self._ready = True

    async def insert(self, tx: Tx, rows: Sequence[tuple[int, str, np.ndarray]]) -> None:
        """Store (note_id, partition_key, unit vector) rows inside the caller's transaction."""
        await self.ensure(tx)
        await tx.executemany(
            f"INSERT INTO {self.table} (note_id, part, code) VALUES (?, ?, vec_quantize_binary(?))",
            [(nid, part, _blob(vec)) for nid, part, vec in rows],
        )
        await tx.executemany(
            "INSERT INTO memory_note_vectors (note_id, digest, vec) VALUES (?, ?, ?)",
            [(nid, self.digest, _blob(vec)) for nid, _, vec in rows],
        )

    async def search(
        self, db: Database, query: np.ndarray, *, partitions: Sequence[str], limit: int, coarse: int
    ) -> list[tuple[int, float]]:
        """(note_id, cosine) best first, only from `partitions`; [] when nothing was indexed."""
        if not partitions or not await self._exists(db):
            return []
        filled = [
            str(r[0])
            for r in await db.fetchall(
                "SELECT p.value FROM json_each(?) p WHERE EXISTS"
                " (SELECT 1 FROM memory_notes WHERE partition_key = p.value)",
                (json.dumps(list(partitions)),),
            )
        ]
        if not filled:
            return []
        marks = ", ".join(f":p{i}" for i in range(len(filled)))
        params: dict[str, object] = {f"p{i}": p for i, p in enumerate(filled)}
        # vec0 returns up to k per partition listed in IN, so the coarse budget is shared out:
        # rescoring reads each candidate's float vector (~10 us a row), so the total stays small.
        per_partition = max(8, -(-coarse // len(filled)))
        rows = await db.fetchall(
            f"SELECT note_id FROM {self.table} WHERE code MATCH vec_quantize_binary(:q)"
            f" AND k = :k AND part IN ({marks})",
            {**params, "q": _blob(query), "k": per_partition},
        )
        ids = [int(r[0]) for r in rows]
        if not ids:
            return []
        vecs = await db.fetchall(
            "SELECT note_id, vec FROM memory_note_vectors"
            " WHERE digest = :digest AND note_id IN (SELECT value FROM json_each(:ids))",
            {"digest": self.digest, "ids": json.dumps(ids)},
        )
        if not vecs:
            return []
        matrix = np.frombuffer(b"".join(bytes(r[1]) for r in vecs), dtype=np.float32)
        sims = matrix.reshape(len(vecs), self.dim) @ query.astype(np.float32)
        order = np.argsort(-sims)[:limit]
        return [(int(vecs[i][0]), float(sims[i])) for i in order]

    async def _exists(self, db: Database) -> bool:
        if self._ready:
            return True
        found = await db.scalar(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (self.table,)
        )
        self._ready = bool(found)
        return self._ready


async def delete_note_vectors(tx: Tx, note_ids: Iterable[int]) -> int:
    """Remove the vectors of these notes from every embedder's tables; returns rows removed."""
    ids = json.dumps([int(i) for i in note_ids])
    removed = 0
    metas = await tx.fetchall("SELECT value FROM meta WHERE key LIKE ?", (_META_PREFIX + "%",))
    for meta in metas:
        table = json.loads(meta["value"])["table"]
        if not table.startswith("memory_note_bits_") or not table.replace("_", "").isalnum():
            continue
        removed += await tx.execute_rowcount(
            f"DELETE FROM {table} WHERE note_id IN (SELECT value FROM json_each(?))", (ids,)
        )
    removed += await tx.execute_rowcount(
        "DELETE FROM memory_note_vectors WHERE note_id IN (SELECT value FROM json_each(?))", (ids,)
    )
    return removed


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()
