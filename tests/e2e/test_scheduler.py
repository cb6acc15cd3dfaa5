"""Scheduled jobs: captured threads roll up into episodes and the daily digest is posted; jobs
missed during a restart are not silently dropped (issue 5, scheduler)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.app import build_app
from bot.scheduler import DIGEST_GRACE_S, Jobs, build_scheduler
from bot.standin import FakeSlack, SlackDriver
from tests.conftest import FakeClock
from tests.e2e.workspace import ALICE, BOB, GENERAL, INCIDENT, SECRET, TEAM, eventually_async


async def test_threads_roll_up_into_episodes_and_the_digest_is_posted(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    bot = await start_bot(digest_channel=GENERAL)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(INCIDENT, ALICE, "open sev2 Checkout latency")
        root = await d.say(INCIDENT, ALICE, "checkout p99 at 4s since the 10:00 deploy")
        await d.say(INCIDENT, BOB, "decision: roll back checkout to v41", thread_ts=root.ts)
    assert root.ts
    await eventually_async(
        lambda: bot.deps.threads.messages(TEAM, INCIDENT, root.ts or ""), lambda m: len(m) == 2
    )
    jobs = Jobs(bot.deps, bot.app.client, team_id=TEAM)
    assert await jobs.roll_up_threads() >= 1
    assert await jobs.post_digest() is True
    digest = slack.workspace.bot_messages(GENERAL)
    assert "Incident digest" in digest[0].text and "Checkout latency" in digest[0].text


def test_jobs_have_an_explicit_grace_time_and_coalesce() -> None:
    scheduler = build_scheduler(
        Jobs(None, None, team_id=TEAM),
        digest_time="09:00",  # type: ignore[arg-type]
        timezone="UTC",
    )
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert set(jobs) == {
        "roll_up_threads",
        "index_vectors",
        "expire_requests",
        "post_unposted_requests",
        "post_digest",
        "keep_house",
    }
    assert jobs["post_digest"].misfire_grace_time == DIGEST_GRACE_S
    assert all(job.coalesce and job.misfire_grace_time > 1 for job in jobs.values())


async def test_housekeeping_expires_memory_past_its_ttl_and_old_event_ids(
    bot_settings: Callable[..., Any], slack: FakeSlack, clock: FakeClock
) -> None:
    """Retention TTLs per scope are applied by the daily job, not left to an operator."""
    runtime = await build_app(bot_settings(retention_days_channel=7), clock=clock)
    try:
        await runtime.warm_up()
        port = await runtime.start_http(host="127.0.0.1", port=0)
        async with SlackDriver(f"http://127.0.0.1:{port}/slack/events", SECRET, slack) as d:
            await d.command(INCIDENT, ALICE, "open sev2 Checkout latency")
            await d.command(INCIDENT, ALICE, "note pool size raised to 80 on checkout-db")
            await d.say(INCIDENT, BOB, "still seeing 503s from checkout")
        count = "SELECT count(*) FROM memory_notes"
        # The slash note and the thread message (thread messages are memory too, issue 14).
        await eventually_async(lambda: runtime.deps.db.scalar(count), lambda n: n == 2)
        await runtime.deps.dedupe.drain()  # the event id is persisted in the background
        jobs = Jobs(runtime.deps, runtime.app.client, team_id=TEAM)

        clock.advance(days=3)
        kept = await jobs.keep_house()
        assert await runtime.deps.db.scalar(count) == 2  # inside the 7-day TTL
        assert kept["bot_events"] >= 1  # event ids older than two days are forgotten

        clock.advance(days=5)
        expired = await jobs.keep_house()
        assert await runtime.deps.db.scalar(count) == 0
        assert expired.get("memory_notes", 0) == 2
    finally:
        await runtime.stop()


def test_housekeeping_is_scheduled_with_a_grace_time() -> None:
    scheduler = build_scheduler(
        Jobs(None, None, team_id=TEAM),
        digest_time="09:00",  # type: ignore[arg-type]
        timezone="UTC",
    )
    job = scheduler.get_job("keep_house")
    assert job is not None and job.coalesce and job.misfire_grace_time > 1


async def test_vector_job_re_embeds_the_note_after_a_forgotten_one(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """Forgetting a note leaves its follower without a vector until the job re-embeds it."""
    bot = await start_bot()
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(INCIDENT, ALICE, "open sev2 Checkout latency")
        await d.command(INCIDENT, ALICE, "note pool size raised to 80 on checkout-db")
        await d.command(INCIDENT, BOB, "note latency back to normal after the pool change")
    notes = "SELECT id, owner_subject_id FROM memory_notes ORDER BY id"
    rows = await eventually_async(lambda: bot.deps.db.fetchall(notes), lambda r: len(r) == 2)
    await bot.deps.controls.forget_item(rows[0]["owner_subject_id"], f"note:{rows[0]['id']}")
    vectors = "SELECT count(*) FROM memory_note_vectors"
    assert await bot.deps.db.scalar(vectors) == 0
    assert await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors() == 1
    assert await bot.deps.db.scalar(vectors) == 1


async def test_vector_job_links_acked_slash_notes_with_their_neighbours(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """A slash note is acked before the note above it carries its words; the indexing job
    adds them, so a search for the reply's words also matches the question it answered."""
    bot = await start_bot()
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.command(INCIDENT, ALICE, "open sev2 Checkout latency")
        await d.command(INCIDENT, ALICE, "note should we fail over checkout-db to the replica?")
        reply = await d.command(INCIDENT, BOB, "note failover approved, replica promoted")
    assert reply.json()["text"].startswith("Saved note")
    first = "SELECT context FROM memory_notes ORDER BY id LIMIT 1"
    assert "replica promoted" not in await bot.deps.db.scalar(first)
    await Jobs(bot.deps, bot.app.client, team_id=TEAM).index_vectors()
    assert "replica promoted" in await bot.deps.db.scalar(first)


async def test_the_digest_names_an_incident_opened_before_its_day(
    bot_settings: Callable[..., Any], slack: FakeSlack, clock: FakeClock
) -> None:
    """An incident opened at 02:04, its thread busy all day, reported in the next morning's
    digest: its line names its title, severity and status, not a bare "*inc-410*"."""
    runtime = await build_app(bot_settings(digest_channel=GENERAL), clock=clock)
    try:
        await runtime.warm_up()
        port = await runtime.start_http(host="127.0.0.1", port=0)
        async with SlackDriver(f"http://127.0.0.1:{port}/slack/events", SECRET, slack) as d:
            await d.command(INCIDENT, ALICE, "open sev1 API gateway cert expired")
            clock.advance(days=1)
            root = await d.say(INCIDENT, ALICE, "api-gw handshake errors for mobile clients")
            await d.say(
                INCIDENT, BOB, "root cause: cert-manager lost its route53 perms", thread_ts=root.ts
            )
        await eventually_async(
            lambda: runtime.deps.threads.messages(TEAM, INCIDENT, root.ts or ""),
            lambda m: len(m) == 2,
        )
        jobs = Jobs(runtime.deps, runtime.app.client, team_id=TEAM)
        assert await jobs.roll_up_threads() >= 1
        clock.advance(hours=1)
        assert await jobs.post_digest() is True
        head = slack.workspace.bot_messages(GENERAL)[-1].text.splitlines()[1]
        assert "API gateway cert expired · sev1 · open" in head, head
    finally:
        await runtime.stop()
