"""The daily digest as plain data: incidents opened and resolved, episodes, decisions.

The digest is posted to a shared channel, so it holds only what anyone in the team may see:
every read applies the visibility filter for `Requester.public_audience`, which admits
public-channel and workspace rows and never private channels or personal (user-scope) memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import iso, parse_iso
from memory.episodes.model import Episode, row_to_episode
from memory.incidents import SYSTEM_SUBJECT
from memory.scopes import Requester
from memory.store import digest as store

if TYPE_CHECKING:
    from memory.store.db import Database, Row

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
    # False for an incident registered from its channel's name: its severity is the default
    # nobody chose, so the digest shows what the thread said instead.
    severity_set: bool = True


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
    # Opened before the window, with threads or decisions in it: their head line names them.
    incidents_active: list[DigestIncident] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.incidents_opened or self.incidents_resolved or self.episodes)


def _incident(row: Row) -> DigestIncident:
    return DigestIncident(
        id=row["id"],
        title=row["title"],
        severity=row["severity"],
        status=row["status"],
        channel_id=row["channel_id"],
        opened_at=parse_iso(row["opened_at"]),
        resolved_at=None if row["resolved_at"] is None else parse_iso(row["resolved_at"]),
        severity_set=row["owner_subject_id"] != SYSTEM_SUBJECT,
    )


async def build_digest(db: Database, team_id: str, *, since: datetime, until: datetime) -> Digest:
    """Everything public that happened in the team between `since` and `until`."""
    audience = Requester.public_audience(team_id)
    window = store.Window(since=iso(since), until=iso(until), cap=MAX_ITEMS)
    opened = await store.incidents(db, audience, window, column="opened_at")
    resolved = await store.incidents(db, audience, window, column="resolved_at")
    # The newest threads when the day had more than the cap, shown oldest first.
    episodes = [row_to_episode(r) for r in reversed(await store.episodes(db, audience, window))]
    decisions = [
        DigestDecision(line, e.channel_id, e.incident_id, "episode")
        for e in episodes
        for line in e.sections.get("decisions", [])
    ]
    decisions += [
        DigestDecision(r["text"], r["channel_id"], r["incident_id"], "note", r["permalink"])
        for r in await store.note_decisions(db, audience, window)
    ]
    known = {r["id"] for r in [*opened, *resolved]}
    others = {e.incident_id for e in episodes if e.incident_id}
    others |= {x.incident_id for x in decisions if x.incident_id}
    others -= known
    # Only in a channel the digest already shows a thread or decision of, whatever the store
    # returned: a head names what is read there.
    shown: set[tuple[str | None, str | None]] = {(e.incident_id, e.channel_id) for e in episodes}
    shown |= {(x.incident_id, x.channel_id) for x in decisions}
    active = [
        r
        for r in await store.incidents_named(db, audience, window, sorted(others))
        if (r["id"], r["channel_id"]) in shown
    ]
    return Digest(
        team_id=team_id,
        since=since,
        until=until,
        incidents_opened=[_incident(r) for r in opened],
        incidents_resolved=[_incident(r) for r in resolved],
        episodes=episodes,
        decisions=decisions[:MAX_ITEMS],
        incidents_active=[_incident(r) for r in active],
    )
