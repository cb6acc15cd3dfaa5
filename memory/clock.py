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


def ts_to_datetime(ts: str) -> datetime:
    """Slack's "1700000000.000100" as an aware UTC datetime."""
    return datetime.fromtimestamp(float(ts), UTC)


def said_at(ts: str, received: datetime) -> datetime:
    """When a Slack message was said: its ts, never later than when it reached us (a skewed
    or malformed ts falls back to `received`). A retried or queued delivery keeps the time
    the person wrote it, which answers and "what happened at 10:13?" show."""
    try:
        said = ts_to_datetime(ts)
    except (ValueError, OverflowError, OSError):
        return received
    return min(said, received)
