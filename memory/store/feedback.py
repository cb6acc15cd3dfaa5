"""bot_feedback: one verdict per person per answer (remembered, not helpful)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Tx


async def insert_feedback(
    tx: Tx,
    *,
    team_id: str,
    channel_id: str,
    answer_ts: str,
    subject_id: str,
    verdict: str,
    at: str,
) -> None:
    """Store one verdict; the same verdict again changes nothing."""
    await tx.execute(
        """
        INSERT OR IGNORE INTO bot_feedback
            (team_id, channel_id, answer_ts, subject_id, verdict, created_at)
        VALUES (:team, :channel, :answer_ts, :subject, :verdict, :at)
        """,
        {
            "team": team_id,
            "channel": channel_id,
            "answer_ts": answer_ts,
            "subject": subject_id,
            "verdict": verdict,
            "at": at,
        },
    )


async def count_feedback(db: Database, verdict: str) -> int:
    value = await db.scalar(
        "SELECT count(*) FROM bot_feedback WHERE verdict = :verdict", {"verdict": verdict}
    )
    return int(value or 0)
