"""Background jobs on APScheduler 3.x: roll captured threads up into episodes every few minutes,
give vectors to notes saved without one (embedder down, process died, a forgotten neighbour)
every minute and once at start-up, post the daily digest, and keep house daily (retention TTLs,
old event ids). Jobs missed during a restart still run once (explicit grace, coalesce).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import messages, render
from bot.slack_failures import FAILED, STEP_FAILED
from memory.episodes.statements import strip_label
from memory.episodes.summary import DONE_MARK
from memory.incidents import STATUSES

if TYPE_CHECKING:
    from bot.deps import Deps
    from bot.guarded.requests import Request
    from memory.episodes.digest import Digest, DigestIncident
    from memory.episodes.model import Episode

log = logging.getLogger("opsmemory.scheduler")
ROLLUP_EVERY = timedelta(minutes=5)
# APScheduler's default misfire_grace_time is 1 s: a job due while the bot restarted would be
# dropped silently. Allow a generous window and collapse missed runs into one (coalesce).
ROLLUP_GRACE_S = 600
DIGEST_GRACE_S = 6 * 3600
VECTORS_EVERY = timedelta(minutes=1)
VECTORS_GRACE_S = 600
EXPIRY_EVERY = timedelta(minutes=1)
EXPIRY_GRACE_S = 600
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
        """Finish indexing notes acknowledged before they were indexed: their neighbours'
        context, then their vectors; returns how many vectors were indexed."""
        linked = await self._deps.notes.apply_pending_context()
        if linked:
            log.info("note_context_applied", extra={"count": linked})
        done = await self._deps.notes.index_missing_vectors()
        if done:
            log.info("note_vectors_indexed", extra={"count": done})
        return done

    async def expire_requests(self) -> int:
        """Close guarded requests past their time to live, and show "Expired" on their
        messages, so nobody finds an approvable request that can no longer run."""
        from bot.guarded import thread

        expired = await self._deps.guarded.expire_due()
        for request in expired:
            if request.message_ts is None:  # never seen: its requester was told it would be
                await self._tell_expired_unposted(request)
                continue
            try:
                await thread.refresh(self._deps, self._client, request.id)
            except STEP_FAILED as exc:
                # e.g. its action left the catalogue, or Slack is unreachable: the rest still
                log.warning("guarded_refresh_failed", extra={"error_type": type(exc).__name__})
        if expired:
            log.info("guarded_requests_expired", extra={"count": len(expired)})
        return len(expired)

    async def _tell_expired_unposted(self, request: Request) -> None:
        text = messages.GUARDED_EXPIRED_UNPOSTED.format(id=request.id, action=request.action)
        try:
            await self._client.chat_postEphemeral(
                channel=request.channel_id, user=request.requester_user, text=text
            )
        except FAILED as exc:
            # Slack unreachable is exactly when requests go unposted: the other expiries still
            # get their messages updated.
            log.warning("guarded_expiry_notice_failed", extra={"error_type": type(exc).__name__})

    async def post_unposted_requests(self) -> int:
        """Post open guarded requests whose message Slack did not take (down, rate-limited, a
        crash after the ack): nobody can approve a request they cannot see."""
        from bot.guarded import thread

        posted = await thread.post_unposted(self._deps, self._client)
        if posted:
            log.info("guarded_requests_posted", extra={"count": posted})
        return posted

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
        parts = digest_parts(digest)
        await self._deps.pacer.wait(channel)
        await self._client.chat_postMessage(
            channel=channel,
            text=render.truncate("\n".join(parts)),
            blocks=render.fit([render.section(part) for part in parts]),
        )
        return True


DIGEST_EPISODES = 10  # threads the digest reports, the newest


def render_digest(d: Digest) -> str:
    """The digest as one text (the notification and `text` fallback of the post)."""
    return "\n".join(digest_parts(d))


def _digest_action(action: str) -> str:
    """One roll-up action or decision line for the digest, escaped; a done item keeps its
    "→ done"."""
    item, done, _ = action.partition(DONE_MARK)
    return f"{render.one_line(item, 140)} → done" if done else render.one_line(action, 160)


def _severities_said(episodes: Sequence[Episode]) -> dict[str, str]:
    """The severity each incident's threads said last ("sev1"), by incident id."""
    said: dict[str, str] = {}
    for e in episodes:  # oldest first: a later thread's word wins
        if e.incident_id is not None and (severity := e.sections.get("severity")):
            said[e.incident_id] = severity[-1]
    return said


def _severity(incident: DigestIncident, said: str | None) -> str:
    """The incident's severity as set; for one registered from its channel's name (whose
    severity nobody chose) the one its thread said, marked so, or that none is set."""
    if incident.severity_set:
        return incident.severity
    return f"{said} (said in the thread)" if said else "severity not set"


#: A thread's status line that says where the incident stands ("resolved 10:31", "mitigated").
_THREAD_STATE = re.compile(r"^\W*(resolved|mitigated)\b", re.I)


def _set_it(said: str, report: _Report) -> str:
    """A hint after the thread's word on where an incident stands when its record is behind it
    ("resolved 10:31" under an incident still open): how to set it, so the digest's head and
    the thread agree. A record ahead of the thread (resolved, the thread last said mitigated)
    needs nothing."""
    state = _THREAD_STATE.match(strip_label(said))
    word = state.group(1).lower() if state else None
    if word is None or report.recorded not in STATUSES:
        return ""
    if STATUSES.index(report.recorded) >= STATUSES.index(word):
        return ""
    return f" (still {report.recorded} here: `/incident status {word}` in its channel sets it)"


#: A decision label opening a later sentence of a message ("That fits. Decision: we keep …").
_LATER_DECISION = re.compile(r"(?:^|[.!?]\s+)(?:decision|decided)\s*:\s*", re.I)


def _decided(text: str) -> str:
    """What a decision line decides, as compared for repeats: after its last decision label,
    without any "→ done" note, in lower case with single spaces."""
    said = text.partition(DONE_MARK)[0]
    labels = list(_LATER_DECISION.finditer(said))
    if labels:
        said = said[labels[-1].end() :]
    return " ".join(said.lower().split()).rstrip(" .")


def digest_parts(d: Digest) -> list[str]:
    """The digest post, one part (one Block Kit section) per incident as a person would report
    it (root cause, decisions, status, actions), then one per thread or decision of no incident;
    every stored text is escaped for Slack (`render.one_line`)."""
    line = render.one_line
    blocks: dict[str, _Report] = {}
    loose: list[str] = []
    severities = _severities_said(d.episodes)
    for i in d.incidents_opened + d.incidents_resolved + d.incidents_active:
        state = f"resolved {i.resolved_at:%d %b %H:%M} UTC" if i.resolved_at else i.status
        head = f"*{i.id}* {line(i.title, 200)} · {_severity(i, severities.get(i.id))} · {state}"
        blocks.setdefault(
            i.id, _Report(head, marked_resolved=i.resolved_at is not None, recorded=i.status)
        )
    for e in d.episodes[-DIGEST_EPISODES:]:
        report = _Report(f"{line(e.title, 120)}")
        if e.incident_id is not None:
            report = blocks.setdefault(e.incident_id, _Report(f"*{e.incident_id}*"))
        if causes := e.sections.get("root_causes"):
            report.causes.append(f"Root cause: {line(causes[-1], 160)}")
        if status := e.sections.get("status"):
            # Under an incident nobody marked resolved, the thread's word is not its status.
            said = "Status" if report.marked_resolved or e.incident_id is None else "Thread says"
            report.status.append(f"{said}: {line(status[-1], 160)}{_set_it(status[-1], report)}")
        # Open items first; a done one says so in few words ("… → done"), however long it is.
        actions = sorted(e.sections.get("actions") or [], key=lambda a: DONE_MARK in a)
        report.actions += [f"Action: {_digest_action(a)}" for a in actions[:3]]
        if len(actions) > 3:
            more = len(actions) - 3
            report.actions.append(f"…and {more} more action{'s' if more > 1 else ''}")
        if e.incident_id is None:
            loose.append(report.render())
    seen: set[tuple[str | None, str]] = set()
    for x in d.decisions:
        text = strip_label(x.text)[:200]
        # The roll-up's line of a decision carried out ("… → done: cordoned …") and the note
        # it was made from are one decision; so are the roll-up's quote ("we keep v3.8.0 …")
        # and the whole message it was said in ("That fits. Decision: we keep v3.8.0 …"),
        # in its own incident.
        key = (x.incident_id, _decided(text))
        if key in seen:
            continue
        seen.add(key)
        shown = f"Decision: {_digest_action(text)}"
        if x.incident_id is None:
            loose.append(f"• {shown}")
        else:
            blocks.setdefault(x.incident_id, _Report(f"*{x.incident_id}*")).decisions.append(shown)
    return ["*Incident digest, last 24 hours*", *(r.render() for r in blocks.values()), *loose]


@dataclass
class _Report:
    """One incident's (or one thread's) part of the digest, its lines in the order a person
    reports them: the latest root cause, the decisions, the latest status, the actions."""

    head: str
    marked_resolved: bool = False  # `/incident status resolved` was run: the head says so
    recorded: str | None = None  # the incident's status as set with `/incident status`
    causes: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)

    def render(self) -> str:
        body = [*self.causes[-1:], *self.decisions[:5], *self.status[-1:], *self.actions]
        return "\n".join([f"• {self.head}", *(f"    {x}" for x in body)])


def build_scheduler(jobs: Jobs, *, digest_time: str, timezone: str) -> AsyncIOScheduler:
    """An AsyncIOScheduler with every job; start it inside the running loop.

    Every job coalesces missed runs into one, never overlaps itself, and has an explicit grace
    time (see ROLLUP_GRACE_S).
    """
    scheduler = AsyncIOScheduler(timezone=timezone)
    hour, minute = (int(x) for x in digest_time.split(":"))
    schedule: list[tuple[Callable[[], Awaitable[object]], BaseTrigger, int, dict[str, Any]]] = [
        (jobs.roll_up_threads, _every(ROLLUP_EVERY), ROLLUP_GRACE_S, {}),
        # Once at start-up too: catch up on notes left without vectors by a crash.
        (jobs.index_vectors, _every(VECTORS_EVERY), VECTORS_GRACE_S,
         {"next_run_time": datetime.now().astimezone()}),
        (jobs.expire_requests, _every(EXPIRY_EVERY), EXPIRY_GRACE_S, {}),
        (jobs.post_unposted_requests, _every(EXPIRY_EVERY), EXPIRY_GRACE_S, {}),
        (jobs.keep_house, _every(HOUSEKEEPING_EVERY), HOUSEKEEPING_GRACE_S, {}),
        (jobs.post_digest, CronTrigger(hour=hour, minute=minute, timezone=timezone),
         DIGEST_GRACE_S, {}),
    ]  # fmt: skip
    for func, trigger, grace_s, extra in schedule:
        scheduler.add_job(
            func,
            trigger,
            id=func.__name__,
            misfire_grace_time=grace_s,
            coalesce=True,
            max_instances=1,
            **extra,
        )
    return scheduler


def _every(period: timedelta) -> IntervalTrigger:
    return IntervalTrigger(seconds=int(period.total_seconds()))
