"""Deletion primitives for user controls: each removes rows with their FTS entries and vectors.

All run inside the caller's transaction and add to a `Counts` tally. FTS counts are measured
(rows of each index's `_docsize` table before and after), not assumed from the triggers.
Notes belong to memory-core (`memory_notes`, `memory_note_vectors`, note vec0 tables); they are
deleted here through its `delete_note_vectors`, and a forgotten note's text is also scrubbed from
the neighbour `context` other notes keep for search. The notes just after a forgotten one lose
their vectors too (a vector mixes in the previous note's embedding, and whether it does depends on
who wrote the notes before it); the back-fill job re-embeds them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memory.notes.exchange import WINDOW as EXCHANGE_WINDOW
from memory.store import item_vectors as vectors
from memory.store.note_vectors import delete_note_vectors
from memory.threads import touch_thread

if TYPE_CHECKING:
    from memory.store.db import Tx

Counts = Counter[str]
FTS_OF = {
    "memory_notes": "memory_notes_fts",
    "memory_profile_facts": "memory_profile_facts_fts",
    "memory_thread_messages": "memory_thread_messages_fts",
    "memory_episodes": "memory_episodes_fts",
}


async def _fts_docs(tx: Tx, table: str) -> int:
    row = await tx.fetchone(f"SELECT count(*) FROM {FTS_OF[table]}_docsize")
    return int(row[0]) if row is not None else 0


async def _delete_rows(tx: Tx, table: str, ids: Sequence[int], counts: Counts) -> None:
    """Delete rows by id and record rows and FTS entries removed."""
    if not ids:
        return
    before = await _fts_docs(tx, table)
    counts[table] += await tx.execute_rowcount(
        f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),)
    )
    counts[FTS_OF[table]] += before - await _fts_docs(tx, table)


async def delete_notes(tx: Tx, ids: Sequence[int], counts: Counts) -> None:
    """Notes, their vectors, and their text inside other notes' neighbour context."""
    if not ids:
        return
    gone = json.dumps(list(ids))
    rows = await tx.fetchall(
        "SELECT partition_key, channel_id, text FROM memory_notes"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (gone,),
    )
    # The next WINDOW notes: their vectors mixed in a forgotten note or were joined because of it.
    followers = await tx.fetchall(
        "SELECT DISTINCT f.id FROM memory_notes n JOIN memory_notes f ON f.id IN"
        " (SELECT g.id FROM memory_notes g WHERE g.partition_key = n.partition_key"
        "  AND g.channel_id IS n.channel_id AND g.id > n.id"
        "  AND g.id NOT IN (SELECT value FROM json_each(:gone)) ORDER BY g.id LIMIT :window)"
        " WHERE n.id IN (SELECT value FROM json_each(:gone))",
        {"gone": gone, "window": EXCHANGE_WINDOW},
    )
    counts["note_vectors"] += await delete_note_vectors(tx, ids)
    stale = [int(r["id"]) for r in followers if r["id"] is not None]
    if stale:
        counts["neighbour_vectors_to_redo"] += await delete_note_vectors(tx, stale)
    await _delete_rows(tx, "memory_notes", ids, counts)
    for row in rows:
        neighbours = await tx.fetchall(
            "SELECT id, context FROM memory_notes WHERE partition_key = :part"
            " AND channel_id IS :channel AND instr(context, :text) > 0",
            {"part": row["partition_key"], "channel": row["channel_id"], "text": row["text"]},
        )
        for n in neighbours:
            await tx.execute(
                "UPDATE memory_notes SET context = ? WHERE id = ?",
                (_without_block(n["context"], row["text"]), n["id"]),
            )
            counts["note_contexts_scrubbed"] += 1


def _without_block(context: str, text: str) -> str:
    """`context` minus every whole-line occurrence of `text` (context joins texts with \\n)."""
    padded = f"\n{context}\n"
    block = f"\n{text}\n"
    while block in padded:
        padded = padded.replace(block, "\n")
    return padded.strip("\n")


async def delete_profile_facts(tx: Tx, ids: Sequence[int], counts: Counts) -> None:
    if not ids:
        return
    await tx.execute(
        "UPDATE memory_profile_facts SET superseded_by = NULL"
        " WHERE superseded_by IN (SELECT value FROM json_each(?))",
        (json.dumps(list(ids)),),
    )
    counts["profile_vectors"] += await vectors.delete_items(tx, "profile", ids)
    await _delete_rows(tx, "memory_profile_facts", ids, counts)


async def delete_episodes(tx: Tx, ids: Sequence[int], counts: Counts, now: str) -> None:
    """Episodes (participants cascade) and vectors; their threads are marked for a re-roll."""
    if not ids:
        return
    threads = await tx.fetchall(
        "SELECT team_id, channel_id, thread_ts FROM memory_episodes"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(ids)),),
    )
    counts["episode_vectors"] += await vectors.delete_items(tx, "episode", ids)
    await _delete_rows(tx, "memory_episodes", ids, counts)
    for t in threads:
        await touch_thread(tx, t["team_id"], t["channel_id"], t["thread_ts"], now)


async def delete_messages(tx: Tx, ids: Sequence[int], counts: Counts, now: str) -> None:
    """Captured messages; every episode built from their threads goes too (it may quote them)."""
    if not ids:
        return
    episode_ids = await tx.fetchall(
        "SELECT DISTINCT e.id FROM memory_episodes e JOIN memory_thread_messages m"
        " ON m.team_id = e.team_id AND m.channel_id = e.channel_id AND m.thread_ts = e.thread_ts"
        " WHERE m.id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(ids)),),
    )
    await _delete_rows(tx, "memory_thread_messages", ids, counts)
    await delete_episodes(tx, [int(r[0]) for r in episode_ids], counts, now)


async def ids_where(tx: Tx, table: str, where: str, params: Mapping[str, object]) -> list[int]:
    """Row ids of `table` matching a WHERE clause built from constants by the caller."""
    rows = await tx.fetchall(f"SELECT id FROM {table} WHERE {where}", params)
    return [int(r[0]) for r in rows]
