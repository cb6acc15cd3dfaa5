"""SQLite's own statement trace on the bot's real database connections, to count what one
request reads (no wrapper around our code: sqlite3 calls back with each statement it runs)."""

from __future__ import annotations

from memory.store import Database


async def trace_statements(db: Database) -> list[str]:
    """Start recording every statement run on `db`'s connections; returns the live list."""
    seen: list[str] = []
    await db.trace(seen.append)
    return seen
