"""The Episode value: one rolled-up thread as read back from the store, and its public id."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import parse_iso

if TYPE_CHECKING:
    from memory.store.db import Row

ID_PREFIX = "episode:"


@dataclass(frozen=True)
class Episode:
    id: str
    team_id: str
    channel_id: str
    channel_is_private: bool
    thread_ts: str
    incident_id: str | None
    owner_subject_id: str
    title: str
    summary: str
    llm_summary: str | None
    sections: dict[str, list[str]]
    participants: tuple[str, ...]
    message_count: int
    started_at: datetime
    ended_at: datetime
    updated_at: datetime


def episode_id(rowid: int) -> str:
    return f"{ID_PREFIX}{rowid}"


def row_to_episode(row: Row) -> Episode:
    """An Episode from a row holding `store.episodes.COLUMNS`."""
    return Episode(
        id=episode_id(row["id"]),
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        channel_is_private=bool(row["channel_is_private"]),
        thread_ts=row["thread_ts"],
        incident_id=row["incident_id"],
        owner_subject_id=row["owner_subject_id"],
        title=row["title"],
        summary=row["summary"],
        llm_summary=row["llm_summary"],
        sections=json.loads(row["sections"]),
        participants=tuple(json.loads(row["participants"])),
        message_count=int(row["message_count"]),
        started_at=parse_iso(row["started_at"]),
        ended_at=parse_iso(row["ended_at"]),
        updated_at=parse_iso(row["updated_at"]),
    )
