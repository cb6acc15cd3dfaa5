"""bot_events and bot_answers SQL: a delivery or an asking message is claimed once, and the
claim survives closing the database (issue 18, item 6)."""

from __future__ import annotations

from pathlib import Path

from memory.store import dedupe as store
from memory.store.db import Database

AT = "2026-11-30T12:00:00+00:00"


async def claim(db: Database, team: str = "T1", channel: str = "C1", ts: str = "1.0") -> bool:
    async with db.transaction() as tx:
        return await store.claim_answer(tx, team_id=team, channel_id=channel, message_ts=ts, at=AT)


async def test_an_asking_message_is_claimed_by_exactly_one_caller(db: Database) -> None:
    assert await claim(db) is True
    assert await claim(db) is False


async def test_the_answer_claim_is_per_team_channel_and_message(db: Database) -> None:
    """Slack Connect: the same channel id and ts in another team is another message."""
    assert await claim(db)
    assert await claim(db, team="T2")
    assert await claim(db, channel="C2")
    assert await claim(db, ts="2.0")


async def test_a_persisted_event_id_is_seen_and_a_new_one_is_not(db: Database) -> None:
    assert not await store.event_seen(db, "Ev1")
    async with db.transaction() as tx:
        await store.insert_event(tx, "Ev1", at=AT)
        await store.insert_event(tx, "Ev1", at=AT)  # a repeat is harmless
    assert await store.event_seen(db, "Ev1")
    assert not await store.event_seen(db, "Ev2")


async def test_claims_survive_closing_and_reopening_the_database(tmp_path: Path) -> None:
    path = tmp_path / "opsmemory.db"
    first = await Database.open(path)
    async with first.transaction() as tx:
        await store.insert_event(tx, "Ev1", at=AT)
    assert await claim(first)
    await first.close()
    reopened = await Database.open(path)
    try:
        assert await store.event_seen(reopened, "Ev1")
        assert await claim(reopened) is False
    finally:
        await reopened.close()


async def test_pruning_forgets_only_event_ids_older_than_the_cutoff(db: Database) -> None:
    async with db.transaction() as tx:
        await store.insert_event(tx, "old", at="2026-11-01T00:00:00+00:00")
        await store.insert_event(tx, "new", at="2026-11-30T00:00:00+00:00")
    async with db.transaction() as tx:
        assert await store.delete_events_before(tx, "2026-11-15T00:00:00+00:00") == 1
    assert not await store.event_seen(db, "old")
    assert await store.event_seen(db, "new")


async def test_the_answer_link_is_set_on_that_message_only(db: Database) -> None:
    for team, channel, ts in [("T1", "C1", "1.0"), ("T2", "C1", "1.0"), ("T1", "C2", "1.0")]:
        assert await claim(db, team, channel, ts)
    assert await claim(db, ts="2.0")
    async with db.transaction() as tx:
        await store.set_answer_ts(
            tx, team_id="T1", channel_id="C1", message_ts="1.0", answer_ts="1.5"
        )
    rows = await db.fetchall(
        "SELECT team_id, channel_id, message_ts, answer_ts FROM bot_answers"
        " ORDER BY team_id, channel_id, message_ts"
    )
    assert [tuple(r) for r in rows] == [
        ("T1", "C1", "1.0", "1.5"),
        ("T1", "C1", "2.0", None),
        ("T1", "C2", "1.0", None),
        ("T2", "C1", "1.0", None),
    ]
