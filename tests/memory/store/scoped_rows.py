"""A table of named rows carrying the scope columns, to read through `visibility_sql` alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory.scopes import Requester
from memory.store.db import Database
from memory.store.visibility import visibility_sql

Row = tuple[str, str, str, str | None, int, str]  # (name, scope, team, channel, private, owner)


async def scoped_rows_db(path: Path, rows: Sequence[Row]) -> Database:
    database = await Database.open(path)
    async with database.transaction() as tx:
        await tx.execute(
            "CREATE TABLE rows (name TEXT, scope TEXT, team_id TEXT, channel_id TEXT,"
            " channel_is_private INTEGER, owner_subject_id TEXT)"
        )
        await tx.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?)", rows)
    return database


async def visible(db: Database, requester: Requester) -> set[str]:
    """Names of the rows `requester` may see."""
    where, params = visibility_sql(requester, alias="r")
    return {row[0] for row in await db.fetchall(f"SELECT name FROM rows r WHERE {where}", params)}
