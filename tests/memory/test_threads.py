"""Captured thread messages (issue 5 item 4): redacted, once per message, edits and deletes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.clock import said_at
from memory.episodes.episodes import Episodes
from memory.errors import NotChannelMemory, RedactionFailed
from memory.redaction.redactor import Redactor
from memory.scopes import Requester, WriteContext
from memory.store.db import Database
from memory.subjects import Author
from memory.threads import Threads
from tests.fakes.crashing_recognizer import crashing_redactor
from tests.memory.contexts import ALICE, BOB, ctx

ROOT = "1700000000.000100"
RECEIVED = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def threads(db: Database, redactor: Redactor, clock) -> Threads:
    return Threads(db, redactor, clock)


def on(author: Author = ALICE, channel: str = "CINC1", private: bool = False) -> WriteContext:
    """A write in the incident channel (these tests' usual place)."""
    return ctx(channel, author=author, private=private)


async def fts_hits(db: Database, word: str) -> int:
    return await db.scalar(
        "SELECT count(*) FROM memory_thread_messages_fts WHERE memory_thread_messages_fts MATCH ?",
        (word,),
    )


async def test_capture_redacts_before_storing(threads: Threads, db: Database) -> None:
    msg = await threads.capture(
        on(), ts=ROOT, thread_ts=None, text="checkout 500s, key AKIAIOSFODNN7EXAMPLE leaked?"
    )
    assert msg is not None and "AKIAIOSFODNN7EXAMPLE" not in msg.text
    raw = await db.scalar("SELECT group_concat(text) FROM memory_thread_messages")
    assert "AKIAIOSFODNN7EXAMPLE" not in raw
    assert msg.thread_ts == ROOT, "a top-level message starts its own thread"
    audit = await db.fetchone("SELECT action, findings FROM memory_audit")
    assert audit["action"] == "message.capture" and "AKIA" not in audit["findings"]


async def test_double_delivery_stores_once(threads: Threads, db: Database) -> None:
    first = await threads.capture(on(), ts=ROOT, thread_ts=None, text="db is down")
    again = await threads.capture(on(), ts=ROOT, thread_ts=None, text="db is down")
    assert first == again
    assert await db.scalar("SELECT count(*) FROM memory_thread_messages") == 1
    assert await fts_hits(db, "down") == 1


async def test_edit_re_redacts_and_replaces_in_keyword_index(
    threads: Threads, db: Database
) -> None:
    await threads.capture(on(), ts=ROOT, thread_ts=None, text="restart the poolers")
    assert await threads.edit("T1", "CINC1", ROOT, "drain pgbouncer, mail ops@example.com")
    [msg] = await threads.messages("T1", "CINC1", ROOT)
    assert "ops@example.com" not in msg.text and "pgbouncer" in msg.text
    assert msg.edited_at is not None
    assert await fts_hits(db, "poolers") == 0 and await fts_hits(db, "pgbouncer") == 1


async def test_edit_of_unknown_message_changes_nothing(threads: Threads) -> None:
    assert not await threads.edit("T1", "CINC1", "1.0", "hello")


async def test_delete_removes_message_fts_and_episode(
    threads: Threads, db: Database, clock
) -> None:
    await threads.capture(on(), ts=ROOT, thread_ts=None, text="payments API erroring")
    await threads.capture(
        on(BOB), ts="1700000060.000100", thread_ts=ROOT, text="Root cause: expired cert on lb-7"
    )
    episode = await Episodes(db, None, clock).roll_up("T1", "CINC1", ROOT)
    assert episode is not None and "lb-7" in episode.summary
    assert await threads.delete("T1", "CINC1", "1700000060.000100")
    assert [m.text for m in await threads.messages("T1", "CINC1", ROOT)] == [
        "payments API erroring"
    ]
    assert await fts_hits(db, "cert") == 0
    assert (
        await db.scalar(
            "SELECT count(*) FROM memory_episodes_fts WHERE memory_episodes_fts MATCH 'cert'"
        )
        == 0
    )
    assert not await threads.delete("T1", "CINC1", "1700000060.000100")


async def test_private_channel_messages_are_not_visible_elsewhere(threads: Threads) -> None:
    await threads.capture(
        on(channel="CPRIV", private=True), ts=ROOT, thread_ts=None, text="secret plan"
    )
    inside = Requester(BOB.subject_id, "T1", channel_id="CPRIV")
    elsewhere = Requester(
        BOB.subject_id, "T1", channel_id="CPUB", member_channel_ids=frozenset({"CPRIV"})
    )
    dm = Requester(ALICE.subject_id, "T1", channel_id=None)
    assert len(await threads.visible_messages(inside, channel_id="CPRIV", thread_ts=ROOT)) == 1
    assert await threads.visible_messages(elsewhere, channel_id="CPRIV", thread_ts=ROOT) == []
    assert await threads.visible_messages(dm, channel_id="CPRIV", thread_ts=ROOT) == []


async def test_public_channel_messages_are_visible_to_members(threads: Threads) -> None:
    await threads.capture(on(), ts=ROOT, thread_ts=None, text="public note")
    member = Requester(
        BOB.subject_id, "T1", channel_id=None, member_channel_ids=frozenset({"CINC1"})
    )
    stranger = Requester(BOB.subject_id, "T1", channel_id=None)
    assert len(await threads.visible_messages(member, channel_id="CINC1", thread_ts=ROOT)) == 1
    assert await threads.visible_messages(stranger, channel_id="CINC1", thread_ts=ROOT) == []


async def test_redactor_failure_captures_nothing(db: Database, clock) -> None:
    broken = Threads(db, crashing_redactor(), clock)
    with pytest.raises(RedactionFailed):
        await broken.capture(on(), ts=ROOT, thread_ts=None, text="hello")
    assert await db.scalar("SELECT count(*) FROM memory_thread_messages") == 0


async def test_user_scope_capture_is_refused(threads: Threads) -> None:
    with pytest.raises(NotChannelMemory):
        await threads.capture(
            WriteContext(ALICE, "T1", "CINC1", False, "user"), ts=ROOT, thread_ts=None, text="x"
        )


async def test_empty_message_is_not_stored(threads: Threads, db: Database) -> None:
    assert await threads.capture(on(), ts=ROOT, thread_ts=None, text="  ") is None
    assert await db.scalar("SELECT count(*) FROM memory_thread_messages") == 0


async def test_pending_threads_lists_changed_threads_until_rolled_up(
    threads: Threads, db: Database, clock
) -> None:
    start = clock()
    await threads.capture(on(), ts=ROOT, thread_ts=None, text="disk full on kafka-3")
    clock.advance(minutes=1)
    [pending] = await threads.pending_threads(start - timedelta(seconds=1))
    assert (pending.channel_id, pending.thread_ts) == ("CINC1", ROOT)
    await Episodes(db, None, clock).roll_up("T1", "CINC1", ROOT)
    assert await threads.pending_threads(start - timedelta(seconds=1)) == []
    clock.advance(minutes=1)
    await threads.capture(on(BOB), ts="1700000100.000100", thread_ts=ROOT, text="expanded volume")
    assert len(await threads.pending_threads(start)) == 1
    assert await threads.pending_threads(clock()) == []


async def test_an_unchanged_edit_of_a_question_to_the_bot_keeps_the_threads_episode(
    threads: Threads, db: Database, clock
) -> None:
    """Slack re-sends message_changed for unfurls: a question to the bot (no note) whose text
    did not change must not delete the thread's episode or touch anything."""
    await threads.capture(on(), ts=ROOT, thread_ts=None, text="payments API erroring")
    ask = "1700000060.000100"
    await threads.capture(
        on(BOB), ts=ask, thread_ts=ROOT, text="what was the root cause?", asks_bot=True
    )
    assert await Episodes(db, None, clock).roll_up("T1", "CINC1", ROOT) is not None
    before = await db.scalar(
        "SELECT edited_at FROM memory_thread_messages WHERE ts = :t", {"t": ask}
    )
    assert await threads.edit("T1", "CINC1", ask, "what was the root cause?", evidence=False)
    assert await db.scalar("SELECT count(*) FROM memory_episodes") == 1
    after = await db.scalar(
        "SELECT edited_at FROM memory_thread_messages WHERE ts = :t", {"t": ask}
    )
    assert after == before


async def test_a_message_delivered_late_is_dated_when_it_was_said(
    db: Database, redactor: Redactor, clock, embedder
) -> None:
    """Slack retried the delivery (or it queued behind a burst) half an hour after the person
    wrote it: the note shows, and is ordered by, the time it was said."""
    from memory.incidents import Incidents
    from memory.notes.notes import Notes

    inc = await Incidents(db, redactor=redactor).open(on(), title="db down", channel_id="CINC1")
    said = clock.now
    clock.advance(minutes=30)
    threads = Threads(db, redactor, clock, notes=Notes(db, redactor, embedder, clock=clock))
    ts = f"{said.timestamp():.6f}"
    await threads.capture(
        on(), ts=ts, thread_ts=None, text="failed over to db-b at 10:22", incident=inc.id
    )
    stored = await db.scalar("SELECT created_at FROM memory_notes")
    assert stored.startswith(said.strftime("%Y-%m-%dT%H:%M:%S")), stored


@pytest.mark.parametrize(
    ("ts", "expected"),
    [
        ("1796119980.000006", datetime(2026, 12, 1, 10, 13, 0, 6, tzinfo=UTC)),
        ("1996119980.000006", RECEIVED),  # a ts from the future: when it reached us
        ("not-a-ts", RECEIVED),
        ("1e400", RECEIVED),
    ],
)
def test_said_at_reads_the_ts_and_never_goes_past_receipt(ts: str, expected: datetime) -> None:
    assert said_at(ts, RECEIVED) == expected
