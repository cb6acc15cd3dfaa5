"""Saving a Slack message to memory once: "Remember this" and the message shortcut claim the
source message (team, channel, ts, kind) in bot_saved_sources before the note is written, so
repeated clicks, retries and two open modals never store the same message twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from memory.clock import Clock, iso, utc_now
from memory.store import saves as store
from memory.store.saves import SourceKey

if TYPE_CHECKING:
    from memory.notes.notes import Note
    from memory.store.db import Database

__all__ = ["STALE_CLAIM", "SourceKey", "SourceSaves"]

# A claim whose note never arrived (the process died mid-save) stops blocking after this long,
# unless the note did arrive and only the link is missing (then the claim is linked instead).
STALE_CLAIM = timedelta(minutes=10)


class SourceSaves:
    def __init__(self, db: Database, clock: Clock = utc_now) -> None:
        self._db, self._clock = db, clock

    async def is_saved(self, key: SourceKey) -> bool:
        """True when this message was already saved (or is being saved) as this kind."""
        return await store.is_claimed(self._db, key, fresh_since=iso(self._clock() - STALE_CLAIM))

    async def claim(self, key: SourceKey) -> bool:
        """True for the one caller that may save this message as this kind."""
        now = self._clock()
        stale = iso(now - STALE_CLAIM)
        async with self._db.transaction() as tx:
            # A stale claim whose note was written but never linked (the process died between
            # the two) is linked now, so the message is not saved a second time.
            await store.link_stale_claim(tx, key, claimed_before=stale)
            await store.delete_stale_claim(tx, key, claimed_before=stale)
            return await store.insert_claim(tx, key, at=iso(now))

    async def save_claimed(self, key: SourceKey, save: Callable[[], Awaitable[Note]]) -> Note:
        """Run `save` for a claimed key; link the note, or give the claim back if saving fails."""
        try:
            note = await save()
        except BaseException:
            async with self._db.transaction() as tx:
                await store.delete_claim(tx, key)
            raise
        async with self._db.transaction() as tx:
            await store.link_note(tx, key, note.id)
        return note

    async def save_once(self, key: SourceKey, save: Callable[[], Awaitable[Note]]) -> Note | None:
        """The saved note, or None when this message was already saved as this kind."""
        if not await self.claim(key):
            return None
        return await self.save_claimed(key, save)
