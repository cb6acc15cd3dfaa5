"""SQL of the daily digest: a team's incidents, episodes and decision notes in a time window.

Each read takes the audience the digest is posted to and applies the visibility filter in SQL;
`team_id = :team` only narrows the scan (it matches the indexes), the filter decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from memory.store.episodes import COLUMNS as EPISODE_COLUMNS
from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database, Row

IncidentTime = Literal["opened_at", "resolved_at"]
_INCIDENT_TIMES: tuple[str, ...] = ("opened_at", "resolved_at")

_INCIDENTS = """
SELECT i.id, i.title, i.severity, i.status, i.channel_id, i.opened_at, i.resolved_at,
       i.owner_subject_id
FROM memory_incidents AS i
WHERE i.team_id = :team AND i.{column} >= :since AND i.{column} < :until AND {vis}
ORDER BY i.{column} LIMIT :cap
"""

_INCIDENTS_NAMED = """
SELECT i.id, i.title, i.severity, i.status, i.channel_id, i.opened_at, i.resolved_at,
       i.owner_subject_id
FROM memory_incidents AS i
WHERE i.team_id = :team AND i.id IN ({ids}) AND {vis}
ORDER BY i.opened_at LIMIT :cap
"""

_EPISODES = """
SELECT {columns} FROM memory_episodes AS e
WHERE e.team_id = :team AND e.updated_at >= :since AND e.updated_at < :until AND {vis}
ORDER BY e.ended_at DESC LIMIT :cap
"""

_NOTE_DECISIONS = """
SELECT n.text, n.channel_id, n.incident_id, n.permalink FROM memory_notes AS n
WHERE n.team_id = :team AND n.kind = 'decision' AND n.created_at >= :since
  AND n.created_at < :until AND {vis}
ORDER BY n.created_at LIMIT :cap
"""


@dataclass(frozen=True)
class Window:
    """[since, until) as stored timestamps, and at most `cap` rows per read."""

    since: str
    until: str
    cap: int


async def _read(
    db: Database, sql: str, audience: Audience, alias: str, window: Window, **fmt: str
) -> list[Row]:
    vis, params = visibility_sql(audience, alias=alias)
    bounds = {
        "team": audience.team_id,
        "since": window.since,
        "until": window.until,
        "cap": window.cap,
    }
    return await db.fetchall(sql.format(vis=vis, **fmt), {**bounds, **params})


async def incidents(
    db: Database, audience: Audience, window: Window, *, column: IncidentTime
) -> list[Row]:
    """Incidents whose `column` (opened_at or resolved_at) falls in the window, oldest first."""
    if column not in _INCIDENT_TIMES:
        raise ValueError(f"not an incident time column: {column!r}")
    return await _read(db, _INCIDENTS, audience, "i", window, column=column)


async def incidents_named(
    db: Database, audience: Audience, window: Window, ids: list[str]
) -> list[Row]:
    """The incidents of these ids the audience may see (the window's cap applies, not its
    times): ones opened before the window whose threads were active in it."""
    if not ids:
        return []
    vis, params = visibility_sql(audience, alias="i")
    named = {f"id{n}": i for n, i in enumerate(ids[: window.cap])}
    sql = _INCIDENTS_NAMED.format(vis=vis, ids=", ".join(f":{k}" for k in named))
    return await db.fetchall(sql, {"team": audience.team_id, "cap": window.cap, **named, **params})


async def episodes(db: Database, audience: Audience, window: Window) -> list[Row]:
    """Episodes updated in the window (all episode COLUMNS), by when their thread ended."""
    return await _read(db, _EPISODES, audience, "e", window, columns=EPISODE_COLUMNS)


async def note_decisions(db: Database, audience: Audience, window: Window) -> list[Row]:
    """Decision notes created in the window (text, channel_id, incident_id, permalink)."""
    return await _read(db, _NOTE_DECISIONS, audience, "n", window)
