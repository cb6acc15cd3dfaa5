"""bot_events and bot_answers: Slack deliveries already handled (event ids, answered messages)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Tx


async def event_seen(db: Database, event_id: str) -> bool:
    """True when `event_id` was persisted (by this process or one before a restart)."""
    row = await db.scalar("SELECT 1 FROM bot_events WHERE event_id = :id", {"id": event_id})
    return bool(row)


async def insert_event(tx: Tx, event_id: str, *, at: str) -> None:
    """Remember `event_id`; a second insert of the same id changes nothing."""
    await tx.execute(
        "INSERT OR IGNORE INTO bot_events (event_id, received_at) VALUES (:id, :at)",
        {"id": event_id, "at": at},
    )


async def delete_events_before(tx: Tx, cutoff: str) -> int:
    """Forget event ids received before `cutoff`; returns how many."""
    return await tx.execute_rowcount(
        "DELETE FROM bot_events WHERE received_at < :cutoff", {"cutoff": cutoff}
    )


async def claim_answer(tx: Tx, *, team_id: str, channel_id: str, message_ts: str, at: str) -> bool:
    """True for the one caller whose row for this message was inserted."""
    changed = await tx.execute_rowcount(
        """
        INSERT OR IGNORE INTO bot_answers (team_id, channel_id, message_ts, created_at)
        VALUES (:team, :channel, :ts, :at)
        """,
        {"team": team_id, "channel": channel_id, "ts": message_ts, "at": at},
    )
    return changed == 1


async def set_answer_ts(
    tx: Tx, *, team_id: str, channel_id: str, message_ts: str, answer_ts: str
) -> None:
    """Link the answered message to the answer the bot posted."""
    await tx.execute(
        """
        UPDATE bot_answers SET answer_ts = :answer_ts
        WHERE team_id = :team AND channel_id = :channel AND message_ts = :ts
        """,
        {"answer_ts": answer_ts, "team": team_id, "channel": channel_id, "ts": message_ts},
    )
