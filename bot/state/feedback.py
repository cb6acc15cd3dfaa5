"""Answer feedback: who found an answer worth remembering, or not helpful (bot_feedback)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from memory.clock import Clock, iso, utc_now
from memory.store import feedback as store

if TYPE_CHECKING:
    from memory.store.db import Database

Verdict = Literal["remembered", "not_helpful"]


class Feedback:
    def __init__(self, db: Database, clock: Clock = utc_now) -> None:
        self._db, self._clock = db, clock

    async def record(
        self, *, team_id: str, channel_id: str, answer_ts: str, subject_id: str, verdict: Verdict
    ) -> None:
        """Store one verdict; repeating the same click changes nothing."""
        async with self._db.transaction() as tx:
            await store.insert_feedback(
                tx,
                team_id=team_id,
                channel_id=channel_id,
                answer_ts=answer_ts,
                subject_id=subject_id,
                verdict=verdict,
                at=iso(self._clock()),
            )

    async def count(self, verdict: Verdict) -> int:
        return await store.count_feedback(self._db, verdict)
