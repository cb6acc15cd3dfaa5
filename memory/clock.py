"""Time as a dependency: code that schedules, decays or expires takes a Clock so tests control time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The real clock: an aware UTC datetime."""
    return datetime.now(UTC)


def iso(dt: datetime) -> str:
    """The one text form of times stored in SQLite (sorts correctly as text)."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_iso(text: str) -> datetime:
    """The stored text form (`iso`) back as an aware UTC datetime. `fromisoformat` reads it
    (Python 3.11+) at a fraction of `strptime`'s cost, which showed in every recall."""
    return datetime.fromisoformat(text).astimezone(UTC)
