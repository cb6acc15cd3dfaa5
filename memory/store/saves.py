"""bot_saved_sources: which Slack messages were saved to memory (claimed, then linked to a note)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Tx


@dataclass(frozen=True)
class SourceKey:
    """One saved source: a message (team, channel, ts) saved as one kind."""

    team_id: str
    channel_id: str
    source_ts: str
    kind: str

    def params(self) -> dict[str, str]:
        return {"t": self.team_id, "c": self.channel_id, "s": self.source_ts, "k": self.kind}


_WHERE = "team_id = :t AND channel_id = :c AND source_ts = :s AND kind = :k"


async def is_claimed(db: Database, key: SourceKey, *, fresh_since: str) -> bool:
    """True when the message is linked to a note, or claimed at or after `fresh_since`."""
    row = await db.scalar(
        f"""
        SELECT 1 FROM bot_saved_sources WHERE {_WHERE}
        AND (note_id IS NOT NULL OR claimed_at >= :stale)
        """,
        {**key.params(), "stale": fresh_since},
    )
    return bool(row)


async def link_stale_claim(tx: Tx, key: SourceKey, *, claimed_before: str) -> None:
    """Link an unlinked claim made before `claimed_before` to the newest note from the message."""
    await tx.execute(
        f"""
        UPDATE bot_saved_sources SET note_id = (
            SELECT max(n.id) FROM memory_notes n
            WHERE n.team_id = :t AND n.channel_id = :c AND n.source_ts = :s AND n.kind = :k
        )
        WHERE {_WHERE} AND note_id IS NULL AND claimed_at < :stale
        """,
        {**key.params(), "stale": claimed_before},
    )


async def delete_stale_claim(tx: Tx, key: SourceKey, *, claimed_before: str) -> None:
    """Drop an unlinked claim made before `claimed_before`."""
    await tx.execute(
        f"""
        DELETE FROM bot_saved_sources WHERE {_WHERE}
        AND note_id IS NULL AND claimed_at < :stale
        """,
        {**key.params(), "stale": claimed_before},
    )


async def insert_claim(tx: Tx, key: SourceKey, *, at: str) -> bool:
    """True when this call claimed the message (no claim existed)."""
    changed = await tx.execute_rowcount(
        """
        INSERT OR IGNORE INTO bot_saved_sources (team_id, channel_id, source_ts, kind, claimed_at)
        VALUES (:t, :c, :s, :k, :now)
        """,
        {**key.params(), "now": at},
    )
    return changed == 1


async def delete_claim(tx: Tx, key: SourceKey) -> None:
    await tx.execute(f"DELETE FROM bot_saved_sources WHERE {_WHERE}", key.params())


async def link_note(tx: Tx, key: SourceKey, note_id: int) -> None:
    await tx.execute(
        f"UPDATE bot_saved_sources SET note_id = :n WHERE {_WHERE}",
        {**key.params(), "n": note_id},
    )
