"""Deletion steps of user controls: each removes rows with their FTS entries and vectors.

All run inside the caller's transaction and add to a `Counts` tally (rows per table). A forgotten
note's text is also scrubbed from the neighbour `context` other notes keep for search. The notes
just after a forgotten one lose their vectors too (a vector mixes in the previous note's
embedding, and whether it does depends on who wrote the notes before it); the back-fill job
re-embeds them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory.notes.exchange import WINDOW as EXCHANGE_WINDOW
from memory.store import forget as store
from memory.store import vectors
from memory.store.threads import touch_thread

if TYPE_CHECKING:
    from memory.store.db import Tx

Counts = Counter[str]


async def _delete_rows(tx: Tx, table: str, ids: Sequence[int], counts: Counts) -> None:
    """Delete rows by id and record rows and FTS entries removed."""
    if not ids:
        return
    counts.update(await store.delete_rows(tx, table, ids))


async def delete_notes(tx: Tx, ids: Sequence[int], counts: Counts) -> None:
    """Notes, their vectors, and their text inside other notes' neighbour context."""
    if not ids:
        return
    rows = await store.note_rows(tx, ids)
    # The next WINDOW notes: their vectors mixed in a forgotten note or were joined because of it.
    stale = await store.note_followers(tx, ids, window=EXCHANGE_WINDOW)
    counts["note_vectors"] += await vectors.delete_items(tx, "note", ids)
    if stale:
        counts["neighbour_vectors_to_redo"] += await vectors.delete_items(tx, "note", stale)
    await _delete_rows(tx, store.NOTES, ids, counts)
    for row in rows:
        neighbours = await store.notes_quoting(
            tx, partition_key=row["partition_key"], channel_id=row["channel_id"], text=row["text"]
        )
        for n in neighbours:
            await store.set_note_context(tx, n["id"], _without_block(n["context"], row["text"]))
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
    await store.unlink_superseded(tx, ids)
    counts["profile_vectors"] += await vectors.delete_items(tx, "profile", ids)
    await _delete_rows(tx, store.PROFILE_FACTS, ids, counts)


async def delete_episodes(tx: Tx, ids: Sequence[int], counts: Counts, now: str) -> None:
    """Episodes (participants cascade) and vectors; their threads are marked for a re-roll."""
    if not ids:
        return
    threads = await store.episode_threads(tx, ids)
    counts["episode_vectors"] += await vectors.delete_items(tx, "episode", ids)
    await _delete_rows(tx, store.EPISODES, ids, counts)
    for t in threads:
        await touch_thread(tx, t["team_id"], t["channel_id"], t["thread_ts"], now)


async def delete_messages(tx: Tx, ids: Sequence[int], counts: Counts, now: str) -> None:
    """Captured messages, the notes they became (recall quotes those), and every episode built
    from their threads (it may quote them)."""
    if not ids:
        return
    await delete_notes(tx, await store.notes_of_messages(tx, ids), counts)
    episode_ids = await store.episodes_of_messages(tx, ids)
    await _delete_rows(tx, store.MESSAGES, ids, counts)
    await delete_episodes(tx, episode_ids, counts, now)
