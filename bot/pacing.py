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
    """One channel's message events stored in the order they arrived.

    Bolt runs each event's listener as its own task; redaction takes longer for some messages
    than others, so without this a later message could be stored before an earlier one, and
    memory (which joins each note to the ones said just before it) would pair the wrong turns.
    A listener takes a `ticket` before its first await (in arrival order), does its Slack
    lookups without waiting for anyone, then waits its `turn` only to store; leaving the ticket
    (stored, skipped or failed) lets the next one go, so one slow lookup never holds the others
    for longer than it takes itself.
    """

    def __init__(self) -> None:
        self._last: dict[str, asyncio.Future[None]] = {}

    def ticket(self, channel_id: str) -> Ticket:
        """A place in `channel_id`'s queue, behind every ticket taken before it."""
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        before = self._last.get(channel_id)
        self._last[channel_id] = mine
        return Ticket(self, channel_id, before, mine)

    def _done(self, channel_id: str, mine: asyncio.Future[None]) -> None:
        if not mine.done():
            mine.set_result(None)
        if self._last.get(channel_id) is mine:
            del self._last[channel_id]


class Ticket:
    """Use as `async with order.ticket(channel) as t: …; await t.turn(); store()`."""

    def __init__(
        self,
        order: ArrivalOrder,
        channel_id: str,
        before: asyncio.Future[None] | None,
        mine: asyncio.Future[None],
    ) -> None:
        self._order, self._channel, self._before, self._mine = order, channel_id, before, mine

    async def turn(self) -> None:
        """Return once every earlier ticket of the channel has been left."""
        if self._before is not None and not self._before.done():
            await asyncio.shield(self._before)

    async def __aenter__(self) -> Ticket:
        return self

    async def __aexit__(self, *exc: object) -> None:
        # The queue moves on only once the earlier ones did: a ticket left early (a skipped
        # event) must not let a later one store before an earlier one still working.
        try:
            await self.turn()
        finally:
            self._order._done(self._channel, self._mine)
