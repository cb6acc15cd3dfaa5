"""The daily digest as plain data: incidents opened and resolved, episodes, decisions.

The digest is posted to a shared channel, so it holds only what anyone in the team may see:
public-channel incidents, episodes and decisions, plus workspace notes. Private channels and
personal (user-scope) memory never appear in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import iso, parse_iso

if TYPE_CHECKING:
    from memory.db import Database
    from memory.episodes import Episode

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


_INCIDENTS = """
SELECT id, title, severity, status, channel_id, opened_at, resolved_at FROM memory_incidents
WHERE team_id = :team AND channel_is_private = 0 AND {column} >= :since AND {column} < :until
ORDER BY {column} LIMIT :cap
"""

_NOTE_DECISIONS = """
SELECT text, channel_id, incident_id, permalink FROM memory_notes AS n
WHERE n.team_id = :team AND n.kind = 'decision' AND n.created_at >= :since
  AND n.created_at < :until
  AND (n.scope = 'workspace' OR (n.scope = 'channel' AND n.channel_is_private = 0))
ORDER BY n.created_at LIMIT :cap
"""


def _incident(row) -> DigestIncident:  # row: memory.db.Row
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
    from memory.episodes import COLUMNS, row_to_episode  # episodes imports this module

    window = {"team": team_id, "since": iso(since), "until": iso(until), "cap": MAX_ITEMS}
    opened = await db.fetchall(_INCIDENTS.format(column="opened_at"), window)
    resolved = await db.fetchall(_INCIDENTS.format(column="resolved_at"), window)
    episode_rows = await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_episodes AS e WHERE e.team_id = :team"
        " AND e.channel_is_private = 0 AND e.updated_at >= :since AND e.updated_at < :until"
        " ORDER BY e.ended_at LIMIT :cap",
        window,
    )
    episodes = [row_to_episode(r) for r in episode_rows]
    decisions = [
        DigestDecision(line, e.channel_id, e.incident_id, "episode")
        for e in episodes
        for line in e.sections.get("decisions", [])
    ]
    decisions += [
        DigestDecision(r["text"], r["channel_id"], r["incident_id"], "note", r["permalink"])
        for r in await db.fetchall(_NOTE_DECISIONS, window)
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
