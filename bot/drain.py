"""Work in flight: Slack requests being dispatched, listeners still running after their ack, and
scheduled jobs, so a stop can refuse new work, wait for what it accepted, and name what it left.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_EXECUTED,
    EVENT_JOB_MISSED,
    EVENT_JOB_SUBMITTED,
    JobEvent,
)
from slack_bolt.async_app import AsyncApp
from slack_bolt.listener.async_listener_completion_handler import (
    AsyncListenerCompletionHandler,
)
from slack_bolt.listener.async_listener_start_handler import AsyncListenerStartHandler
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

JOB_EVENTS = EVENT_JOB_SUBMITTED | EVENT_JOB_EXECUTED | EVENT_JOB_ERROR | EVENT_JOB_MISSED


@dataclass(frozen=True)
class Work:
    """One running listener, by ids only (never text): what a stop log may name."""

    kind: str
    event_id: str | None = None
    team: str | None = None
    channel: str | None = None
    user: str | None = None


@dataclass(frozen=True)
class DrainReport:
    """How a stop went: clean when everything accepted finished within the grace period."""

    clean: bool
    waited_s: float
    requests: int = 0
    listeners: list[Work] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)

    def log_fields(self) -> dict[str, Any]:
        return {
            "waited_s": round(self.waited_s, 3),
            "requests": self.requests,
            "listeners": len(self.listeners),
            "listener_kinds": sorted({w.kind for w in self.listeners}),
            "event_ids": sorted(w.event_id for w in self.listeners if w.event_id),
            "channels": sorted({w.channel for w in self.listeners if w.channel}),
            "jobs": self.jobs,
        }


class InFlight:
    """Counts what is running; `accepting` turns False once, when a stop begins."""

    def __init__(self) -> None:
        self.accepting = True
        self._requests = 0
        self._listeners: dict[asyncio.Task[Any], Work] = {}
        self._jobs: dict[str, int] = {}
        self._changed = asyncio.Event()
        self._hurry = asyncio.Event()

    def install(self, app: AsyncApp) -> None:
        """Register every listener Bolt starts. Bolt runs a listener as an untracked task after
        the ack; its start and completion hooks run inside that task, so the task is known."""
        runner = app.listener_runner
        runner.listener_start_handler = _Started(self)
        runner.listener_completion_handler = _Completed(self)

    def on_job_event(self, event: JobEvent) -> None:
        """APScheduler listener (JOB_EVENTS): a job counts from submission until it ends."""
        if event.code == EVENT_JOB_SUBMITTED:
            self._jobs[event.job_id] = self._jobs.get(event.job_id, 0) + 1
        elif self._jobs.get(event.job_id):
            self._jobs[event.job_id] -= 1
            if not self._jobs[event.job_id]:
                del self._jobs[event.job_id]
        self._changed.set()

    def request_started(self) -> None:
        self._requests += 1

    async def request_done(self) -> None:
        """Bolt creates the listener task during dispatch but it has not run yet; one turn of
        the loop lets it start and register before this request stops counting."""
        try:
            await asyncio.sleep(0)
        finally:
            self._requests -= 1
            self._changed.set()

    def listener_started(self, request: AsyncBoltRequest) -> None:
        task = asyncio.current_task()
        if task is None:
            return
        self._listeners[task] = _work_of(request)
        task.add_done_callback(self._forget)

    def listener_done(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._forget(task)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        if self._listeners.pop(task, None) is not None:
            self._changed.set()

    def hurry(self) -> None:
        """Stop waiting now (a second signal): whatever still runs is abandoned."""
        self._hurry.set()
        self._changed.set()

    @property
    def idle(self) -> bool:
        return not (self._requests or self._listeners or self._jobs)

    async def wait_idle(self, grace_s: float) -> DrainReport:
        """Wait until nothing runs, the grace period ends, or `hurry()`; report what was left."""
        started = time.monotonic()
        deadline = started + grace_s
        while not self.idle and not self._hurry.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout=left)
            except TimeoutError:
                break
        return DrainReport(
            clean=self.idle,
            waited_s=time.monotonic() - started,
            requests=self._requests,
            listeners=list(self._listeners.values()),
            jobs=sorted(self._jobs),
        )

    async def cancel_listeners(self, *, within_s: float) -> None:
        """Cancel abandoned listeners so none touches the database after it closes."""
        tasks = list(self._listeners)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=within_s)


def _work_of(request: AsyncBoltRequest) -> Work:
    body, ctx = request.body, request.context
    if body.get("type") == "event_callback":
        kind = str(body.get("event", {}).get("type", "event"))
    elif "command" in body:
        kind = "command"
    else:
        kind = str(body.get("type", "unknown"))
    return Work(
        kind=kind,
        event_id=body.get("event_id"),
        team=ctx.team_id,
        channel=ctx.channel_id,
        user=ctx.user_id,
    )


class _Started(AsyncListenerStartHandler):
    def __init__(self, inflight: InFlight) -> None:
        self._inflight = inflight

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        self._inflight.listener_started(request)


class _Completed(AsyncListenerCompletionHandler):
    def __init__(self, inflight: InFlight) -> None:
        self._inflight = inflight

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        self._inflight.listener_done()
