"""The storage engine: pragmas, extensions, one writer, rollback, bad files (issue 2)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from memory.errors import StorageError
from memory.store.db import Database, Tx


async def test_every_connection_has_wal_foreign_keys_and_sqlite_vec(db: Database) -> None:
    assert (await db.scalar("PRAGMA journal_mode")).lower() == "wal"
    assert await db.scalar("PRAGMA foreign_keys") == 1
    assert await db.scalar("PRAGMA busy_timeout") >= 5000
    assert (await db.scalar("SELECT vec_version()")).startswith("v")
    async with db.transaction() as tx:
        row = await tx.fetchone("SELECT vec_version() AS v, sqlite_version() AS s")
        assert row is not None and row["v"].startswith("v")


async def test_concurrent_writers_never_see_database_locked(db: Database) -> None:
    async def write(i: int) -> None:
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (f"k{i}", "v"))
            await asyncio.sleep(0)  # let other tasks try to write in the middle

    await asyncio.gather(*(write(i) for i in range(200)))
    assert await db.scalar("SELECT count(*) FROM meta") == 200


async def test_failed_write_rolls_back_every_statement(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
            await tx.execute("INSERT INTO meta (key, value) VALUES ('b', '2')")
            raise RuntimeError("boom after two inserts")
    assert await db.scalar("SELECT count(*) FROM meta") == 0
    # The writer is usable again afterwards.
    await db.execute("INSERT INTO meta (key, value) VALUES ('c', '3')")
    assert await db.scalar("SELECT value FROM meta WHERE key = 'c'") == "3"


async def test_writer_thread_transaction_commits_all_or_nothing(db: Database) -> None:
    """`run_transaction` (the whole body on the writer's thread) keeps `transaction()`'s
    guarantees: a clean body commits every statement, a failing one none, and concurrent
    callers are serialised with ordinary transactions."""

    async def two(tx: Tx) -> int:
        await tx.execute("INSERT INTO meta (key, value) VALUES ('a', '1')")
        rowid = await tx.execute("INSERT INTO meta (key, value) VALUES ('b', '2')")
        rows = await tx.fetchall("SELECT key FROM meta ORDER BY key")
        assert [r["key"] for r in rows] == ["a", "b"]  # its own writes are visible inside
        return rowid

    assert await db.run_transaction(two) > 0
    assert await db.scalar("SELECT count(*) FROM meta") == 2

    async def fails(tx: Tx) -> None:
        await tx.execute("INSERT INTO meta (key, value) VALUES ('c', '3')")
        raise ValueError("boom after an insert")

    with pytest.raises(ValueError):
        await db.run_transaction(fails)
    assert await db.scalar("SELECT count(*) FROM meta WHERE key = 'c'") == 0

    async def one(i: int, tx: Tx) -> None:
        await tx.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (f"k{i}",))

    async def ordinary(i: int) -> None:
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (f"o{i}",))
            await asyncio.sleep(0)

    await asyncio.gather(
        *(db.run_transaction(lambda tx, i=i: one(i, tx)) for i in range(50)),
        *(ordinary(i) for i in range(50)),
    )
    assert await db.scalar("SELECT count(*) FROM meta") == 102


async def test_writer_thread_transaction_refuses_a_body_that_suspends(db: Database) -> None:
    """A body awaiting anything but its Tx cannot run on the writer's thread: it is refused
    and what it wrote before is rolled back, never half-committed."""

    async def suspends(tx: Tx) -> None:
        await tx.execute("INSERT INTO meta (key, value) VALUES ('x', '1')")
        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="awaited something other than its Tx"):
        await db.run_transaction(suspends)
    assert await db.scalar("SELECT count(*) FROM meta") == 0
    await db.execute("INSERT INTO meta (key, value) VALUES ('y', '2')")  # writer still usable
    assert await db.scalar("SELECT value FROM meta WHERE key = 'y'") == "2"


async def test_writes_queued_behind_a_busy_writer_commit_together_and_fail_alone(
    db: Database,
) -> None:
    """Bodies that wait while the writer is busy share the next transaction (one BEGIN for
    all), yet each is its own unit: the one that raises is rolled back and told, the others
    are committed and get their results."""
    began: list[str] = []
    await db.trace(lambda sql: began.append(sql) if sql.startswith("BEGIN") else None)

    async def put(key: str, tx: Tx) -> str:
        await tx.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (key,))
        if key == "bad":
            raise ValueError("this one fails after its insert")
        return key

    try:
        async with db.transaction():  # the writer is busy while the three are queued
            waiting = [
                asyncio.ensure_future(db.run_transaction(lambda tx, k=k: put(k, tx)))
                for k in ("a", "bad", "b")
            ]
        results = await asyncio.gather(*waiting, return_exceptions=True)
    finally:
        await db.trace(None)
    assert results[0] == "a" and results[2] == "b"
    assert isinstance(results[1], ValueError)
    keys = [r[0] for r in await db.fetchall("SELECT key FROM meta ORDER BY key")]
    assert keys == ["a", "b"]
    assert len(began) == 2  # the busy transaction's, then one for all three queued bodies


async def test_a_write_cancelled_while_queued_is_not_stored(db: Database) -> None:
    """A caller cancelled before its body ran (a listener cancelled at shutdown) heard nothing
    was stored; committing it anyway would store a note its author retypes."""

    async def put(key: str, tx: Tx) -> str:
        await tx.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (key,))
        return key

    async with db.transaction():  # the writer is busy while both are queued
        gone = asyncio.ensure_future(db.run_transaction(lambda tx: put("gone", tx)))
        kept = asyncio.ensure_future(db.run_transaction(lambda tx: put("kept", tx)))
        await asyncio.sleep(0)  # both are queued behind the busy writer
        gone.cancel()
    assert await kept == "kept"
    assert gone.cancelled()
    keys = [r[0] for r in await db.fetchall("SELECT key FROM meta WHERE key IN ('gone', 'kept')")]
    assert keys == ["kept"]


async def test_close_commits_what_is_queued_first(tmp_path: Path) -> None:
    database = await Database.open(tmp_path / "x.db")

    async def put(key: str, tx: Tx) -> str:
        await tx.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (key,))
        return key

    queued = [asyncio.ensure_future(database.run_transaction(lambda tx, k=k: put(k, tx)))
              for k in ("x", "y")]  # fmt: skip
    await asyncio.sleep(0)
    await database.close()
    assert [q.result() for q in queued] == ["x", "y"]
    again = await Database.open(tmp_path / "x.db")
    try:
        assert await again.scalar("SELECT count(*) FROM meta WHERE key IN ('x', 'y')") == 2
    finally:
        await again.close()


async def test_second_process_connection_sees_committed_rows(tmp_path: Path) -> None:
    first = await Database.open(tmp_path / "x.db")
    second = await Database.open(tmp_path / "x.db")
    try:
        await first.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
        assert await second.scalar("SELECT value FROM meta WHERE key = 'k'") == "v"
    finally:
        await first.close()
        await second.close()


async def test_corrupt_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "opsmemory.db"
    path.write_bytes(b"this is not a database, it is a text file" * 100)
    with pytest.raises(StorageError, match=r"not a readable SQLite file.*move it aside"):
        await Database.open(path)


async def test_unwritable_data_dir_is_one_clear_error(tmp_path: Path) -> None:
    """Runs as root too (CI does; issue 18): root ignores permission bits, so the directory is
    made unwritable for everyone by a directory standing where the write check puts its file."""
    data = tmp_path / "data"
    (data / ".opsmemory-write-check").mkdir(parents=True)
    with pytest.raises(
        StorageError, match=r"data directory .* is not writable.*OPSMEMORY_DATA_DIR"
    ):
        await Database.open(data / "opsmemory.db")
    assert not (data / "opsmemory.db").exists()


async def test_data_dir_that_is_a_file_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data dir should be")
    with pytest.raises(StorageError, match="OPSMEMORY_DATA_DIR"):
        await Database.open(blocker / "opsmemory.db")


def test_a_command_that_fails_before_closing_the_database_still_exits(tmp_path: Path) -> None:
    """aiosqlite's worker threads must not keep a failed CLI process alive forever."""
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from memory.store.db import Database\n"
        "async def main():\n"
        f"    await Database.open(Path({str(tmp_path)!r}) / 'x.db')\n"
        "    sys.exit(3)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=30, capture_output=True)
    assert done.returncode == 3
