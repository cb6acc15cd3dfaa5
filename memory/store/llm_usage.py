"""bot_thread_tokens: LLM tokens and calls per Slack thread (the per-thread cap reads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store.db import Database, Tx


async def thread_tokens(db: Database, *, team_id: str, channel_id: str, thread_ts: str) -> int:
    """Prompt plus completion tokens used in one thread so far (0 when none)."""
    value = await db.scalar(
        """
        SELECT prompt_tokens + completion_tokens FROM bot_thread_tokens
        WHERE team_id = :team AND channel_id = :channel AND thread_ts = :thread
        """,
        {"team": team_id, "channel": channel_id, "thread": thread_ts},
    )
    return int(value or 0)


async def add_thread_tokens(
    tx: Tx,
    *,
    team_id: str,
    channel_id: str,
    thread_ts: str,
    prompt_tokens: int,
    completion_tokens: int,
    at: str,
) -> None:
    """Add one model call's tokens to the thread's totals."""
    await tx.execute(
        """
        INSERT INTO bot_thread_tokens
            (team_id, channel_id, thread_ts, prompt_tokens, completion_tokens, calls, updated_at)
        VALUES (:team, :channel, :thread, :p, :c, 1, :now)
        ON CONFLICT (team_id, channel_id, thread_ts) DO UPDATE SET
            prompt_tokens = prompt_tokens + :p,
            completion_tokens = completion_tokens + :c,
            calls = calls + 1, updated_at = :now
        """,
        {
            "team": team_id,
            "channel": channel_id,
            "thread": thread_ts,
            "p": prompt_tokens,
            "c": completion_tokens,
            "now": at,
        },
    )
