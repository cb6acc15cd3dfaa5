"""Exactly-once handling of Slack deliveries, persisted so a restart does not answer twice.

Two keys: the Events API `event_id` (same on every retry) and, for answers, the asking message's
(team, channel, ts) — `app_mention` and `message` deliver one message under two event ids.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from datetime import timedelta
from typing import TYPE_CHECKING

from memory.clock import Clock, iso, utc_now
from memory.store import dedupe as store

if TYPE_CHECKING:
    from memory.store.db import Database

log = logging.getLogger(__name__)

# Retries arrive within minutes; this many recent ids cover hours of traffic in ~5 MB.
RECENT_EVENT_IDS = 50_000


class Dedupe:
    def __init__(self, db: Database, clock: Clock = utc_now) -> None:
        self._db, self._clock = db, clock
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._persisting: set[asyncio.Task[None]] = set()

    async def claim_event(self, event_id: str) -> bool:
        """True the first time `event_id` is seen; False for every retry after.

        This runs before Slack gets its ack, so it never waits for the write lock: the claim is
        made in memory (no await between check and add, so concurrent deliveries in this process
        cannot both win), checked against ids persisted before a restart with one indexed read,
        and persisted in the background.
        """
        if event_id in self._recent:
            return False
        self._recent[event_id] = None  # pragma: no mutate  (a set: the value is never read)
        if len(self._recent) > RECENT_EVENT_IDS:
            self._recent.popitem(last=False)  # pragma: no mutate  (last=None is last=False)
        if await store.event_seen(self._db, event_id):
            return False
        task = asyncio.create_task(self._persist(event_id))
        self._persisting.add(task)
        task.add_done_callback(self._persisting.discard)
        return True

    async def _persist(self, event_id: str) -> None:
        try:
            async with self._db.transaction() as tx:
                await store.insert_event(tx, event_id, at=iso(self._clock()))
        except Exception as exc:  # the in-memory claim still holds; only restarts lose it
            log.warning("event_id_not_persisted", extra={"error_type": type(exc).__name__})

    async def drain(self) -> None:
        """Wait for background persists (called on shutdown, before the database closes)."""
        if self._persisting:
            await asyncio.gather(*self._persisting, return_exceptions=True)

    async def claim_answer(self, team_id: str, channel_id: str, message_ts: str) -> bool:
        """True for the one delivery that may answer this message."""
        async with self._db.transaction() as tx:
            return await store.claim_answer(
                tx,
                team_id=team_id,
                channel_id=channel_id,
                message_ts=message_ts,
                at=iso(self._clock()),
            )

    async def record_answer(
        self, team_id: str, channel_id: str, message_ts: str, answer_ts: str
    ) -> None:
        async with self._db.transaction() as tx:
            await store.set_answer_ts(
                tx,
                team_id=team_id,
                channel_id=channel_id,
                message_ts=message_ts,
                answer_ts=answer_ts,
            )

    async def prune(self, *, keep: timedelta = timedelta(days=2)) -> int:
        """Forget event ids older than `keep` (Slack retries within minutes)."""
        async with self._db.transaction() as tx:
            return await store.delete_events_before(tx, iso(self._clock() - keep))
