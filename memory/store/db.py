"""The one async SQLite layer: sqlean driver, pragmas, sqlite-vec on every connection, one writer.

Reads go to a small pool of reader connections (WAL lets them run beside the writer); every write
goes through `Database.transaction()`, which serialises writers behind one asyncio lock and takes
`BEGIN IMMEDIATE`, so concurrent tasks never see "database is locked" and a failed write rolls back
completely.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import (
    AsyncIterator,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import aiosqlite
import sqlean
import sqlite_vec

from memory.errors import StorageError
from memory.store.migrations import apply_migrations, current_version
from memory.store.partitions import move_channel_partitions

log = logging.getLogger(__name__)


class Row(Protocol):
    """What a read returns (a `sqlean.Row`): columns by position or by name."""

    def __getitem__(self, key: int | str, /) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...
    def keys(self) -> list[str]: ...


Params = Sequence[Any] | Mapping[str, Any]
T = TypeVar("T")
DriverError = sqlean.Error
IntegrityError = sqlean.IntegrityError

BUSY_TIMEOUT_MS = 10_000
#: The first schema version written with secure_delete on (0008 turns on FTS5 secure-delete).
SECURE_DELETE_SINCE = 8


# secure_delete = ON, not FAST (issue 16): FAST zeroes only what costs no extra I/O and leaves
# freed pages (overflow pages of a long message, emptied FTS segments) on the freelist with their
# old bytes; measured on a deleted 40,000-character message, FAST left 94 % of its words in the
# file and ON none. The cost is a write of each freed page, paid only when rows shrink or go.
PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA temp_store = MEMORY",
    "PRAGMA secure_delete = ON",
)


def _connect_raw(path: str) -> sqlean.Connection:
    """Open one driver connection with sqlite-vec loaded (pragmas follow, see PRAGMAS)."""
    conn = sqlean.connect(path, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlean.Row
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    return conn


def sqlite_info() -> dict[str, str | bool]:
    """SQLite version and which extensions work, for `opsmemory doctor`."""
    conn = _connect_raw(":memory:")
    try:
        for pragma in PRAGMAS:
            conn.execute(pragma)
        version = conn.execute("SELECT sqlite_version()").fetchone()[0]
        vec = conn.execute("SELECT vec_version()").fetchone()[0]
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        return {"sqlite": version, "fts5": True, "sqlite_vec": vec}
    finally:
        conn.close()


class Tx:
    """The open write transaction handed to `async with db.transaction() as tx`."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; return lastrowid (useful after INSERT)."""
        cur = await self._conn.execute(sql, params)
        rowid = cur.lastrowid or 0
        await cur.close()
        return rowid

    async def execute_rowcount(self, sql: str, params: Params = ()) -> int:
        """Run one statement; return how many rows it changed."""
        cur = await self._conn.execute(sql, params)
        count = cur.rowcount
        await cur.close()
        return count

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        await self._conn.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return cast("list[Row]", list(await self._conn.execute_fetchall(sql, params)))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None


class _InlineTx(Tx):
    """A Tx that runs each statement directly on the driver connection, for a transaction body
    that already runs on the writer's thread (`Database.run_transaction`)."""

    def __init__(self, conn: sqlean.Connection) -> None:
        self._raw = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        cur = self._raw.execute(sql, params)
        rowid = cur.lastrowid or 0
        cur.close()
        return rowid

    async def execute_rowcount(self, sql: str, params: Params = ()) -> int:
        cur = self._raw.execute(sql, params)
        count = cur.rowcount
        cur.close()
        return count

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        self._raw.executemany(sql, rows).close()

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return cast("list[Row]", self._raw.execute(sql, params).fetchall())


def _drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, synchronously."""
    try:
        coro.send(None)
    except StopIteration as done:
        return cast("T", done.value)
    coro.close()
    raise RuntimeError("a run_transaction body awaited something other than its Tx")


def _run_group(
    conn: sqlean.Connection, bodies: Sequence[Callable[[Tx], Coroutine[Any, Any, Any]]]
) -> list[tuple[bool, Any]]:
    """One transaction on the writer's thread: each body inside its own SAVEPOINT (a body that
    raises is rolled back alone), then COMMIT; (ok, result or exception) per body, in order."""
    conn.execute("BEGIN IMMEDIATE")
    outcomes: list[tuple[bool, Any]] = []
    try:
        for body in bodies:
            conn.execute("SAVEPOINT body")
            try:
                value = _drive(body(_InlineTx(conn)))
            except Exception as exc:
                conn.execute("ROLLBACK TO body")
                conn.execute("RELEASE body")
                outcomes.append((False, exc))
            else:
                conn.execute("RELEASE body")
                outcomes.append((True, value))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


class Database:
    """An opened, migrated opsmemory database file."""

    def __init__(
        self, path: Path, writer: aiosqlite.Connection, readers: list[aiosqlite.Connection]
    ) -> None:
        self.path = path
        self._writer = writer
        self._readers = readers
        self._next_reader = itertools.cycle(range(len(readers)))
        self._write_lock = asyncio.Lock()
        self._queued: list[tuple[Callable[[Tx], Coroutine[Any, Any, Any]], asyncio.Future[Any]]]
        self._queued = []
        self._committer: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path, *, readers: int = 2, migrate: bool = True) -> Database:
        """Open (creating if needed) and migrate the database at `path`."""
        _check_parent_writable(path)
        writer = await _open_async(path)
        try:
            await _enable_wal(writer, path)
            db = cls(path, writer, [])
            if migrate:
                found = await current_version(db)
                await apply_migrations(db)
                if 0 < found < SECURE_DELETE_SINCE:
                    await db._purge_free_space()
                async with db.transaction() as tx:  # migration 0010's vector half, once
                    await move_channel_partitions(tx)
            db._readers = [await _open_async(path) for _ in range(readers)]
            db._next_reader = itertools.cycle(range(readers))
        except BaseException:
            await writer.close()
            raise
        return db

    async def close(self) -> None:
        # Queued bodies are committed (or refused) first; a cancelled close leaves the committer
        # running (shielded), so no caller is stranded on connections closed under it.
        while self._queued or (self._committer is not None and not self._committer.done()):
            if self._committer is None or self._committer.done():
                self._committer = asyncio.create_task(self._commit_queued())
            await asyncio.gather(asyncio.shield(self._committer), return_exceptions=True)
        for conn in [self._writer, *self._readers]:
            await conn.close()

    async def trace(self, callback: Callable[[str], object] | None) -> None:
        """Call `callback` with every statement any connection runs (None stops): diagnostics
        and tests that count what one request reads."""
        for conn in [self._writer, *self._readers]:
            await conn.set_trace_callback(cast(Any, callback))  # None stops tracing

    def _reader(self) -> aiosqlite.Connection:
        if not self._readers:
            return self._writer
        return self._readers[next(self._next_reader)]

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        """Run a read on a reader connection."""
        return cast("list[Row]", list(await self._reader().execute_fetchall(sql, params)))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def scalar(self, sql: str, params: Params = ()) -> Any:
        row = await self.fetchone(sql, params)
        return None if row is None else row[0]

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """Serialised write transaction: commits on success, rolls back everything on error."""
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield Tx(self._writer)
            except BaseException:
                await self._writer.execute("ROLLBACK")
                raise
            else:
                await self._writer.execute("COMMIT")

    async def run_transaction(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """Like `transaction()`, for a hot write someone waits on (a note before its ack): the
        body runs on the writer's thread in one hand-off instead of one per statement, and
        bodies that arrive while the writer is busy are committed together in the next
        transaction, each in its own SAVEPOINT. A body that raises is rolled back alone and
        its caller gets the error; every other caller gets its result only after the COMMIT.

        `body` may await only its Tx (store functions that take a Tx); anything else that would
        suspend (an embedder, a lock, a sleep) raises RuntimeError and that body rolls back.
        """
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queued.append((body, done))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_queued())
        return await done

    async def _commit_queued(self) -> None:
        """Commit what is queued, one transaction per turn, until nothing is."""
        while self._queued:
            batch, self._queued = self._queued, []
            try:
                async with self._write_lock:
                    # A caller cancelled while queued was told nothing was stored: keep it so.
                    batch = [(body, done) for body, done in batch if not done.done()]
                    if not batch:
                        continue
                    # aiosqlite has no public "run this on the connection's thread"; this is it.
                    outcomes = await self._writer._execute(
                        _run_group, self._writer._conn, [body for body, _ in batch]
                    )
            except BaseException as exc:  # BEGIN or COMMIT failed: none of the batch is stored
                for _, done in batch:
                    if done.done():
                        continue
                    if isinstance(exc, asyncio.CancelledError):
                        done.cancel()
                    else:
                        done.set_exception(exc)
                if not isinstance(exc, Exception):
                    # The committer itself was cancelled: what is still queued is not stored,
                    # and its callers hear so instead of waiting for a committer that is gone.
                    queued, self._queued = self._queued, []
                    for _, done in queued:
                        if not done.done():
                            done.cancel()
                    raise
                continue
            for (_, done), (ok, value) in zip(batch, outcomes, strict=True):
                if done.done():  # its caller was cancelled; the write stands, as with commit
                    continue
                if ok:
                    done.set_result(value)
                else:
                    done.set_exception(value)

    async def execute(self, sql: str, params: Params = ()) -> int:
        """One write statement in its own transaction; returns lastrowid."""
        async with self.transaction() as tx:
            return await tx.execute(sql, params)

    async def _purge_free_space(self) -> None:
        """Rewrite the file once (VACUUM) when it was written before secure_delete: pages and
        cells freed by earlier releases still hold what was forgotten then (issue 16)."""
        async with self._write_lock:
            await self._writer.execute("VACUUM")
        await self.checkpoint()
        log.info("database_vacuumed_for_secure_delete")

    async def checkpoint(self) -> bool:
        """Copy the WAL into the database file and truncate it to zero bytes, so page versions
        written before a deletion (old text) leave the WAL; False when a reader kept it busy.

        Called after forgetting and after edited or deleted messages (issue 16): secure_delete
        zeroes the pages, but until this runs their previous versions are still WAL frames.
        """
        async with self._write_lock:
            rows = await self._writer.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)")
        busy = int(next(iter(rows))[0])
        if busy:
            log.warning("wal_checkpoint_busy")
        return not busy


def _check_parent_writable(path: Path) -> None:
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"Cannot create the data directory {parent} ({exc.strerror}); "
            "set OPSMEMORY_DATA_DIR to a writable directory."
        ) from None
    probe = parent / ".opsmemory-write-check"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise StorageError(
            f"The data directory {parent} is not writable ({exc.strerror}); "
            "fix its permissions or set OPSMEMORY_DATA_DIR to a writable directory."
        ) from None


async def _open_async(path: Path) -> aiosqlite.Connection:
    conn = aiosqlite.Connection(lambda: _connect_raw(str(path)), iter_chunk_size=256)
    # aiosqlite's worker thread is non-daemon: a command that fails before close() would hang
    # the process at exit forever. WAL makes an abrupt end safe (SQLite recovers on next open).
    conn._thread.daemon = True
    try:
        await conn
    except DriverError as exc:
        raise StorageError(
            f"Cannot open the database at {path} ({exc}); check the path and its permissions."
        ) from None
    try:
        for pragma in PRAGMAS:
            await conn.execute(pragma)
    except DriverError as exc:
        await conn.close()
        raise StorageError(
            f"The database at {path} is not a readable SQLite file ({exc}); "
            "move it aside or restore a backup."
        ) from None
    return conn


async def _enable_wal(conn: aiosqlite.Connection, path: Path) -> None:
    try:
        rows = await conn.execute_fetchall("PRAGMA journal_mode = WAL")
    except DriverError as exc:
        await conn.close()
        raise StorageError(
            f"The database at {path} is not a readable SQLite file ({exc}); "
            "move it aside or restore a backup."
        ) from None
    mode = next(iter(rows))[0]
    if str(mode).lower() != "wal":
        log.warning("journal_mode_not_wal", extra={"mode": mode})
