"""Background jobs on APScheduler 3.x: roll captured threads up into episodes every few minutes,
give vectors to notes saved without one (embedder down, process died, a forgotten neighbour)
every minute and once at start-up, post the daily digest, and keep house daily (retention TTLs,
old event ids). Jobs missed during a restart still run once (explicit grace, coalesce).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from slack_sdk.web.async_client import AsyncWebClient

from bot import blocks

if TYPE_CHECKING:
    from bot.app import Deps
    from memory._digest import Digest

log = logging.getLogger("opsmemory.scheduler")
ROLLUP_EVERY = timedelta(minutes=5)
# APScheduler's default misfire_grace_time is 1 s: a job due while the bot restarted would be
# dropped silently. Allow a generous window and collapse missed runs into one (coalesce).
ROLLUP_GRACE_S = 600
DIGEST_GRACE_S = 6 * 3600
VECTORS_EVERY = timedelta(minutes=1)
VECTORS_GRACE_S = 600
HOUSEKEEPING_EVERY = timedelta(hours=24)
HOUSEKEEPING_GRACE_S = 24 * 3600


class Jobs:
    """The scheduled jobs; callable directly, so tests drive them with a controlled clock."""

    def __init__(self, deps: Deps, client: AsyncWebClient, *, team_id: str) -> None:
        self._deps, self._client, self._team = deps, client, team_id
        self._last_rollup: datetime | None = None

    async def roll_up_threads(self) -> int:
        """Roll up every thread that changed since the last run; returns how many."""
        now = self._deps.clock()
        since = self._last_rollup or now - timedelta(days=1)
        refs = await self._deps.threads.pending_threads(since)
        for ref in refs:
            await self._deps.episodes.roll_up(ref.team_id, ref.channel_id, ref.thread_ts)
        self._last_rollup = now
        log.info("threads_rolled_up", extra={"count": len(refs)})
        return len(refs)

    async def index_vectors(self) -> int:
        """Embed notes that have no vector yet; returns how many were indexed."""
        done = await self._deps.notes.index_missing_vectors()
        if done:
            log.info("note_vectors_indexed", extra={"count": done})
        return done

    async def keep_house(self) -> dict[str, int]:
        """Apply the per-scope retention TTLs and forget event ids older than Slack's retries."""
        settings = self._deps.settings
        receipt = await self._deps.controls.apply_retention(
            {
                "user": settings.retention_days_user,
                "channel": settings.retention_days_channel,
                "workspace": settings.retention_days_workspace,
            }
        )
        pruned = await self._deps.dedupe.prune()
        counts = {**receipt.counts, "bot_events": pruned}
        log.info("housekeeping_done", extra={"deleted": sum(counts.values())})
        return counts

    async def post_digest(self) -> bool:
        """Post yesterday's digest to OPSMEMORY_DIGEST_CHANNEL; False when empty or unset."""
        channel = self._deps.settings.digest_channel
        if not channel:
            return False
        now = self._deps.clock()
        digest = await self._deps.episodes.digest(self._team, now - timedelta(days=1), until=now)
        if digest.empty:
            return False
        text = render_digest(digest)
        await self._deps.pacer.wait(channel)
        await self._client.chat_postMessage(
            channel=channel, text=blocks.truncate(text), blocks=[blocks.section(text)]
        )
        return True


def render_digest(d: Digest) -> str:
    lines = ["*Incident digest, last 24 hours*"]
    lines += [f"• Opened {i.id} ({i.severity}): {i.title}" for i in d.incidents_opened]
    lines += [f"• Resolved {i.id}: {i.title}" for i in d.incidents_resolved]
    lines += [f"• Decision: {x.text[:200]}" for x in d.decisions[:10]]
    lines += [f"• Thread: {e.title[:120]}" for e in d.episodes[:10]]
    return "\n".join(lines)


def build_scheduler(jobs: Jobs, *, digest_time: str, timezone: str) -> AsyncIOScheduler:
    """An AsyncIOScheduler with every job; start it inside the running loop."""
    scheduler = AsyncIOScheduler(timezone=timezone)
    scheduler.add_job(
        jobs.roll_up_threads,
        IntervalTrigger(seconds=ROLLUP_EVERY.seconds),
        id="roll_up_threads",
        misfire_grace_time=ROLLUP_GRACE_S,
        coalesce=True,
        max_instances=1,
    )
    scheduler.add_job(
        jobs.index_vectors,
        IntervalTrigger(seconds=int(VECTORS_EVERY.total_seconds())),
        id="index_vectors",
        next_run_time=datetime.now().astimezone(),  # once at start-up: catch up after a crash
        misfire_grace_time=VECTORS_GRACE_S,
        coalesce=True,
        max_instances=1,
    )
    scheduler.add_job(
        jobs.keep_house,
        IntervalTrigger(seconds=int(HOUSEKEEPING_EVERY.total_seconds())),
        id="keep_house",
        misfire_grace_time=HOUSEKEEPING_GRACE_S,
        coalesce=True,
        max_instances=1,
    )
    hour, minute = (int(x) for x in digest_time.split(":"))
    scheduler.add_job(
        jobs.post_digest,
        CronTrigger(hour=hour, minute=minute, timezone=timezone),
        id="post_digest",
        misfire_grace_time=DIGEST_GRACE_S,
        coalesce=True,
        max_instances=1,
    )
    return scheduler
