"""Forward-only migrations: each in one transaction, never half-applied, newer DB refused (issue 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.errors import SchemaTooNew
from memory.store.db import Database
from memory.store.migrations import Migration, apply_migrations, current_version, load_migrations


async def test_fresh_database_reaches_newest_version(db: Database) -> None:
    newest = load_migrations()[-1].version
    assert await current_version(db) == newest
    versions = [r[0] for r in await db.fetchall("SELECT version FROM schema_version ORDER BY 1")]
    assert versions == [m.version for m in load_migrations()]


async def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    for _ in range(2):
        database = await Database.open(tmp_path / "x.db")
        await database.close()
    database = await Database.open(tmp_path / "x.db")
    try:
        count = await database.scalar("SELECT count(*) FROM schema_version")
        assert count == len(load_migrations())
    finally:
        await database.close()


async def test_failing_migration_leaves_previous_version_and_no_partial_tables(
    db: Database,
) -> None:
    base = load_migrations()
    broken = Migration(
        base[-1].version + 1,
        "broken",
        "CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n",
    )
    with pytest.raises(Exception, match="no_such_table"):
        await apply_migrations(db, [*base, broken])
    assert await current_version(db) == base[-1].version
    assert not await db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'")


async def test_trigger_bodies_split_as_one_statement() -> None:
    sql = (
        "CREATE TABLE a (x);\nCREATE TABLE b (x);\n"
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (new.x);\nEND;\n"
    )
    assert len(Migration(99, "t", sql).statements()) == 3


async def test_database_from_newer_code_is_refused_with_the_fix(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "x.db")
    await database.execute("INSERT INTO schema_version (version, name) VALUES (9999, 'future')")
    await database.close()
    with pytest.raises(SchemaTooNew, match=r"9999.*upgrade opsmemory"):
        await Database.open(tmp_path / "x.db")


RELEASE_DB = Path(__file__).parents[1] / "fixtures" / "release-0.1.0.db.gz"
RELEASE_DIGEST = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


async def test_vector_tables_of_the_previous_release_stay_found(tmp_path: Path) -> None:
    """0007 rewrites both old meta forms into one; every vector the release wrote is still read
    (nearest, per partition) and still deleted by forget-me."""
    import gzip
    import json

    import numpy as np

    from memory.store import vectors

    path = tmp_path / "release.db"
    path.write_bytes(gzip.decompress(RELEASE_DB.read_bytes()))
    database = await Database.open(path)
    try:
        meta = {
            r["key"]: json.loads(r["value"])
            for r in await database.fetchall("SELECT key, value FROM meta")
        }
        assert all(key.startswith(vectors.META_PREFIX) for key in meta)
        kinds = {m["kind"]: key.removeprefix(vectors.META_PREFIX) for key, m in meta.items()}
        assert set(kinds) == {"note", "profile", "episode"}
        for kind, table in kinds.items():
            assert meta[vectors.META_PREFIX + table]["digest"] == RELEASE_DIGEST
            assert table == vectors.table_name(kind, 384, RELEASE_DIGEST)
            assert await vectors.tables(database, kind) == [table]

        notes = vectors.VectorTable("note", dim=384, digest=RELEASE_DIGEST)
        stored = await database.fetchall(
            "SELECT v.note_id, v.vec, n.partition_key FROM memory_note_vectors v"
            " JOIN memory_notes n ON n.id = v.note_id ORDER BY v.note_id"
        )
        assert stored
        for row in stored:
            query = np.frombuffer(row["vec"], dtype=np.float32)
            hits = await notes.nearest(
                database, query, partitions=[row["partition_key"]], k=1, coarse=8
            )
            assert hits[0][0] == row["note_id"] and hits[0][1] > 0.99

        facts = vectors.VectorTable("profile", dim=384, digest=RELEASE_DIGEST)
        fact = await database.fetchone(
            f"SELECT item_id, partition_key FROM {facts.table} ORDER BY item_id LIMIT 1"
        )
        assert fact is not None
        async with database.transaction() as tx:
            found = await facts.in_partition(tx, fact["partition_key"])
        assert found[int(fact["item_id"])].shape == (384,)

        async with database.transaction() as tx:
            ids = [int(r["note_id"]) for r in stored]
            removed = await vectors.delete_items(tx, "note", ids)
        assert removed == 2 * len(ids)  # bit codes and exact vectors
        assert await database.scalar("SELECT count(*) FROM memory_note_vectors") == 0
    finally:
        await database.close()


async def test_the_replaced_approvals_table_is_gone(db: Database) -> None:
    """Nothing reads bot_approvals since guarded requests: no table may keep requester ids."""
    tables = {r[0] for r in await db.fetchall("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "bot_approvals" not in tables and "guarded_requests" in tables
