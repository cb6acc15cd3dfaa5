"""Paces posts to at most one per second per channel, Slack's documented chat.postMessage limit.

Callers wait their turn instead of being rate limited; channels do not wait on each other.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class ChannelPacer:
    def __init__(
        self,
        interval_s: float = 1.0,
        now: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._interval, self._now, self._sleep = interval_s, now, sleep
        self._next: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def wait(self, channel_id: str) -> None:
        """Return when a post to `channel_id` may go out, reserving that slot."""
        lock = self._locks.setdefault(channel_id, asyncio.Lock())
        async with lock:
            delay = self._next.get(channel_id, 0.0) - self._now()
            if delay > 0:
                await self._sleep(delay)
            self._next[channel_id] = self._now() + self._interval

    def free_in(self, channel_id: str) -> float:
        """Seconds until a post to `channel_id` would go out without waiting (0: now)."""
        return max(0.0, self._next.get(channel_id, 0.0) - self._now())


class ArrivalOrder:
    """One channel's message events handled one at a time, in the order they arrived.

    Bolt runs each event's listener as its own task; redaction takes longer for some messages
    than others, so without this a later message could be stored before an earlier one, and
    memory (which joins each note to the ones said just before it) would pair the wrong turns.
    `turn` must be entered before the listener's first await: asyncio locks queue waiters FIFO.
    """

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}

    def turn(self, channel_id: str) -> asyncio.Lock:
        """The lock to hold while handling one message event of `channel_id`."""
        return self._locks.setdefault(channel_id, asyncio.Lock())
