"""SQL of `memory_notes_fts`: BM25 keyword search over notes and the MATCH clauses it takes.

The index holds each note's text, author name and neighbour context, plus the hidden `fts_keys`
column (partition and incident tokens, written by triggers) that filters and never scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database

Weights = tuple[float, float, float]  # text, author, context

# fts_keys (partition and incident tokens) filters, it never scores: weight 0.
_BM25 = "bm25(memory_notes_fts, :w_text, :w_author, :w_context, 0.0)"
_CONTENT = "{text author_name context}"

_TOP = f"""
WITH hits AS (
    SELECT rowid AS id, {_BM25} AS score FROM memory_notes_fts
    WHERE memory_notes_fts MATCH :match ORDER BY score LIMIT :scan
)
SELECT hits.id, ({{vis}} {{incident}}) AS visible
FROM hits JOIN memory_notes n ON n.id = hits.id
ORDER BY hits.score
"""

_VISIBLE = f"""
SELECT n.id FROM memory_notes_fts f JOIN memory_notes n ON n.id = f.rowid
WHERE memory_notes_fts MATCH :match AND {{vis}} {{incident}}
ORDER BY {_BM25} LIMIT :limit
"""


def content_match(expression: str, *, only: str | None = None) -> str:
    """MATCH over the searchable columns (text, author, context), optionally AND an `fts_keys`
    filter from `incident_filter` / `partitions_filter`."""
    return f"{_CONTENT} : ({expression})" + (f" AND {only}" if only else "")


def _phrase(key: str) -> str:
    """A key as an FTS5 phrase of the tokens unicode61 makes of it ("c:C01" -> "c c01")."""
    return '"' + " ".join(re.findall(r"[A-Za-z0-9]+", key)) + '"'


def incident_filter(incident_id: str) -> str:
    """`fts_keys` clause matching only notes of one incident."""
    return f"fts_keys : {_phrase('incident ' + incident_id)}"


def partitions_filter(partitions: Sequence[str]) -> str:
    """`fts_keys` clause matching only notes of these partitions."""
    return "fts_keys : (" + " OR ".join(_phrase(k) for k in partitions) + ")"


async def newest_id(db: Database) -> int:
    return int(await db.scalar("SELECT max(id) FROM memory_notes") or 0)


async def match_counts(db: Database, matches: Sequence[str], *, above_id: int) -> list[int]:
    """How many notes with an id above `above_id` each MATCH expression finds, in one read."""
    counts = ", ".join(
        f"(SELECT count(*) FROM memory_notes_fts WHERE memory_notes_fts MATCH :t{i}"
        " AND rowid > :low)"
        for i in range(len(matches))
    )
    row = await db.fetchone(
        f"SELECT {counts}", {"low": above_id, **{f"t{i}": m for i, m in enumerate(matches)}}
    )
    return [int(row[i]) if row is not None else 0 for i in range(len(matches))]


def _args(
    audience: Audience, match: str, incident_id: str | None, weights: Weights
) -> tuple[str, str, dict[str, object]]:
    vis, params = visibility_sql(audience, alias="n")
    incident = "AND n.incident_id = :incident" if incident_id else ""
    w_text, w_author, w_context = weights
    args = {
        **params,
        "match": match,
        "incident": incident_id,
        "w_text": w_text,
        "w_author": w_author,
        "w_context": w_context,
    }
    return vis, incident, args


async def top_matches(
    db: Database,
    audience: Audience,
    match: str,
    *,
    scan: int,
    incident_id: str | None,
    weights: Weights,
) -> list[tuple[int, bool]]:
    """The `scan` best notes by BM25, whoever may see them, each with whether the audience may
    (and it belongs to `incident_id`, when given); best first."""
    vis, incident, args = _args(audience, match, incident_id, weights)
    rows = await db.fetchall(_TOP.format(vis=vis, incident=incident), {**args, "scan": scan})
    return [(int(r[0]), bool(r[1])) for r in rows]


async def visible_matches(
    db: Database,
    audience: Audience,
    match: str,
    *,
    limit: int,
    incident_id: str | None,
    weights: Weights,
) -> list[int]:
    """The `limit` best visible notes by BM25, visibility applied before ranking (exact, slower
    on big stores than `top_matches`)."""
    vis, incident, args = _args(audience, match, incident_id, weights)
    rows = await db.fetchall(_VISIBLE.format(vis=vis, incident=incident), {**args, "limit": limit})
    return [int(r[0]) for r in rows]
