"""The health probe: one trivial read that proves the database answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database


async def ping(db: Database) -> bool:
    """True when a reader connection answers a query."""
    return bool(await db.scalar("SELECT 1") == 1)
