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
