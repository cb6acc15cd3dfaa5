"""The one vector store: sqlite-vec tables per (kind, dimension, embedder digest), partitioned.

Vectors from different models never meet: the digest is part of each table's name and recorded
in `meta` ('vec_table:<table>' -> kind, dim, digest, name). Rows are partitioned by
`scopes.partition_key_for` keys, so a search reads only partitions the requester may see.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

if TYPE_CHECKING:
    from memory.store.db import Database, Tx

VecKind = Literal["note", "profile", "episode"]
META_PREFIX = "vec_table:"
_IDENTIFIER = re.compile(r"^[a-z0-9_]+$")


class VectorSource(Protocol):
    """What names a table: the embedder that wrote it (`memory.embedding.Embedder` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int: ...
    @property
    def digest(self) -> str: ...


@dataclass(frozen=True)
class Layout:
    """How one kind's tables are laid out; every identifier is a constant of this module.

    `binary` kinds keep a bit code per row for a fast Hamming first pass and the exact float32
    vector in `floats` (id, digest, vec) to rescore. Brute-force float KNN over 100k vectors took
    longer than recall's whole budget; Hamming over 384-bit codes is several times faster.
    Float kinds hold float32 vectors with cosine distance (small tables: facts, episodes).
    """

    prefix: str  # table names: <prefix>_<dim>_<12 hex of sha256(digest)>
    id_column: str
    partition_column: str
    vector_column: str
    binary: bool = False
    floats: str = ""  # binary kinds: the table of exact vectors
    rows: str = ""  # binary kinds: the table whose partition_key says which partitions hold rows


LAYOUTS: dict[str, Layout] = {
    "note": Layout(
        "memory_note_bits",
        "note_id",
        "part",
        "code",
        binary=True,
        floats="memory_note_vectors",
        rows="memory_notes",
    ),
    "profile": Layout("memory_profile_vec", "item_id", "partition_key", "embedding"),
    "episode": Layout("memory_episode_vec", "item_id", "partition_key", "embedding"),
}


def table_name(kind: VecKind, dim: int, digest: str) -> str:
    """`<prefix>_<dim>_<12 hex of the digest>`: built only from constants, an int and a hash."""
    short = hashlib.sha256(digest.encode()).hexdigest()[:12]
    return f"{LAYOUTS[kind].prefix}_{int(dim)}_{short}"


class VectorTable:
    """One kind's vectors from one embedder (dimension + digest): write, delete, search."""

    def __init__(self, kind: VecKind, *, dim: int, digest: str, name: str = "") -> None:
        self.layout = LAYOUTS[kind]
        if self.layout.binary and dim % 8:
            raise ValueError("vector dimension must be a multiple of 8 for binary codes")
        self.kind = kind
        self.dim = dim
        self.digest = digest
        self.name = name
        self.table = table_name(kind, dim, digest)
        self._ready = False

    @classmethod
    def of(cls, kind: VecKind, embedder: VectorSource) -> VectorTable:
        return cls(kind, dim=embedder.dim, digest=embedder.digest, name=embedder.name)

    async def ensure(self, tx: Tx) -> None:
        """Create this embedder's vec0 table once and record which model wrote it."""
        if self._ready:
            return
        lay = self.layout
        column = f"{lay.vector_column} bit[{int(self.dim)}]"
        if not lay.binary:
            column = f"{lay.vector_column} float[{int(self.dim)}] distance_metric=cosine"
        await tx.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.table} USING vec0("
            f" {lay.id_column} integer primary key, {lay.partition_column} text partition key,"
            f" {column})"
        )
        meta = {"kind": self.kind, "dim": self.dim, "digest": self.digest, "name": self.name}
        await tx.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (:key, :value)",
            {"key": META_PREFIX + self.table, "value": json.dumps(meta)},
        )
        self._ready = True

    async def insert(self, tx: Tx, rows: Sequence[tuple[int, str, np.ndarray]]) -> None:
        """Store new (id, partition_key, unit vector) rows inside the caller's transaction."""
        await self.ensure(tx)
        lay = self.layout
        value = "vec_quantize_binary(?)" if lay.binary else "?"
        await tx.executemany(
            f"INSERT INTO {self.table} ({lay.id_column}, {lay.partition_column},"
            f" {lay.vector_column}) VALUES (?, ?, {value})",
            [(item_id, part, _blob(vec)) for item_id, part, vec in rows],
        )
        if lay.binary:
            await tx.executemany(
                f"INSERT INTO {lay.floats} ({lay.id_column}, digest, vec) VALUES (?, ?, ?)",
                [(item_id, self.digest, _blob(vec)) for item_id, _, vec in rows],
            )

    async def upsert(self, tx: Tx, *, item_id: int, partition_key: str, vector: np.ndarray) -> None:
        """Store (or replace) one item's vector."""
        await self.ensure(tx)
        await self.delete(tx, [item_id])
        await self.insert(tx, [(item_id, partition_key, vector)])

    async def delete(self, tx: Tx, item_ids: Iterable[int]) -> int:
        """Delete these items' vectors from this table only; returns rows removed."""
        return await _delete_from(tx, self.layout, self.table, list(item_ids), digest=self.digest)

    async def exists(self, reader: Database | Tx) -> bool:
        if self._ready:
            return True
        found = await reader.fetchone(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name",
            {"name": self.table},
        )
        self._ready = found is not None
        return self._ready

    async def nearest(
        self,
        db: Database,
        vector: np.ndarray,
        *,
        partitions: Sequence[str],
        k: int,
        coarse: int | None = None,
    ) -> list[tuple[int, float]]:
        """(id, cosine similarity) of the k nearest items inside `partitions`, best first; []
        when nothing was indexed. `coarse`: binary kinds' first-pass candidates to rescore."""
        if not partitions or not await self.exists(db):
            return []
        if self.layout.binary:
            return await self._nearest_binary(db, vector, partitions, k, coarse or k)
        blob = _blob(vector)
        lay = self.layout
        found: list[tuple[int, float]] = []
        for key in partitions:  # one KNN per partition keeps each scan small and scoped
            rows = await db.fetchall(
                f"SELECT {lay.id_column}, distance FROM {self.table}"
                f" WHERE {lay.vector_column} MATCH :q AND k = :k AND {lay.partition_column} = :p",
                {"q": blob, "k": k, "p": key},
            )
            found += [(int(r[0]), 1.0 - float(r[1])) for r in rows]
        found.sort(key=lambda pair: pair[1], reverse=True)
        return found[:k]

    async def _nearest_binary(
        self, db: Database, query: np.ndarray, partitions: Sequence[str], k: int, coarse: int
    ) -> list[tuple[int, float]]:
        """Hamming distance over bit codes for `coarse` candidates, then exact cosine."""
        lay = self.layout
        filled = [
            str(r[0])
            for r in await db.fetchall(
                "SELECT p.value FROM json_each(:parts) p WHERE EXISTS"
                f" (SELECT 1 FROM {lay.rows} WHERE partition_key = p.value)",
                {"parts": json.dumps(list(partitions))},
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
            f"SELECT {lay.id_column} FROM {self.table}"
            f" WHERE {lay.vector_column} MATCH vec_quantize_binary(:q)"
            f" AND k = :k AND {lay.partition_column} IN ({marks})",
            {**params, "q": _blob(query), "k": per_partition},
        )
        ids = [int(r[0]) for r in rows]
        if not ids:
            return []
        vecs = await db.fetchall(
            f"SELECT {lay.id_column}, vec FROM {lay.floats}"
            f" WHERE digest = :digest AND {lay.id_column} IN (SELECT value FROM json_each(:ids))",
            {"digest": self.digest, "ids": json.dumps(ids)},
        )
        if not vecs:
            return []
        matrix = np.frombuffer(b"".join(bytes(r[1]) for r in vecs), dtype=np.float32)
        sims = matrix.reshape(len(vecs), self.dim) @ query.astype(np.float32)
        order = np.argsort(-sims)[:k]
        return [(int(vecs[i][0]), float(sims[i])) for i in order]

    async def in_partition(self, tx: Tx, partition_key: str) -> dict[int, np.ndarray]:
        """All vectors of one partition (small partitions only: facts of one subject)."""
        if self.layout.binary:
            raise NotImplementedError("binary tables keep no float vector per partition")
        if self.table not in await tables(tx, self.kind):
            return {}
        lay = self.layout
        rows = await tx.fetchall(
            f"SELECT {lay.id_column}, {lay.vector_column} FROM {self.table}"
            f" WHERE {lay.partition_column} = :p",
            {"p": partition_key},
        )
        return {int(r[0]): np.frombuffer(r[1], dtype=np.float32) for r in rows}


async def tables(reader: Database | Tx, kind: VecKind) -> list[str]:
    """Every vec0 table of this kind, from any embedder."""
    prefix = LAYOUTS[kind].prefix + "_"
    rows = await reader.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE :pattern"
        " AND sql LIKE 'CREATE VIRTUAL TABLE%'",
        {"pattern": prefix + "%"},
    )
    # LIKE treats "_" as a wildcard; re-check the prefix exactly (and that it is an identifier).
    return [r[0] for r in rows if r[0].startswith(prefix) and _IDENTIFIER.match(r[0])]


async def delete_items(tx: Tx, kind: VecKind, item_ids: Iterable[int]) -> int:
    """Delete these items' vectors from every table of the kind, whichever embedder wrote it
    (forget-me, retention, replaced items); returns rows removed."""
    ids = [int(i) for i in item_ids]
    layout = LAYOUTS[kind]
    removed = 0
    for name in await tables(tx, kind):
        removed += await _delete_from(tx, layout, name, ids, digest=None)
    if layout.binary:
        removed += await tx.execute_rowcount(
            f"DELETE FROM {layout.floats}"
            f" WHERE {layout.id_column} IN (SELECT value FROM json_each(:ids))",
            {"ids": json.dumps(ids)},
        )
    return removed


async def _delete_from(
    tx: Tx, layout: Layout, table: str, ids: list[int], *, digest: str | None
) -> int:
    """Rows of `ids` from one vec0 table; with `digest`, also that embedder's exact vectors."""
    removed = 0
    if layout.binary:
        removed += await tx.execute_rowcount(
            f"DELETE FROM {table} WHERE {layout.id_column} IN (SELECT value FROM json_each(:ids))",
            {"ids": json.dumps(ids)},
        )
        if digest is not None:
            removed += await tx.execute_rowcount(
                f"DELETE FROM {layout.floats} WHERE digest = :digest"
                f" AND {layout.id_column} IN (SELECT value FROM json_each(:ids))",
                {"digest": digest, "ids": json.dumps(ids)},
            )
        return removed
    for item_id in ids:  # vec0 has no IN on its primary key; these batches are small
        removed += await tx.execute_rowcount(
            f"DELETE FROM {table} WHERE {layout.id_column} = :id", {"id": item_id}
        )
    return removed


async def upsert(
    tx: Tx,
    kind: VecKind,
    embedder: VectorSource,
    *,
    item_id: int,
    partition_key: str,
    vector: np.ndarray,
) -> None:
    """Store (or replace) one item's vector in this embedder's table."""
    await VectorTable.of(kind, embedder).upsert(
        tx, item_id=item_id, partition_key=partition_key, vector=vector
    )


async def nearest(
    db: Database,
    kind: VecKind,
    embedder: VectorSource,
    vector: np.ndarray,
    *,
    partition_keys: Sequence[str],
    k: int,
) -> list[tuple[int, float]]:
    """(item_id, cosine similarity) of the k nearest items inside the given partitions."""
    return await VectorTable.of(kind, embedder).nearest(db, vector, partitions=partition_keys, k=k)


async def vectors_in_partition(
    tx: Tx, kind: VecKind, embedder: VectorSource, partition_key: str
) -> dict[int, np.ndarray]:
    """All vectors of one partition from this embedder's table (small partitions only)."""
    return await VectorTable.of(kind, embedder).in_partition(tx, partition_key)


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()
