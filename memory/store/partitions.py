"""Migration 0010's vector half: move vec0 rows to the team-carrying channel partitions.

vec0 tables are named at run time (`memory.store.vectors`) and cannot UPDATE a partition key,
so SQL cannot do this; `Database.open` runs it once, in one transaction, while the marker the
migration left in `meta` is present.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

_IDENTIFIER = re.compile(r"^[a-z0-9_]+$")


class PartitionTx(Protocol):
    """The write transaction this runs in (`memory.store.db.Tx` is one)."""

    async def execute(self, sql: str, params: Any = ...) -> int: ...
    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    async def fetchone(self, sql: str, params: Any = ...) -> Any: ...
    async def fetchall(self, sql: str, params: Any = ...) -> list[Any]: ...


async def _vec_tables(tx: PartitionTx, prefix: str) -> list[str]:
    """vec0 tables whose names start with `prefix` (the layouts of `memory.store.vectors`)."""
    rows = await tx.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
        " AND substr(name, 1, length(:p)) = :p",
        {"p": prefix},
    )
    return [str(r[0]) for r in rows if _IDENTIFIER.match(str(r[0]))]


PARTITIONS_PENDING = "vec_partitions_pending"


async def move_channel_partitions(tx: PartitionTx) -> int:
    """Move vec0 rows to the partition their row now names (migration 0010 rewrote the keys);
    note codes whose exact vector the migration dropped are deleted, to be embedded again.
    Returns rows moved or dropped; runs once, while the marker in `meta` is present."""
    if await tx.fetchone("SELECT 1 FROM meta WHERE key = :k", {"k": PARTITIONS_PENDING}) is None:
        return 0
    changed = 0
    for name in await _vec_tables(tx, "memory_note_bits_"):
        rows = await tx.fetchall(
            f"SELECT b.note_id, b.part, b.code, n.partition_key AS want,"
            " EXISTS (SELECT 1 FROM memory_note_vectors f WHERE f.note_id = b.note_id) AS kept"
            f" FROM {name} b LEFT JOIN memory_notes n ON n.id = b.note_id"
        )
        stale = [r for r in rows if r["want"] is None or r["want"] != r["part"] or not r["kept"]]
        for r in stale:
            await tx.execute(f"DELETE FROM {name} WHERE note_id = :id", {"id": r["note_id"]})
        moved = [
            (r["note_id"], r["want"], bytes(r["code"])) for r in stale if r["want"] and r["kept"]
        ]
        await tx.executemany(
            f"INSERT INTO {name} (note_id, part, code) VALUES (?, ?, vec_bit(?))", moved
        )
        changed += len(stale)
    for name in await _vec_tables(tx, "memory_episode_vec_"):
        rows = await tx.fetchall(
            f"SELECT v.item_id, v.partition_key AS part, v.embedding,"
            " (CASE WHEN e.channel_is_private = 1 THEN 'cp:' ELSE 'c:' END)"
            " || e.team_id || ':' || e.channel_id AS want"
            f" FROM {name} v LEFT JOIN memory_episodes e ON e.id = v.item_id"
        )
        stale = [r for r in rows if r["want"] != r["part"]]
        for r in stale:
            await tx.execute(f"DELETE FROM {name} WHERE item_id = :id", {"id": r["item_id"]})
        await tx.executemany(
            f"INSERT INTO {name} (item_id, partition_key, embedding) VALUES (?, ?, ?)",
            [(r["item_id"], r["want"], bytes(r["embedding"])) for r in stale if r["want"]],
        )
        changed += len(stale)
    await tx.execute("DELETE FROM meta WHERE key = :k", {"k": PARTITIONS_PENDING})
    return changed
