"""The two FTS5 keyword indexes (whole runbook and section): rows, BM25F reads, deletion.

Column weights are the caller's (title, headings, body); a row's rowid is its runbook or chunk id.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.store import Database, Row, Tx
from memory.text import fts_match

_INSERT_DOC = """
INSERT INTO knowledge_doc_fts (rowid, title, headings, body)
VALUES (:rowid, :title, :headings, :body)
"""

_INSERT_CHUNK = """
INSERT INTO knowledge_chunk_fts (rowid, title, headings, body)
VALUES (:rowid, :title, :headings, :body)
"""

_DOC_MATCHES = """
SELECT r.id, r.slug, r.title, -bm25(knowledge_doc_fts, :w_title, :w_headings, :w_body) AS s
FROM knowledge_doc_fts
JOIN knowledge_runbooks r ON r.id = knowledge_doc_fts.rowid
WHERE knowledge_doc_fts MATCH :match
ORDER BY s DESC
LIMIT :limit
"""

_CHUNK_MATCHES = """
SELECT c.id, r.id, r.slug, r.title,
       -bm25(knowledge_chunk_fts, :w_title, :w_headings, :w_body) AS s
FROM knowledge_chunk_fts
JOIN knowledge_chunks c ON c.id = knowledge_chunk_fts.rowid
JOIN knowledge_runbooks r ON r.id = c.runbook_id
WHERE knowledge_chunk_fts MATCH :match
ORDER BY s DESC
LIMIT :limit
"""

_DELETE_OTHER_CHUNKS = """
DELETE FROM knowledge_chunk_fts
WHERE rowid IN (SELECT id FROM knowledge_chunks WHERE generation_id != :keep)
"""

_DELETE_OTHER_DOCS = """
DELETE FROM knowledge_doc_fts
WHERE rowid IN (SELECT id FROM knowledge_runbooks WHERE generation_id != :keep)
"""

Fields = tuple[str, str, str]  # (title, headings, body) as the index sees them
Weights = tuple[float, float, float]  # BM25F weights of (title, headings, body)


async def insert_doc(tx: Tx, runbook_id: int, fields: Fields) -> None:
    await tx.execute(_INSERT_DOC, _row(runbook_id, fields))


async def insert_chunk(tx: Tx, chunk_id: int, fields: Fields) -> None:
    await tx.execute(_INSERT_CHUNK, _row(chunk_id, fields))


async def doc_matches(
    db: Database, terms: Sequence[str], *, weights: Weights, limit: int
) -> list[Row]:
    """(runbook id, slug, title, BM25F score) best first, for runbooks matching any term."""
    return await db.fetchall(_DOC_MATCHES, _query(terms, weights, limit))


async def chunk_matches(
    db: Database, terms: Sequence[str], *, weights: Weights, limit: int
) -> list[Row]:
    """(chunk id, runbook id, slug, title, BM25F score) best first, for sections matching any
    term."""
    return await db.fetchall(_CHUNK_MATCHES, _query(terms, weights, limit))


async def delete_other_generations(tx: Tx, keep: int) -> None:
    """Keyword rows of every generation but `keep` (run before their chunk rows go)."""
    await tx.execute(_DELETE_OTHER_CHUNKS, {"keep": keep})
    await tx.execute(_DELETE_OTHER_DOCS, {"keep": keep})


def _row(rowid: int, fields: Fields) -> dict[str, object]:
    title, headings, body = fields
    return {"rowid": rowid, "title": title, "headings": headings, "body": body}


def _query(terms: Sequence[str], weights: Weights, limit: int) -> dict[str, object]:
    w_title, w_headings, w_body = weights
    return {
        "w_title": w_title,
        "w_headings": w_headings,
        "w_body": w_body,
        "match": fts_match(terms),
        "limit": limit,
    }
