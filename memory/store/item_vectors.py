"""sqlite-vec tables for profile facts and episodes: one vec0 table per (kind, dim, embedder digest).

The embedder digest is part of the table name (and recorded in `meta`), so vectors written by
different models are never compared. Forget-me and retention delete from every table of a kind,
whichever embedder wrote it. Rows are partitioned by `memory.scopes.partition_key_for`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.store.db import Database, Tx

VecKind = Literal["profile", "episode"]
_PREFIX: dict[str, str] = {"profile": "memory_profile_vec", "episode": "memory_episode_vec"}


def table_name(kind: VecKind, embedder: Embedder) -> str:
    """`memory_<kind>_vec_<dim>_<12 hex of the digest>`: identifiers built only from constants."""
    tag = hashlib.sha256(embedder.digest.encode()).hexdigest()[:12]
    return f"{_PREFIX[kind]}_{int(embedder.dim)}_{tag}"


async def ensure_table(tx: Tx, kind: VecKind, embedder: Embedder) -> str:
    """Create the vec0 table for this embedder if needed; returns its name."""
    name = table_name(kind, embedder)
    await tx.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING vec0("
        " item_id integer primary key, partition_key text partition key,"
        f" embedding float[{int(embedder.dim)}] distance_metric=cosine)"
    )
    await tx.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (:key, :digest)",
        {"key": f"vec_table:{name}", "digest": embedder.digest},
    )
    return name


async def upsert(
    tx: Tx,
    kind: VecKind,
    embedder: Embedder,
    *,
    item_id: int,
    partition_key: str,
    vector: np.ndarray,
) -> None:
    """Store (or replace) one item's vector."""
    name = await ensure_table(tx, kind, embedder)
    await tx.execute(f"DELETE FROM {name} WHERE item_id = ?", (item_id,))
    await tx.execute(
        f"INSERT INTO {name} (item_id, partition_key, embedding) VALUES (?, ?, ?)",
        (item_id, partition_key, np.asarray(vector, dtype=np.float32).tobytes()),
    )


async def all_tables(tx: Tx, kind: VecKind) -> list[str]:
    """Every vec0 table of this kind, from any embedder."""
    rows = await tx.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE :pattern"
        " AND sql LIKE 'CREATE VIRTUAL TABLE%'",
        {"pattern": _PREFIX[kind] + "%"},
    )
    # LIKE treats "_" as a wildcard; re-check the prefix exactly.
    return [r[0] for r in rows if r[0].startswith(_PREFIX[kind] + "_")]


async def delete_items(tx: Tx, kind: VecKind, item_ids: Iterable[int]) -> int:
    """Delete these items' vectors from every table of the kind; returns rows removed."""
    ids = list(item_ids)
    removed = 0
    for name in await all_tables(tx, kind):
        for item_id in ids:  # vec0 has no IN on its primary key; these batches are small
            removed += await tx.execute_rowcount(
                f"DELETE FROM {name} WHERE item_id = ?", (item_id,)
            )
    return removed


async def vectors_in_partition(
    tx: Tx, kind: VecKind, embedder: Embedder, partition_key: str
) -> dict[int, np.ndarray]:
    """All vectors of one partition from this embedder's table (small partitions only)."""
    name = table_name(kind, embedder)
    if name not in await all_tables(tx, kind):
        return {}
    rows = await tx.fetchall(
        f"SELECT item_id, embedding FROM {name} WHERE partition_key = ?", (partition_key,)
    )
    return {int(r[0]): np.frombuffer(r[1], dtype=np.float32) for r in rows}


async def nearest(
    db: Database,
    kind: VecKind,
    embedder: Embedder,
    vector: np.ndarray,
    *,
    partition_keys: Sequence[str],
    k: int,
) -> list[tuple[int, float]]:
    """(item_id, cosine similarity) of the k nearest items inside the given partitions."""
    name = table_name(kind, embedder)
    exists = await db.scalar("SELECT 1 FROM sqlite_master WHERE name = ?", (name,))
    if not exists or not partition_keys:
        return []
    blob = np.asarray(vector, dtype=np.float32).tobytes()
    found: list[tuple[int, float]] = []
    for key in partition_keys:  # one KNN per partition keeps each scan small and scoped
        rows = await db.fetchall(
            f"SELECT item_id, distance FROM {name}"
            " WHERE embedding MATCH :q AND k = :k AND partition_key = :p",
            {"q": blob, "k": k, "p": key},
        )
        found += [(int(r[0]), 1.0 - float(r[1])) for r in rows]
    found.sort(key=lambda pair: pair[1], reverse=True)
    return found[:k]
