"""Forgotten means gone, as bytes (issue 16 item 5): after each way of forgetting, the raw bytes
of the database file and its WAL hold none of the forgotten words.

Each test stores words no other text contains, checks the scan finds them while stored (so the
test can fail), forgets them one way, scans every file of the database (right away, and again
after closing it). FTS5 keeps
terms lowercased and prefix-compressed (a term may be stored as the tail after the part it
shares with the previous term), so the scan looks for the whole word, a long middle piece and
its tail.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memory.clock import Clock
from memory.controls.controls import Controls
from memory.embedding.embedder import Embedder
from memory.episodes.episodes import Episodes
from memory.notes.notes import Notes
from memory.profiles.profiles import Profiles
from memory.redaction.redactor import Redactor
from memory.scopes import WriteContext
from memory.store.db import Database
from memory.subjects import Author
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx

ROOT = "1764500000.000100"
REPLY = "1764500060.000100"
LATER = "1764500120.000100"


def word(tag: str) -> str:
    """A lowercase word unique to one test, shaped so no tokenizer splits or stems it."""
    return f"zqxv{tag}forgetme{sum(map(ord, tag)) * 7919 % 100000:05d}"


def pieces(w: str) -> list[bytes]:
    """What the scan looks for: the word, its middle (past any shared prefix) and its tail."""
    return [w.encode(), w[4:-3].encode(), w[-10:].encode()]


def db_files(path: Path) -> list[Path]:
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]


def found_in_files(path: Path, words: list[str]) -> dict[str, list[str]]:
    """{word: [file names holding some piece of it]} for every word found anywhere."""
    blobs = {p.name: p.read_bytes() for p in db_files(path)}
    hits: dict[str, list[str]] = {}
    for w in words:
        where = [name for name, blob in blobs.items() if any(x in blob for x in pieces(w))]
        if where:
            hits[w] = where
    return hits


def chan(author: Author) -> WriteContext:
    return ctx("CINC1", author=author)


class Memory:
    """Every store a forgotten word can reach, over one database file."""

    def __init__(
        self, db: Database, redactor: Redactor, embedder: Embedder, clock: Clock, *, rebuild: bool
    ) -> None:
        self.db = db
        self.notes = Notes(db, redactor, embedder, clock=clock)
        self.profiles = Profiles(db, redactor, embedder, clock)
        self.threads = Threads(db, redactor, clock)
        self.episodes = Episodes(db, embedder, clock)
        # rebuild=False is the CLI's Controls: episodes that lose content wait for the scheduler.
        self.controls = Controls(db, clock, episodes=self.episodes if rebuild else None)

    async def thread(self, *, starter: str, reply: str, closing: str) -> None:
        """A three-message thread (Bob, Alice, Bob) rolled up into its episode."""
        await self.threads.capture(chan(BOB), ts=ROOT, thread_ts=None, text=starter)
        await self.threads.capture(chan(ALICE), ts=REPLY, thread_ts=ROOT, text=reply)
        await self.threads.capture(chan(BOB), ts=LATER, thread_ts=ROOT, text=closing)
        assert await self.episodes.roll_up("T1", "CINC1", ROOT)

    async def episode_text(self) -> str:
        row = await self.db.fetchone("SELECT title || ' ' || summary AS t FROM memory_episodes")
        return "" if row is None else str(row["t"])


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "bytes.db"


@pytest.fixture
async def opened(path: Path) -> AsyncIterator[Database]:
    database = await Database.open(path)
    try:
        yield database
    finally:
        await database.close()  # a second close after a test closed it is a no-op


async def memory_of(
    db: Database, redactor: Redactor, embedder: Embedder, clock: Clock, *, rebuild: bool = True
) -> Memory:
    return Memory(db, redactor, embedder, clock, rebuild=rebuild)


async def closed_and_scanned(db: Database, path: Path, words: list[str]) -> dict[str, list[str]]:
    """Scan while the database is still open (the guarantee holds when the call returns, not
    only once a close has checkpointed the WAL), then close it and scan again."""
    while_open = found_in_files(path, words)
    await db.close()
    closed = found_in_files(path, words)
    assert while_open == closed, f"open: {while_open}, closed: {closed}"
    return closed


async def test_scan_finds_words_that_were_not_forgotten(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    """The scan itself can fail: what is still stored is found after close, in every kind."""
    m = await memory_of(opened, redactor, embedder, clock)
    kept = [word("keptnote"), word("keptfact"), word("keptmsg")]
    await m.notes.save(chan(ALICE), f"canary {kept[0]} rolled out")
    await m.profiles.add_fact(ctx("CINC1", author=ALICE, scope="user"), f"I run {kept[1]} daily")
    await m.thread(
        starter="checkout errors", reply=f"Root cause: {kept[2]} exhausted the pool", closing="ok"
    )
    assert kept[2] in await m.episode_text()
    await opened.close()
    assert set(found_in_files(path, kept)) == set(kept)


async def test_forget_note_item_leaves_no_bytes_of_it_or_its_vector(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    """Also gone: the neighbour context of the note after it and the note's vector bytes."""
    m = await memory_of(opened, redactor, embedder, clock)
    gone, kept = word("noteitem"), word("notereply")
    note = await m.notes.save(chan(ALICE), f"the {gone} flag broke checkout")
    await m.notes.save(chan(BOB), f"yes, roll {kept} back")
    ctx_row = await opened.fetchone("SELECT context FROM memory_notes WHERE text LIKE '%roll%'")
    assert ctx_row is not None and gone in ctx_row["context"], "the reply quotes the note"
    vec = await opened.fetchone("SELECT vec FROM memory_note_vectors WHERE note_id = ?", (note.id,))
    assert vec is not None
    slices = [bytes(vec["vec"])[i : i + 32] for i in range(0, len(vec["vec"]), 32)]
    assert found_in_files(path, [gone, kept]).keys() == {gone, kept}

    receipt = await m.controls.forget_item(ALICE.subject_id, f"note:{note.id}")

    assert receipt.counts["memory_notes"] == 1
    assert await closed_and_scanned(opened, path, [gone, kept]) == {kept: ["bytes.db"]}
    blob = b"".join(p.read_bytes() for p in db_files(path))
    assert not [s for s in slices if s in blob], "the forgotten note's vector bytes remain"


async def test_forget_profile_item_leaves_no_bytes(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    m = await memory_of(opened, redactor, embedder, clock)
    gone = word("factitem")
    fact = await m.profiles.add_fact(ctx("CINC1", author=ALICE, scope="user"), f"I use {gone}")
    assert found_in_files(path, [gone])

    await m.controls.forget_item(ALICE.subject_id, fact.id)

    assert await closed_and_scanned(opened, path, [gone]) == {}


@pytest.mark.parametrize("rebuild", [True, False], ids=["episode-rebuilt", "episode-queued"])
async def test_forget_message_item_leaves_no_bytes_in_message_or_episode(
    opened: Database,
    path: Path,
    redactor: Redactor,
    embedder: Embedder,
    clock: Clock,
    rebuild: bool,
) -> None:
    """The episode quoting the message goes at once, whether it is rebuilt now or queued."""
    m = await memory_of(opened, redactor, embedder, clock, rebuild=rebuild)
    gone, kept = word("msgitem"), word("msgkept")
    await m.thread(
        starter=f"{kept} checkout errors",
        reply=f"Root cause: {gone} exhausted the pool",
        closing="ok",
    )
    assert gone in await m.episode_text()
    row = await opened.fetchone("SELECT id FROM memory_thread_messages WHERE ts = ?", (REPLY,))
    assert row is not None

    await m.controls.forget_item(ALICE.subject_id, f"message:{row['id']}")

    assert (gone in await m.episode_text()) is False
    assert (kept in await m.episode_text()) is rebuild
    assert await closed_and_scanned(opened, path, [gone, kept]) == {kept: ["bytes.db"]}


async def test_forget_everything_leaves_no_bytes_of_mine(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    m = await memory_of(opened, redactor, embedder, clock)
    note, fact, msg = word("allnote"), word("allfact"), word("allmsg")
    kept = word("allbob")
    await m.notes.save(chan(ALICE), f"{note} broke the canary")
    await m.notes.save(chan(BOB), f"paged {kept} about it")
    await m.profiles.add_fact(ctx("CINC1", author=ALICE, scope="user"), f"I prefer {fact}")
    await m.thread(starter="checkout errors", reply=f"Root cause: {msg} rollout", closing="ok")
    assert found_in_files(path, [note, fact, msg, kept]).keys() == {note, fact, msg, kept}

    await m.controls.forget_everything(ALICE.subject_id)

    assert await closed_and_scanned(opened, path, [note, fact, msg, kept]) == {kept: ["bytes.db"]}


async def test_retention_leaves_no_bytes_of_expired_rows(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock
) -> None:
    m = await memory_of(opened, redactor, embedder, clock)
    old_note, old_msg, fresh = word("ttlnote"), word("ttlmsg"), word("ttlfresh")
    await m.notes.save(chan(ALICE), f"{old_note} drained")
    await m.thread(starter="checkout errors", reply=f"Root cause: {old_msg} rollout", closing="ok")
    clock.advance(days=10)
    await m.notes.save(chan(BOB), f"{fresh} lag is back")
    assert found_in_files(path, [old_note, old_msg, fresh]).keys() == {old_note, old_msg, fresh}

    receipt = await m.controls.apply_retention({"channel": 7})

    assert receipt.counts["memory_notes"] == 1
    assert await closed_and_scanned(opened, path, [old_note, old_msg, fresh]) == {
        fresh: ["bytes.db"]
    }


async def test_deleted_message_leaves_no_bytes(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    m = await memory_of(opened, redactor, embedder, clock)
    gone = word("msgdeleted")
    await m.thread(
        starter="checkout errors", reply=f"Root cause: {gone} exhausted the pool", closing="ok"
    )
    assert gone in await m.episode_text()

    assert await m.threads.delete("T1", "CINC1", REPLY)

    assert await closed_and_scanned(opened, path, [gone]) == {}


async def test_edited_message_leaves_no_bytes_of_its_old_text(
    opened: Database, path: Path, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    """The episode quoted the old text: it goes with the edit, not at the next roll-up."""
    m = await memory_of(opened, redactor, embedder, clock)
    old, new = word("msgbefore"), word("msgafter")
    await m.thread(
        starter="checkout errors", reply=f"Root cause: {old} exhausted the pool", closing="ok"
    )
    assert old in await m.episode_text()

    assert await m.threads.edit("T1", "CINC1", REPLY, f"Root cause: {new} exhausted the pool")

    assert await m.episode_text() == "", "queued for the next roll-up"
    assert await closed_and_scanned(opened, path, [old, new]) == {new: ["bytes.db"]}


async def test_edit_with_the_same_text_keeps_the_episode(
    opened: Database, redactor: Redactor, embedder: Embedder, clock: Clock
) -> None:
    """Slack sends message_changed when only an unfurl changed: nothing is rebuilt then."""
    m = await memory_of(opened, redactor, embedder, clock)
    await m.thread(starter="checkout errors", reply="Root cause: the pool ran dry", closing="ok")
    before = await m.episode_text()

    assert await m.threads.edit("T1", "CINC1", REPLY, "Root cause: the pool ran dry")

    assert await m.episode_text() == before != ""


async def test_upgrade_purges_what_an_older_release_deleted_without_secure_delete(
    path: Path,
) -> None:
    """A file from before secure_delete keeps deleted text in free pages and FTS segments: the
    upgrade rewrites it once."""
    from memory.store.migrations import apply_migrations, load_migrations

    gone = word("olddeleted")
    old = await Database.open(path, migrate=False)
    await apply_migrations(old, [m for m in load_migrations() if m.version < 8])
    await old.execute("PRAGMA secure_delete = OFF")  # as every release before issue 16
    await old.execute(
        "INSERT INTO memory_notes (id, team_id, scope, channel_id, channel_is_private,"
        " owner_subject_id, partition_key, kind, text, created_at) VALUES (1, 'T1', 'channel',"
        " 'C1', 0, 'T1/U1', 'channel:T1:C1', 'fact', :text, '2026-01-01T00:00:00Z')",
        {"text": f"the {gone} flag " + "padding " * 600},
    )
    await old.execute("DELETE FROM memory_notes WHERE id = 1")
    await old.close()
    assert found_in_files(path, [gone]), "the old release left the bytes behind"

    upgraded = await Database.open(path)
    assert await closed_and_scanned(upgraded, path, [gone]) == {}
