"""Embeddings keyed by model digest and the exact embedded text, so rebuilds re-embed only changes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from memory.store import Database, Tx

_CACHED = """
SELECT text_sha256, vector
FROM knowledge_embedding_cache
WHERE embedder_digest = :digest AND text_sha256 IN (SELECT value FROM json_each(:keys))
"""

_INSERT = """
INSERT OR IGNORE INTO knowledge_embedding_cache (embedder_digest, text_sha256, vector)
VALUES (:digest, :key, :vector)
"""


async def cached(db: Database, digest: str, keys: Sequence[str]) -> dict[str, bytes]:
    """{text sha256: float32 vector bytes} for the keys this embedder has already embedded."""
    rows = await db.fetchall(_CACHED, {"digest": digest, "keys": json.dumps(list(keys))})
    return {r[0]: bytes(r[1]) for r in rows}


async def insert(tx: Tx, rows: Iterable[tuple[str, str, bytes]]) -> None:
    """Store (embedder digest, text sha256, vector bytes) rows; existing keys are kept."""
    await tx.executemany(_INSERT, [{"digest": d, "key": k, "vector": v} for d, k, v in rows])
