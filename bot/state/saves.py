"""Saving a Slack message to memory once: "Remember this" and the message shortcut claim the
source message (team, channel, ts, kind) in bot_saved_sources before the note is written, so
repeated clicks, retries and two open modals never store the same message twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from memory.clock import Clock, iso, utc_now

if TYPE_CHECKING:
    from memory.notes.notes import Note
    from memory.store.db import Database

# A claim whose note never arrived (the process died mid-save) stops blocking after this long,
# unless the note did arrive and only the link is missing (then the claim is linked instead).
STALE_CLAIM = timedelta(minutes=10)


@dataclass(frozen=True)
class SourceKey:
    team_id: str
    channel_id: str
    source_ts: str
    kind: str

    def params(self) -> dict[str, str]:
        return {"t": self.team_id, "c": self.channel_id, "s": self.source_ts, "k": self.kind}


_WHERE = "team_id = :t AND channel_id = :c AND source_ts = :s AND kind = :k"


class SourceSaves:
    def __init__(self, db: Database, clock: Clock = utc_now) -> None:
        self._db, self._clock = db, clock

    async def is_saved(self, key: SourceKey) -> bool:
        """True when this message was already saved (or is being saved) as this kind."""
        stale = iso(self._clock() - STALE_CLAIM)
        row = await self._db.scalar(
            f"SELECT 1 FROM bot_saved_sources WHERE {_WHERE}"
            " AND (note_id IS NOT NULL OR claimed_at >= :stale)",
            {**key.params(), "stale": stale},
        )
        return bool(row)

    async def claim(self, key: SourceKey) -> bool:
        """True for the one caller that may save this message as this kind."""
        now = self._clock()
        stale = {**key.params(), "stale": iso(now - STALE_CLAIM)}
        async with self._db.transaction() as tx:
            # A stale claim whose note was written but never linked (the process died between
            # the two) is linked now, so the message is not saved a second time.
            await tx.execute(
                f"UPDATE bot_saved_sources SET note_id = (SELECT max(n.id) FROM memory_notes n"
                "  WHERE n.team_id = :t AND n.channel_id = :c AND n.source_ts = :s"
                "  AND n.kind = :k)"
                f" WHERE {_WHERE} AND note_id IS NULL AND claimed_at < :stale",
                stale,
            )
            await tx.execute(
                f"DELETE FROM bot_saved_sources WHERE {_WHERE}"
                " AND note_id IS NULL AND claimed_at < :stale",
                stale,
            )
            changed = await tx.execute_rowcount(
                """INSERT OR IGNORE INTO bot_saved_sources
                       (team_id, channel_id, source_ts, kind, claimed_at)
                   VALUES (:t, :c, :s, :k, :now)""",
                {**key.params(), "now": iso(now)},
            )
        return changed == 1

    async def save_claimed(self, key: SourceKey, save: Callable[[], Awaitable[Note]]) -> Note:
        """Run `save` for a claimed key; link the note, or give the claim back if saving fails."""
        try:
            note = await save()
        except BaseException:
            async with self._db.transaction() as tx:
                await tx.execute(f"DELETE FROM bot_saved_sources WHERE {_WHERE}", key.params())
            raise
        async with self._db.transaction() as tx:
            await tx.execute(
                f"UPDATE bot_saved_sources SET note_id = :n WHERE {_WHERE}",
                {**key.params(), "n": note.id},
            )
        return note

    async def save_once(self, key: SourceKey, save: Callable[[], Awaitable[Note]]) -> Note | None:
        """The saved note, or None when this message was already saved as this kind."""
        if not await self.claim(key):
            return None
        return await self.save_claimed(key, save)
