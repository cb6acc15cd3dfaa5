"""SQL of `memory_profile_facts` (+ its FTS, via triggers): per-person facts and their history."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx

COLUMNS = """id, owner_subject_id, kind, category, text, origin, source_channel_id, source_ts,
    permalink, created_at, superseded_by, superseded_at, findings"""

_INSERT = """
INSERT INTO memory_profile_facts
    (team_id, channel_id, channel_is_private, owner_subject_id, kind, category, text,
     norm, origin, source_channel_id, source_ts, permalink, findings, created_at)
VALUES (:team, :channel, :private, :owner, :kind, :category, :text,
        :norm, :origin, :src_channel, :src_ts, :permalink, :findings, :now)
"""


async def get(tx: Tx, rowid: int) -> Row | None:
    """One fact (all COLUMNS) by row id."""
    return await tx.fetchone(
        f"SELECT {COLUMNS} FROM memory_profile_facts WHERE id = :id", {"id": rowid}
    )


async def current_facts(db: Database, subject_id: str) -> list[Row]:
    """The subject's facts not superseded (all COLUMNS), oldest first."""
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_profile_facts"
        " WHERE owner_subject_id = :s AND superseded_at IS NULL ORDER BY created_at, id",
        {"s": subject_id},
    )


async def all_facts(db: Database, subject_id: str) -> list[Row]:
    """Every fact of the subject, superseded ones included (all COLUMNS), oldest first."""
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_profile_facts"
        " WHERE owner_subject_id = :s ORDER BY created_at, id",
        {"s": subject_id},
    )


async def visible_current_facts(db: Database, requester: Audience, *, limit: int) -> list[Row]:
    """Current facts the requester may see (all COLUMNS), newest first."""
    vis, params = visibility_sql(requester, alias="f")
    return await db.fetchall(
        f"SELECT {COLUMNS} FROM memory_profile_facts AS f"
        f" WHERE {vis} AND f.superseded_at IS NULL ORDER BY f.created_at DESC LIMIT :limit",
        {**params, "limit": limit},
    )


async def current_norms(tx: Tx, subject_id: str) -> list[Row]:
    """(id, norm) of the subject's current facts: what a new fact is deduplicated against."""
    return await tx.fetchall(
        "SELECT id, norm FROM memory_profile_facts"
        " WHERE owner_subject_id = :s AND superseded_at IS NULL",
        {"s": subject_id},
    )


async def owner_team(tx: Tx, rowid: int, subject_id: str) -> str | None:
    """The team of the subject's fact with this id; None when it is not theirs or is gone."""
    row = await tx.fetchone(
        "SELECT team_id FROM memory_profile_facts WHERE id = :id AND owner_subject_id = :s",
        {"id": rowid, "s": subject_id},
    )
    return None if row is None else str(row["team_id"])


async def insert(
    tx: Tx,
    *,
    team_id: str,
    channel_id: str | None,
    channel_is_private: bool,
    owner_subject_id: str,
    kind: str,
    category: str,
    text: str,
    norm: str,
    origin: str,
    source_channel_id: str | None,
    source_ts: str | None,
    permalink: str | None,
    findings: str,
    now: str,
) -> int:
    """A new current fact; returns its row id."""
    return await tx.execute(
        _INSERT,
        {
            "team": team_id,
            "channel": channel_id,
            "private": int(channel_is_private),
            "owner": owner_subject_id,
            "kind": kind,
            "category": category,
            "text": text,
            "norm": norm,
            "origin": origin,
            "src_channel": source_channel_id,
            "src_ts": source_ts,
            "permalink": permalink,
            "findings": findings,
            "now": now,
        },
    )


async def supersede(tx: Tx, *, new: int, old: Iterable[int], now: str) -> None:
    """Mark the `old` facts as replaced by `new` at `now` (they stay as history)."""
    await tx.executemany(
        "UPDATE memory_profile_facts SET superseded_by = :new, superseded_at = :now"
        " WHERE id = :old",
        [{"new": new, "now": now, "old": o} for o in old],
    )


async def delete(tx: Tx, rowid: int) -> None:
    """Delete one fact; facts it had superseded point at nothing afterwards."""
    await tx.execute(
        "UPDATE memory_profile_facts SET superseded_by = NULL WHERE superseded_by = :id",
        {"id": rowid},
    )
    await tx.execute("DELETE FROM memory_profile_facts WHERE id = :id", {"id": rowid})
