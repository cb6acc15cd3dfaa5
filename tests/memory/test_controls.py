"""User controls (issue 4 item 7): export, forget one item, forget everything, retention TTL."""

from __future__ import annotations

import json

import pytest

from memory.controls.controls import Controls
from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.episodes.episodes import Episodes
from memory.errors import InvalidSubjectId, UnknownItem
from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.profiles.profiles import Profiles
from memory.recall.recall import Recall
from memory.redaction.redactor import Redactor
from memory.scopes import Requester, WriteContext
from memory.store.db import Database
from memory.subjects import Author
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx

ROOT = "1764500000.000100"


def chan(author: Author, channel: str = "CINC1") -> WriteContext:
    return ctx(channel, author=author)


def mine(author: Author) -> WriteContext:
    return ctx("CINC1", author=author, scope="user", source_ts=ROOT)


class World:
    """Alice and Bob each write notes, profile facts and thread messages in one incident."""

    def __init__(
        self, db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
    ) -> None:
        self.db, self.clock, self.redactor = db, clock, redactor
        self.notes = Notes(db, redactor, embedder, clock=clock)
        self.profiles = Profiles(db, redactor, embedder, clock)
        self.threads = Threads(db, redactor, clock)
        self.episodes = Episodes(db, embedder, clock)
        self.recall = Recall(db, embedder, clock=clock)
        self.controls = Controls(db, clock, episodes=self.episodes)

    async def populate(self) -> None:
        await Incidents(self.db, self.clock, redactor=self.redactor).open(
            chan(ALICE), title="checkout down", channel_id="CINC1"
        )
        self.alice_note = await self.notes.save(
            chan(ALICE), "zebracorn flag broke the checkout canary"
        )
        self.bob_note = await self.notes.save(chan(BOB), "paged the payments team about checkout")
        self.alice_fact = await self.profiles.add_fact(mine(ALICE), "I use Terraform and Helm")
        await self.profiles.add_fact(mine(BOB), "I prefer Grafana dashboards")
        await self.threads.capture(chan(BOB), ts=ROOT, thread_ts=None, text="checkout is erroring")
        await self.threads.capture(
            chan(ALICE),
            ts="1764500060.000100",
            thread_ts=ROOT,
            text="Root cause: the quasarwidget rollout exhausted the pool",
        )
        await self.threads.capture(
            chan(BOB), ts="1764500120.000100", thread_ts=ROOT, text="Decided to roll back checkout"
        )
        await self.episodes.roll_up("T1", "CINC1", ROOT)


@pytest.fixture
async def world(db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock) -> World:
    w = World(db, redactor, embedder, clock)
    await w.populate()
    return w


async def vector_rows(db: Database, prefix: str) -> int:
    tables = await db.fetchall(
        "SELECT name FROM sqlite_master WHERE name LIKE ? AND sql LIKE 'CREATE VIRTUAL%'",
        (prefix + "%",),
    )
    return sum([await db.scalar(f"SELECT count(*) FROM {t[0]}") for t in tables])


async def test_export_holds_everything_about_me_and_nothing_of_others(world: World) -> None:
    export = await world.controls.export(ALICE.subject_id)
    json.dumps(export)  # JSON-able as is
    assert [n["text"] for n in export["notes"]] == ["zebracorn flag broke the checkout canary"]
    assert [f["text"] for f in export["profile_facts"]] == ["I use Terraform and Helm"]
    assert [m["text"] for m in export["thread_messages"]] == [
        "Root cause: the quasarwidget rollout exhausted the pool"
    ]
    [episode] = export["episodes"]
    assert episode["started_by_subject"] is False and ALICE.subject_id in episode["participants"]
    assert {a["action"] for a in export["audit"]} >= {"note.save", "profile.add"}
    assert [i["title"] for i in export["incidents_opened"]] == ["checkout down"]
    assert export["subject"]["display_name"] == "alice"
    assert "Grafana" not in json.dumps(export) and "paged the payments" not in json.dumps(export)


async def test_export_keeps_superseded_profile_history(world: World) -> None:
    await world.profiles.add_fact(mine(ALICE), "I use Pulumi and Helm", "correction")
    facts = (await world.controls.export(ALICE.subject_id))["profile_facts"]
    assert [(f["text"], f["superseded_by"] is not None) for f in facts] == [
        ("I use Terraform and Helm", True),
        ("I use Pulumi and Helm", False),
    ]


async def test_forget_item_only_deletes_my_own(world: World) -> None:
    with pytest.raises(UnknownItem):
        await world.controls.forget_item(BOB.subject_id, world.alice_fact.id)
    with pytest.raises(UnknownItem):
        await world.controls.forget_item(ALICE.subject_id, "profile:abc")
    receipt = await world.controls.forget_item(ALICE.subject_id, world.alice_fact.id)
    assert receipt.counts["memory_profile_facts"] == 1
    assert receipt.counts["memory_profile_facts_fts"] == 1
    assert receipt.counts["profile_vectors"] == 1
    assert await world.profiles.history(ALICE.subject_id) == []
    assert len(await world.profiles.facts(BOB.subject_id)) == 1


async def test_forget_note_item_removes_it_from_recall(world: World) -> None:
    asker = Requester(BOB.subject_id, "T1", channel_id="CINC1")
    assert [i.text for i in await world.recall.recall(asker, "zebracorn", k=3)][:1] == [
        world.alice_note.text
    ]
    receipt = await world.controls.forget_item(ALICE.subject_id, f"note:{world.alice_note.id}")
    assert receipt.counts["memory_notes"] == 1 and receipt.counts["note_vectors"] >= 1
    assert all(
        "zebracorn" not in i.text for i in await world.recall.recall(asker, "zebracorn", k=5)
    )


async def test_forget_everything_then_recall_returns_nothing_of_mine(world: World) -> None:
    """Issue 4: forget-me followed by recall leaves nothing, vectors and neighbour context included."""
    zebra = "SELECT count(*) FROM memory_notes_fts WHERE memory_notes_fts MATCH 'zebracorn'"
    assert await world.db.scalar(zebra) == 2, "Alice's note, and Bob's note's neighbour context"
    receipt = await world.controls.forget_everything(ALICE.subject_id)
    asker = Requester(BOB.subject_id, "T1", channel_id="CINC1")
    for mode in ("keyword", "semantic", "hybrid"):
        items = await world.recall.recall(
            asker, "zebracorn flag broke the checkout canary", k=10, mode=mode
        )
        assert all(i.author_subject_id != ALICE.subject_id for i in items)
        assert all(i.id != world.alice_note.id for i in items)
    assert await world.db.scalar(zebra) == 0, "Bob's note kept Alice's text as neighbour context"
    me = Requester(ALICE.subject_id, "T1")
    assert await world.profiles.for_requester(me) == []
    hits = await world.episodes.search(asker, "quasarwidget rollout exhausted the pool")
    assert all("quasarwidget" not in h.episode.summary for h in hits)
    export = await world.controls.export(ALICE.subject_id)
    assert all(export[k] == [] for k in ("notes", "profile_facts", "thread_messages", "episodes"))
    assert receipt.counts["memory_notes"] == 1 and receipt.counts["memory_thread_messages"] == 1
    assert receipt.counts["memory_profile_facts"] == 1 and receipt.counts["profile_vectors"] == 1
    assert receipt.counts["memory_episodes"] == 1 and receipt.counts["memory_subjects"] == 1
    assert receipt.episodes_rebuilt == 1


async def test_forget_everything_keeps_others_memory_and_rebuilds_their_episode(
    world: World,
) -> None:
    await world.controls.forget_everything(ALICE.subject_id)
    asker = Requester(BOB.subject_id, "T1", channel_id="CINC1")
    assert [i.id for i in await world.recall.recall(asker, "paged payments team", k=3)][:1] == [
        world.bob_note.id
    ]
    assert len(await world.profiles.facts(BOB.subject_id)) == 1
    [episode] = await world.episodes.recent(asker)
    assert episode.participants == (BOB.subject_id,)
    assert "quasarwidget" not in episode.summary and "roll back checkout" in episode.summary
    assert await vector_rows(world.db, "memory_episode_vec") == 1


async def test_forget_receipt_is_audited_with_counts_and_no_content(world: World) -> None:
    await world.controls.forget_everything(ALICE.subject_id)
    row = await world.db.fetchone(
        "SELECT findings FROM memory_audit WHERE action = 'memory.forget_everything'"
    )
    counts = json.loads(row["findings"])
    assert counts["memory_notes"] == 1 and "zebracorn" not in row["findings"]


async def test_retention_deletes_expired_rows_per_scope_with_fts_and_vectors(world: World) -> None:
    world.clock.advance(days=10)
    fresh = await world.notes.save(chan(BOB), "fresh note about kafka lag")
    receipt = await world.controls.apply_retention({"channel": 7, "user": None})
    assert receipt.counts["memory_notes"] == 2 and receipt.counts["memory_thread_messages"] == 3
    assert receipt.counts["memory_episodes"] == 1 and receipt.counts["note_vectors"] >= 2
    assert await world.db.scalar("SELECT count(*) FROM memory_thread_messages_fts_docsize") == 0
    assert await vector_rows(world.db, "memory_episode_vec") == 0
    assert len(await world.profiles.facts(ALICE.subject_id)) == 1, "user scope has no TTL here"
    asker = Requester(BOB.subject_id, "T1", channel_id="CINC1")
    assert [i.id for i in await world.recall.recall(asker, "kafka lag checkout", k=5)] == [fresh.id]
    receipt = await world.controls.apply_retention({"user": 5})
    assert receipt.counts["memory_profile_facts"] == 2


async def test_retention_with_no_ttl_deletes_nothing(world: World) -> None:
    world.clock.advance(days=400)
    receipt = await world.controls.apply_retention({"user": None, "channel": None})
    assert receipt.counts == {} and receipt.total == 0


async def test_malformed_subject_id_is_refused(world: World) -> None:
    with pytest.raises(InvalidSubjectId):
        await world.controls.forget_everything("alice")
    with pytest.raises(InvalidSubjectId):
        await world.controls.export("T1/U1; DROP TABLE")


async def test_cli_forget_needs_yes_and_then_deletes(
    world: World, make_settings, tmp_path, capsys
) -> None:
    """`opsmemory memory forget` (issue 4 item 7) changes nothing without --yes."""
    import argparse

    from bot.cli.memory_cmds import add_memory_parser

    parser = argparse.ArgumentParser()
    add_memory_parser(parser.add_subparsers(dest="command"))
    settings = make_settings(data_dir=tmp_path)  # the `db` fixture's file is tmp_path/opsmemory.db
    dry = parser.parse_args(["memory", "forget", "--subject", ALICE.subject_id])
    assert await dry.handler(dry, settings) == 1
    assert "1 notes" in capsys.readouterr().err
    assert len((await world.controls.export(ALICE.subject_id))["notes"]) == 1
    real = parser.parse_args(["memory", "forget", "--subject", ALICE.subject_id, "--yes"])
    assert await real.handler(real, settings) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["memory_notes"] == 1
    assert (await world.controls.export(ALICE.subject_id))["notes"] == []


async def test_forgetting_a_captured_message_removes_the_note_it_became(
    db: Database, redactor: Redactor, clock
) -> None:
    """A thread message is filed as a note too (recall quotes notes): forgetting the message
    must take that copy with it, or "Forgot item" is followed by the text in the next answer."""
    notes = Notes(db, redactor, None, clock=clock)
    threads = Threads(db, redactor, clock, notes=notes)
    inc = await Incidents(db, clock, redactor=redactor).open(
        chan(ALICE), title="checkout down", channel_id="CINC1"
    )
    await threads.capture(
        chan(ALICE), ts=ROOT, thread_ts=None, text="quasarwidget broke checkout", incident=inc.id
    )
    asker = Requester(BOB.subject_id, "T1", channel_id="CINC1")
    recall = Recall(db, None, clock=clock)
    assert any("quasarwidget" in i.text for i in await recall.recall(asker, "quasarwidget", k=3))
    (message_id,) = [int(r[0]) for r in await db.fetchall("SELECT id FROM memory_thread_messages")]
    await Controls(db, clock).forget_item(ALICE.subject_id, f"message:{message_id}")
    assert not [i for i in await recall.recall(asker, "quasarwidget", k=5)]
    assert await db.scalar("SELECT count(*) FROM memory_notes WHERE text LIKE '%quasar%'") == 0
