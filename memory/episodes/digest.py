"""The daily digest as plain data: incidents opened and resolved, episodes, decisions.

The digest is posted to a shared channel, so it holds only what anyone in the team may see:
every read goes through `scopes.visibility_sql` for `Requester.public_audience`, which admits
public-channel and workspace rows and never private channels or personal (user-scope) memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import iso, parse_iso
from memory.scopes import Requester, visibility_sql

if TYPE_CHECKING:
    from memory.episodes.episodes import Episode
    from memory.store.db import Database

MAX_ITEMS = 50


@dataclass(frozen=True)
class DigestIncident:
    id: str
    title: str
    severity: str
    status: str
    channel_id: str
    opened_at: datetime
    resolved_at: datetime | None


@dataclass(frozen=True)
class DigestDecision:
    text: str
    channel_id: str | None
    incident_id: str | None
    source: str  # "episode" | "note"
    permalink: str | None = None


@dataclass(frozen=True)
class Digest:
    team_id: str
    since: datetime
    until: datetime
    incidents_opened: list[DigestIncident]
    incidents_resolved: list[DigestIncident]
    episodes: list[Episode]
    decisions: list[DigestDecision]

    @property
    def empty(self) -> bool:
        return not (self.incidents_opened or self.incidents_resolved or self.episodes)


# `team_id = :team` only narrows the scan (it matches the indexes); `{vis}` decides visibility.
_INCIDENTS = """
SELECT i.id, i.title, i.severity, i.status, i.channel_id, i.opened_at, i.resolved_at
FROM memory_incidents AS i
WHERE i.team_id = :team AND i.{column} >= :since AND i.{column} < :until AND {vis}
ORDER BY i.{column} LIMIT :cap
"""

_EPISODES = """
SELECT {columns} FROM memory_episodes AS e
WHERE e.team_id = :team AND e.updated_at >= :since AND e.updated_at < :until AND {vis}
ORDER BY e.ended_at LIMIT :cap
"""

_NOTE_DECISIONS = """
SELECT n.text, n.channel_id, n.incident_id, n.permalink FROM memory_notes AS n
WHERE n.team_id = :team AND n.kind = 'decision' AND n.created_at >= :since
  AND n.created_at < :until AND {vis}
ORDER BY n.created_at LIMIT :cap
"""


def _incident(row) -> DigestIncident:  # row: memory.store.db.Row
    return DigestIncident(
        id=row["id"],
        title=row["title"],
        severity=row["severity"],
        status=row["status"],
        channel_id=row["channel_id"],
        opened_at=parse_iso(row["opened_at"]),
        resolved_at=None if row["resolved_at"] is None else parse_iso(row["resolved_at"]),
    )


async def build_digest(db: Database, team_id: str, *, since: datetime, until: datetime) -> Digest:
    """Everything public that happened in the team between `since` and `until`."""
    from memory.episodes.episodes import COLUMNS, row_to_episode  # episodes imports this module

    audience = Requester.public_audience(team_id)
    window = {"team": team_id, "since": iso(since), "until": iso(until), "cap": MAX_ITEMS}

    async def read(sql: str, alias: str, **fmt: str) -> list:  # list[memory.store.db.Row]
        vis, params = visibility_sql(audience, alias=alias)
        return await db.fetchall(sql.format(vis=vis, **fmt), {**window, **params})

    opened = await read(_INCIDENTS, "i", column="opened_at")
    resolved = await read(_INCIDENTS, "i", column="resolved_at")
    episode_rows = await read(_EPISODES, "e", columns=COLUMNS)
    episodes = [row_to_episode(r) for r in episode_rows]
    decisions = [
        DigestDecision(line, e.channel_id, e.incident_id, "episode")
        for e in episodes
        for line in e.sections.get("decisions", [])
    ]
    decisions += [
        DigestDecision(r["text"], r["channel_id"], r["incident_id"], "note", r["permalink"])
        for r in await read(_NOTE_DECISIONS, "n")
    ]
    return Digest(
        team_id=team_id,
        since=since,
        until=until,
        incidents_opened=[_incident(r) for r in opened],
        incidents_resolved=[_incident(r) for r in resolved],
        episodes=episodes,
        decisions=decisions[:MAX_ITEMS],
    )
