"""Versioned, forward-only schema migrations: `memory/store/schema/NNNN_name.sql`, each in one transaction.

The version row is written in the same transaction as the migration, so a crash leaves the
database at the previous version, never half-migrated. A database newer than the code is refused.
"""

from __future__ import annotations

import re
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlean

from memory.errors import SchemaTooNew, StorageError


class MigrationTx(Protocol):
    """The write transaction a migration runs in (`memory.store.db.Tx` is one)."""

    async def execute(self, sql: str, params: Any = ...) -> int: ...
    async def fetchone(self, sql: str, params: Any = ...) -> Any: ...


class Migratable(Protocol):
    """What migrating needs of a database (`memory.store.db.Database` is one; it calls
    `apply_migrations` when it opens, so this module must not import it back)."""

    path: Path

    async def scalar(self, sql: str, params: Any = ...) -> Any: ...
    def transaction(self) -> AbstractAsyncContextManager[MigrationTx]: ...


SCHEMA_DIR = Path(__file__).parent / "schema"
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    def statements(self) -> list[str]:
        """Split the script into complete statements (triggers included)."""
        out: list[str] = []
        buf = ""
        for line in self.sql.splitlines(keepends=True):
            buf += line
            if sqlean.complete_statement(buf):
                if buf.strip():
                    out.append(buf.strip())
                buf = ""
        if buf.strip():
            raise StorageError(f"Migration {self.version:04d}_{self.name} ends mid-statement.")
        return out


def load_migrations() -> list[Migration]:
    """All migrations shipped with this code, in version order."""
    found: list[Migration] = []
    for entry in SCHEMA_DIR.iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise StorageError(f"Two migration files share a version number: {versions}")
    return found


async def current_version(db: Migratable) -> int:
    exists = await db.scalar(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    )
    if not exists:
        return 0
    return int(await db.scalar("SELECT coalesce(max(version), 0) FROM schema_version") or 0)


async def apply_migrations(db: Migratable, migrations: list[Migration] | None = None) -> int:
    """Bring the database up to the newest version; return the version reached."""
    migrations = load_migrations() if migrations is None else migrations
    supported = migrations[-1].version if migrations else 0
    async with db.transaction() as tx:
        await tx.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))"
        )
    found = await current_version(db)
    if found > supported:
        raise SchemaTooNew(found=found, supported=supported, path=str(db.path))
    for migration in migrations:
        if migration.version <= found:
            continue
        async with db.transaction() as tx:
            # Re-check inside the write lock: another process may have migrated meanwhile.
            row = await tx.fetchone(
                "SELECT 1 FROM schema_version WHERE version = ?", (migration.version,)
            )
            if row:
                continue
            for statement in migration.statements():
                await tx.execute(statement)
            await tx.execute(
                "INSERT INTO schema_version (version, name) VALUES (?, ?)",
                (migration.version, migration.name),
            )
    return supported
