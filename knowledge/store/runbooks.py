"""Runbook and chunk rows of a generation (chunk ids double as rowids in the FTS and vec tables)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from memory.store import Database, Row, Tx

_INSERT_RUNBOOK = """
INSERT INTO knowledge_runbooks (generation_id, slug, title, relpath, sha256)
VALUES (:generation_id, :slug, :title, :relpath, :sha256)
"""

_INSERT_CHUNK = """
INSERT INTO knowledge_chunks (
    generation_id, runbook_id, slug, ordinal, heading_path, anchor, content_hash, text
) VALUES (
    :generation_id, :runbook_id, :slug, :ordinal, :heading_path, :anchor, :content_hash, :text
)
"""

_COUNT_CHUNKS = """
SELECT count(*)
FROM knowledge_chunks
WHERE generation_id = :generation_id
"""

_CHUNKS_OF = """
SELECT id, runbook_id, heading_path, anchor, content_hash, text, ordinal
FROM knowledge_chunks
WHERE runbook_id IN (SELECT value FROM json_each(:ids))
ORDER BY runbook_id, ordinal
"""


async def insert_runbook(
    tx: Tx, generation_id: int, *, slug: str, title: str, relpath: str, sha256: str
) -> int:
    """One runbook of the generation; returns its id."""
    return await tx.execute(
        _INSERT_RUNBOOK,
        {
            "generation_id": generation_id,
            "slug": slug,
            "title": title,
            "relpath": relpath,
            "sha256": sha256,
        },
    )


async def insert_chunk(
    tx: Tx,
    generation_id: int,
    runbook_id: int,
    *,
    slug: str,
    ordinal: int,
    heading_path: Sequence[str],
    anchor: str,
    content_hash: str,
    text: str,
) -> int:
    """One section of a runbook; returns its id."""
    return await tx.execute(
        _INSERT_CHUNK,
        {
            "generation_id": generation_id,
            "runbook_id": runbook_id,
            "slug": slug,
            "ordinal": ordinal,
            "heading_path": json.dumps(heading_path),
            "anchor": anchor,
            "content_hash": content_hash,
            "text": text,
        },
    )


async def count_chunks(tx: Tx, generation_id: int) -> int:
    row = await tx.fetchone(_COUNT_CHUNKS, {"generation_id": generation_id})
    return int(row[0]) if row is not None else 0


async def chunks_of(db: Database, runbook_ids: Sequence[int]) -> dict[int, list[Row]]:
    """{runbook id: its chunks in document order, each (id, runbook_id, heading_path JSON,
    anchor, content_hash, text, ordinal)}."""
    rows = await db.fetchall(_CHUNKS_OF, {"ids": json.dumps(list(runbook_ids))})
    out: dict[int, list[Row]] = {}
    for r in rows:
        out.setdefault(r[1], []).append(r)
    return out
