"""Notes: edge validation, redaction before persistence (fail closed), audit, same-tx indexing (issue 4)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memory.controls.controls import Controls
from memory.errors import EmptyText, NoteTooLong, OnlySecrets, RedactionFailed, UnknownIncident
from memory.incidents import Incidents
from memory.notes.notes import NoteDraft, NotePolicy, Notes
from memory.recall.recall import Recall, RecallConfig
from memory.scopes import Requester, WriteContext
from memory.store.db import Database
from memory.subjects import Author, SlackIdentity
from tests.conftest import FakeClock as Clock
from tests.fakes.crashing_recognizer import crashing_redactor
from tests.memory.contexts import ctx

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
TABLES = ("memory_notes", "memory_notes_fts", "memory_note_vectors", "memory_audit")


async def vectors(db: Database) -> np.ndarray:
    """Every stored note vector, in note order."""
    rows = await db.fetchall("SELECT vec FROM memory_note_vectors ORDER BY note_id")
    return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])


async def counts(db: Database) -> dict[str, int]:
    return {t: await db.scalar(f"SELECT count(*) FROM {t}") for t in TABLES}


async def test_secret_is_redacted_and_audit_keeps_only_types_and_counts(db, redactor, embedder):
    notes = Notes(db, redactor, embedder, clock=Clock())
    note = await notes.save(ctx(), f"rotated key {AWS_KEY} after the leak", kind="action")
    assert AWS_KEY not in note.text and "<AWS_ACCESS_KEY>" in note.text
    audit = await db.fetchone("SELECT * FROM memory_audit WHERE action = 'note.save'")
    assert json.loads(audit["findings"]) == {"AWS_ACCESS_KEY": 1}
    assert (audit["subject_id"], audit["scope"], audit["channel_id"]) == ("T1/U1", "channel", "C1")
    rows = [r for t in TABLES for r in await db.fetchall(f"SELECT * FROM {t}")]
    dump = "\n".join(str(tuple(r)) for r in rows)
    assert AWS_KEY not in dump


async def test_note_is_searchable_by_keyword_and_vector_when_save_returns(db, redactor, embedder):
    notes, recall = Notes(db, redactor, embedder), Recall(db, embedder)
    saved = await notes.save(ctx(), "The connection pool was exhausted by a retry storm")
    asker = Requester("T1/U2", "T1", channel_id="C1")
    assert [i.id for i in await recall.recall(asker, "retry storm", mode="keyword")] == [saved.id]
    semantic = await recall.recall(asker, "too many database connections", mode="semantic")
    assert [i.id for i in semantic] == [saved.id]


async def test_orphan_incident_id_writes_nothing(db, redactor, embedder):
    with pytest.raises(UnknownIncident):
        await Notes(db, redactor, embedder).save(ctx(), "rolled back", incident="inc-404")
    assert await counts(db) == dict.fromkeys(TABLES, 0)


async def test_note_attached_to_an_existing_incident_by_any_spelling(db, redactor, embedder):
    await Incidents(db, redactor=redactor).open(ctx(), title="db down", channel_id="C1")
    note = await Notes(db, redactor, embedder).save(ctx(), "rolled back", incident="INC-0001")
    assert note.incident_id == "inc-1"


async def test_private_incident_cannot_be_named_from_another_channel(db, redactor, embedder):
    """A note elsewhere naming a private channel's incident is refused exactly like a missing
    id: it could otherwise surface the private incident's title as a "similar incident"."""
    private = WriteContext(
        Author.of(SlackIdentity("T1", "U1"), "ann"), "T1", "GPRIV", True, "channel"
    )
    await Incidents(db, redactor=redactor).open(
        private, title="payroll db breach", channel_id="GPRIV"
    )
    with pytest.raises(UnknownIncident):
        await Notes(db, redactor, embedder).save(ctx("C2"), "see inc-1", incident="inc-1")
    saved = await Notes(db, redactor, embedder).save(private, "rotated keys", incident="inc-1")
    assert saved.incident_id == "inc-1"


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
async def test_empty_or_whitespace_note_is_refused(db, redactor, embedder, text):
    with pytest.raises(EmptyText):
        await Notes(db, redactor, embedder).save(ctx(), text)


async def test_note_over_limit_is_refused_with_the_limit(db, redactor, embedder):
    notes = Notes(db, redactor, embedder, NotePolicy(max_chars=100))
    with pytest.raises(NoteTooLong) as caught:
        await notes.save(ctx(), "x" * 101)
    assert "100" in str(caught.value) and "101" in str(caught.value)


async def test_note_made_only_of_secrets_is_refused(db, redactor, embedder):
    with pytest.raises(OnlySecrets):
        await Notes(db, redactor, embedder).save(ctx(), f"{AWS_KEY} bob@example.com")
    assert await counts(db) == dict.fromkeys(TABLES, 0)


async def test_redactor_failure_writes_nothing(db, embedder):
    broken = crashing_redactor()
    drafts = [NoteDraft(ctx(), "first"), NoteDraft(ctx(), "second")]
    with pytest.raises(RedactionFailed):
        await Notes(db, broken, embedder).save_many(drafts)
    assert await counts(db) == dict.fromkeys(TABLES, 0)


async def test_unicode_and_rtl_text_round_trips_and_is_found(db, redactor, embedder):
    text = "השרת נפל אחרי העדכון — café ☕ 数据库"
    saved = await Notes(db, redactor, embedder).save(ctx(), text)
    assert saved.text == text
    hits = await Recall(db, embedder).recall(
        Requester("T1/U1", "T1", channel_id="C1"), "העדכון", mode="keyword"
    )
    assert [h.id for h in hits] == [saved.id]


async def test_a_reply_is_found_through_the_message_it_answers(db, redactor, embedder):
    """Neighbour context: 'yes, do it' only matches via the question before it (issue 4)."""
    notes = Notes(db, redactor, embedder)
    await notes.save_many(
        [
            NoteDraft(ctx(), "should we fail over the redis cluster?"),
            NoteDraft(ctx(user="U2"), "yes, do it now"),
        ]
    )
    hits = await Recall(db, embedder).recall(
        Requester("T1/U1", "T1", channel_id="C1"), "redis failover", mode="keyword"
    )
    assert "yes, do it now" in [h.text for h in hits]


async def test_a_reply_vector_carries_the_message_it_answers(db, redactor, embedder):
    """A note's vector mixes in the note before it: 'yes, do it now' is near in meaning to the
    question it answers, and its own meaning still dominates."""
    notes = Notes(db, redactor, embedder)
    await notes.save_many(
        [
            NoteDraft(ctx(), "should we fail over the redis cluster?"),
            NoteDraft(ctx(user="U2"), "yes, do it now"),
            NoteDraft(ctx(), "kafka consumer lag is growing on orders"),
            NoteDraft(ctx(), "dns lookups time out from the batch nodes"),
            NoteDraft(ctx(user="U2"), "paging the database on-call"),
            NoteDraft(ctx(), "lunch order for the war room is pizza"),
        ]
    )
    asker = Requester("T1/U1", "T1", channel_id="C1")
    # Vectors only: no length prior, which would put the bare "yes, do it now" last on purpose.
    vectors = Recall(db, embedder, RecallConfig(length_prior=0.0))
    hits = await vectors.recall(asker, "redis failover", k=2, mode="semantic")
    assert [h.text for h in hits] == ["should we fail over the redis cluster?", "yes, do it now"]
    (top,) = await vectors.recall(asker, "pizza for lunch", k=1, mode="semantic")
    assert top.text == "lunch order for the war room is pizza"


async def test_a_note_after_the_same_authors_note_is_embedded_alone(tmp_path, redactor, embedder):
    """Only a reply mixes in what it answers: alice's second note in a row gets exactly the
    vector it would have with nothing before it."""
    run = await Database.open(tmp_path / "run.db")
    alone = await Database.open(tmp_path / "alone.db")
    try:
        await Notes(run, redactor, embedder).save_many(
            [NoteDraft(ctx(), "should we fail over the redis cluster?"), NoteDraft(ctx(), "lunch")]
        )
        await Notes(alone, redactor, embedder).save(ctx(), "lunch")
        np.testing.assert_allclose((await vectors(run))[1], (await vectors(alone))[0], atol=1e-5)
    finally:
        await run.close()
        await alone.close()


async def test_forgetting_a_note_removes_it_from_the_next_notes_vector(db, redactor, embedder):
    """The notes after a forgotten one are re-embedded without it, exactly as if it never was:
    the reply no longer mixes it in, and the note after the reply is no longer in an exchange."""
    notes = Notes(db, redactor, embedder)
    first, secret, reply, after = await notes.save_many(
        [
            NoteDraft(ctx(), "checkout p99 at 4s"),
            NoteDraft(ctx(user="U2"), "my home address is on the wiki page"),
            NoteDraft(ctx(), "rolled back to v41, latency normal"),
            NoteDraft(ctx(), "closing the incident"),
        ]
    )
    receipt = await Controls(db).forget_item(secret.author_subject_id, f"note:{secret.id}")
    assert receipt.counts["neighbour_vectors_to_redo"] == 4  # two notes: binary code + float
    assert await notes.index_missing_vectors() == 2
    clean = await Database.open(db.path.parent / "clean.db")
    try:
        await Notes(clean, redactor, embedder).save_many(
            [NoteDraft(ctx(), n.text) for n in (first, reply, after)]
        )
        np.testing.assert_allclose(await vectors(db), await vectors(clean), atol=1e-5)
    finally:
        await clean.close()


async def test_save_many_keeps_order_and_writes_one_audit_row_each(db, redactor, embedder):
    saved = await Notes(db, redactor, embedder).save_many(
        [NoteDraft(ctx(), f"step {i} done") for i in range(5)]
    )
    assert [n.text for n in saved] == [f"step {i} done" for i in range(5)]
    assert await counts(db) == dict.fromkeys(TABLES, 5)


async def test_without_an_embedder_notes_are_indexed_later(db, redactor, embedder):
    await Notes(db, redactor, None).save(ctx(), "disk full on node 3")
    assert await db.scalar("SELECT count(*) FROM memory_note_vectors") == 0
    assert await Notes(db, redactor, embedder).index_missing_vectors() == 1
    hits = await Recall(db, embedder).recall(
        Requester("T1/U1", "T1", channel_id="C1"), "storage exhausted", mode="semantic"
    )
    assert [h.text for h in hits] == ["disk full on node 3"]


async def test_a_note_of_punctuation_without_secrets_is_kept(db, redactor, embedder):
    """Only notes whose secrets were removed and left nothing are refused, not ';)' (issue 4)."""
    note = await Notes(db, redactor, embedder).save(ctx(), ";)")
    assert note.text == ";)"


async def test_back_filled_vectors_equal_the_ones_saved_online(tmp_path, redactor, embedder):
    """After an embedder outage, back-filled notes must be searchable exactly as if embedded at
    save time (same rule: own embedding plus a share of the previous note's)."""
    texts = ["checkout p99 at 4s", "rolled back to v41, latency normal"]
    online = await Database.open(tmp_path / "online.db")
    later = await Database.open(tmp_path / "later.db")
    try:
        for user, text in zip(("U1", "U2"), texts, strict=True):
            await Notes(online, redactor, embedder).save(ctx(user=user), text)
            await Notes(later, redactor, None).save(ctx(user=user), text)
        assert await Notes(later, redactor, embedder).index_missing_vectors() == 2
        np.testing.assert_allclose(await vectors(online), await vectors(later), atol=1e-5)
    finally:
        await online.close()
        await later.close()


async def test_deferred_vectors_survive_a_restart_and_match_online_ones(
    tmp_path, redactor, embedder
):
    """Bulk import with vectors later: keyword-searchable at once; after the process is gone,
    the vector job on a fresh connection embeds every note exactly as an online save would."""
    drafts = [
        NoteDraft(ctx(user=u), t)
        for u, t in (("U1", "checkout p99 at 4s"), ("U2", "rolled back to v41"))
    ]
    online = await Database.open(tmp_path / "online.db")
    bulk = await Database.open(tmp_path / "bulk.db")
    try:
        await Notes(online, redactor, embedder).save_many(drafts)
        await Notes(bulk, redactor, embedder).save_many(drafts, vectors_later=True)
        asker = Requester("T1/U1", "T1", channel_id="C1")
        hits = await Recall(bulk, embedder).recall(asker, "rolled back", mode="keyword")
        assert hits[0].text == "rolled back to v41"
        assert await bulk.scalar("SELECT count(*) FROM memory_note_vectors") == 0
    finally:
        await bulk.close()  # the importing process ends before any vector is written
    restarted = await Database.open(tmp_path / "bulk.db")
    try:
        assert await Notes(restarted, redactor, embedder).index_missing_vectors() == 2
        assert await Notes(restarted, redactor, embedder).index_missing_vectors() == 0
        np.testing.assert_allclose(await vectors(online), await vectors(restarted), atol=1e-5)
    finally:
        await online.close()
        await restarted.close()


async def contexts(db: Database) -> list[tuple[int, str, int]]:
    rows = await db.fetchall("SELECT id, context, next_count FROM memory_notes ORDER BY id")
    return [(r["id"], r["context"], r["next_count"]) for r in rows]


async def test_context_later_ends_with_the_index_an_immediate_save_writes(tmp_path, redactor):
    """An acked slash note leaves its neighbours' context to the indexing pass: until then the
    notes before it do not carry its words; after it, every note's context (and how many
    followers it took) is what saving at once writes, however many notes queued up."""
    lines = [
        ("U1", "should we fail over the redis cluster?"),
        ("U2", "yes, do it now"),
        ("U1", "failover started by ann"),
        ("U3", "replica lag is back under a second"),
        ("U2", "closing the bridge"),
    ]
    online = await Database.open(tmp_path / "online.db")
    acked = await Database.open(tmp_path / "acked.db")
    try:
        for user, text in lines:
            await Notes(online, redactor, None).save_many([NoteDraft(ctx(user=user), text)])
            await Notes(acked, redactor, None).save_many(
                [NoteDraft(ctx(user=user), text)], vectors_later=True, context_later=True
            )
        first_context = (await contexts(acked))[0][1]
        assert "yes, do it now" not in first_context
        assert await Notes(acked, redactor, None).apply_pending_context() == len(lines) - 1
        assert await contexts(acked) == await contexts(online)
        assert await Notes(acked, redactor, None).apply_pending_context() == 0
    finally:
        await online.close()
        await acked.close()


async def test_pending_context_survives_a_restart(tmp_path, redactor):
    """The notes table is the queue: a process that stops after the ack loses nothing."""
    first = await Database.open(tmp_path / "m.db")
    try:
        notes = Notes(first, redactor, None)
        for user, text in (("U1", "is the queue draining?"), ("U2", "yes, 40k left")):
            await notes.save_many([NoteDraft(ctx(user=user), text)], context_later=True)
    finally:
        await first.close()
    again = await Database.open(tmp_path / "m.db")
    try:
        assert await Notes(again, redactor, None).apply_pending_context() == 1
        (question, _), _ = [(c[1], c[2]) for c in await contexts(again)]
        assert question == "yes, 40k left"
    finally:
        await again.close()
