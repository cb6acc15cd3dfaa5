"""Recall: scope-safe hybrid search with recency, kind weights and sources (issue 4)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.errors import InvalidLimit
from memory.incidents import Incidents
from memory.notes.notes import NotePolicy, Notes
from memory.recall.answer_type import holds, says_a_span, wanted
from memory.recall.keyword import KeywordConfig
from memory.recall.recall import AskedIn, Recall, RecallConfig
from memory.scopes import Requester
from tests.conftest import FakeClock as Clock
from tests.memory.contexts import ALICE, BOB, ctx

MODES = ("keyword", "semantic", "hybrid")


@pytest.mark.parametrize("mode", MODES)
async def test_private_channel_note_never_recalled_elsewhere(db, redactor, embedder, mode):
    await Notes(db, redactor, embedder).save(
        ctx("C9", private=True), "payments db password rotated"
    )
    recall = Recall(db, embedder)
    outsiders = [
        Requester("T1/U2", "T1", channel_id="C1", member_channel_ids=frozenset({"C9"})),
        Requester("T1/U1", "T1"),  # even the author, in a DM
        Requester("T2/U1", "T2", member_channel_ids=frozenset({"C9"})),  # another workspace
    ]
    for asker in outsiders:
        assert await recall.recall(asker, "payments db password", mode=mode) == []
    inside = await recall.recall(
        Requester("T1/U2", "T1", channel_id="C9"), "payments db password", mode=mode
    )
    assert [i.text for i in inside] == ["payments db password rotated"]


@pytest.mark.parametrize("mode", MODES)
async def test_user_notes_only_reach_their_owner_and_workspace_notes_stay_in_team(
    db, redactor, embedder, mode
):
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx(None, scope="user"), "I prefer terraform plans posted before apply")
    await notes.save(ctx("C1", scope="workspace"), "terraform state lives in the ops bucket")
    recall = Recall(db, embedder)

    async def texts(asker: Requester) -> set[str]:
        return {i.text for i in await recall.recall(asker, "terraform plans state", mode=mode)}

    assert len(await texts(Requester("T1/U1", "T1"))) == 2
    assert await texts(Requester("T1/U2", "T1")) == {"terraform state lives in the ops bucket"}
    assert await texts(Requester("T2/U1", "T2")) == set()


async def test_public_channel_note_reaches_members_only(db, redactor, embedder):
    await Notes(db, redactor, embedder).save(ctx("C8"), "cdn cache purge fixed the stale assets")
    recall = Recall(db, embedder)
    member = Requester("T1/U2", "T1", member_channel_ids=frozenset({"C8"}))
    assert len(await recall.recall(member, "cdn cache purge")) == 1
    assert await recall.recall(Requester("T1/U3", "T1"), "cdn cache purge") == []


async def test_items_carry_their_source(db, redactor, embedder):
    clock = Clock()
    await Incidents(db, clock, redactor=redactor).open(ctx("C1"), title="db down", channel_id="C1")
    await Notes(db, redactor, embedder, clock=clock).save(
        ctx("C1"), "failover to replica b", kind="decision", incident="1"
    )
    (item,) = await Recall(db, embedder, clock=clock).recall(
        Requester("T1/U2", "T1", channel_id="C1"), "failover replica"
    )
    assert (item.incident_id, item.channel_id, item.author_subject_id, item.kind) == (
        "inc-1",
        "C1",
        "T1/U1",
        "decision",
    )
    assert item.created_at == clock.now and item.permalink.endswith("/C1/p123")
    assert item.source == "note"


async def test_recent_note_outranks_an_equally_matching_old_one(db, redactor, embedder):
    clock = Clock()
    notes = Notes(db, redactor, embedder, clock=clock)
    await notes.save(ctx("C1"), "restarted the ingest workers")
    clock.now += timedelta(days=6)
    await notes.save(ctx("C2"), "restarted the ingest workers")
    asker = Requester("T1/U1", "T1", member_channel_ids=frozenset({"C1", "C2"}))
    decayed = await Recall(db, embedder, clock=clock).recall(asker, "restarted ingest workers")
    assert [i.channel_id for i in decayed] == ["C2", "C1"]
    assert decayed[0].score > decayed[1].score * 1.5
    flat = await Recall(db, embedder, RecallConfig(half_life_hours=None), clock).recall(
        asker, "restarted ingest workers"
    )
    assert flat[0].score / flat[1].score < 1.2  # only the fused rank differs without decay


async def test_root_cause_outranks_a_plain_note_with_the_same_words(db, redactor, embedder):
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1"), "dns ttl too long on the api record", kind="root_cause")
    await notes.save(ctx("C2"), "dns ttl too long on the api record", kind="note")
    asker = Requester("T1/U1", "T1", member_channel_ids=frozenset({"C1", "C2"}))
    items = await Recall(db, embedder).recall(asker, "dns ttl api")
    assert [i.kind for i in items] == ["root_cause", "note"]


async def test_similar_incidents_finds_visible_past_incidents_only(db, redactor, embedder):
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    for channel, private, text in [
        ("C1", False, "kafka consumer lag after broker upgrade"),
        ("C2", True, "kafka consumer lag from a bad partition key"),
        ("C3", False, "certificate expired on the login page"),
    ]:
        await incidents.open(ctx(channel, private=private), title=text, channel_id=channel)
        await notes.save(ctx(channel, private=private), text, incident=None)
        await db.execute(
            "UPDATE memory_notes SET incident_id = (SELECT id FROM memory_incidents"
            " WHERE channel_id = memory_notes.channel_id)"
        )
    asker = Requester(
        "T1/U2", "T1", channel_id="C7", member_channel_ids=frozenset({"C1", "C2", "C3"})
    )
    matches = await Recall(db, embedder).similar_incidents(asker, "consumer lag on kafka", limit=3)
    assert matches[0].incident.channel_id == "C1"
    assert "C2" not in {m.incident.channel_id for m in matches}


async def test_k_out_of_range_is_refused(db, embedder):
    with pytest.raises(InvalidLimit):
        await Recall(db, embedder).recall(Requester("T1/U1", "T1"), "x", k=0)


async def test_query_of_only_stop_words_returns_nothing_in_keyword_mode(db, redactor, embedder):
    await Notes(db, redactor, embedder).save(ctx("C1"), "what is the status")
    assert (
        await Recall(db, embedder).recall(
            Requester("T1/U1", "T1", channel_id="C1"), "what is the", mode="keyword"
        )
        == []
    )


def _few_common(**overrides) -> RecallConfig:
    """A keyword config whose limits a handful of notes can reach (the defaults need 5,000);
    no length prior, so the order is BM25's over these near-equal one-line notes."""
    return RecallConfig(
        keyword=KeywordConfig(**{"common_df": 3, "df_window": 50, **overrides}), length_prior=0.0
    )


async def test_common_query_terms_are_pruned_but_rare_ones_still_find_the_note(
    db, redactor, embedder
):
    notes = Notes(db, redactor, None, NotePolicy(context_neighbours=0))
    for i in range(6):
        await notes.save(ctx("C1"), f"database replica lag report {i}")
    target = await notes.save(ctx("C1"), "database replica failover drill went fine")
    asker = Requester("T1/U1", "T1", channel_id="C1")
    hits = await Recall(db, None, _few_common()).recall(
        asker, "database replica failover", k=3, mode="keyword"
    )
    assert [h.id for h in hits][:1] == [target.id]


async def test_when_every_term_is_common_the_conjunction_ranks_first(db, redactor, embedder):
    notes = Notes(db, redactor, None, NotePolicy(context_neighbours=0))
    for i in range(5):
        await notes.save(ctx("C1"), f"database timeout seen {i}")
        await notes.save(ctx("C1"), f"replica timeout seen {i}")
    both = await notes.save(ctx("C1"), "database replica both")
    asker = Requester("T1/U1", "T1", channel_id="C1")
    hits = await Recall(db, None, _few_common()).recall(
        asker, "database replica", k=5, mode="keyword"
    )
    assert hits[0].id == both.id
    assert len(hits) == 5, "the disjunction fills in when the conjunction finds too few"


async def test_keyword_scan_full_of_invisible_notes_still_finds_the_visible_one(
    db, redactor, embedder
):
    notes = Notes(db, redactor, None, NotePolicy(context_neighbours=0))
    for i in range(8):
        await notes.save(ctx("CPRIV", private=True), f"kafka kafka kafka broker lag {i}")
    mine = await notes.save(ctx("C1"), "kafka broker restarted after a long incident")
    asker = Requester("T1/U1", "T1", channel_id="C1")
    hits = await Recall(db, None, _few_common(common_df=100, scan=3)).recall(
        asker, "kafka broker", k=3, mode="keyword"
    )
    assert [h.id for h in hits] == [mine.id]


async def test_a_question_naming_a_day_prefers_notes_written_that_day(db, redactor, embedder):
    """Same words on two days: the question's date decides, whichever note is newer."""
    clock = Clock()
    notes = Notes(db, redactor, embedder, clock=clock)
    day_one = clock.now
    await notes.save(ctx("C1"), "restarted the ingest workers")
    clock.now += timedelta(days=20)
    await notes.save(ctx("C1"), "restarted the ingest workers")
    asker = Requester("T1/U1", "T1", channel_id="C1")
    recall = Recall(db, embedder, RecallConfig(half_life_hours=None), clock)
    named = f"what did we restart on {day_one:%B} {day_one.day}, {day_one.year}?"
    hits = await recall.recall(asker, named)
    assert hits[0].created_at == day_one
    assert hits[0].score > 2 * hits[1].score
    plain = await recall.recall(asker, "what did we restart?")
    assert plain[0].score / plain[1].score < 1.2  # no date named: no preference


async def test_an_answer_is_recalled_with_the_question_it_follows(db, redactor, embedder):
    """'yes, ship it' shares no word with the question asked later; it is bob's reply to alice's
    message that does, so recall brings it along, above unrelated notes."""
    notes = Notes(db, redactor, embedder, NotePolicy(context_neighbours=0))
    for author, text in (
        (BOB, "kafka lag on orders is growing"),
        (ALICE, "shall we raise the consumer partitions to 48?"),
        (BOB, "yes, ship it"),
        (ALICE, "lunch is pizza again"),
        (BOB, "dns flaps on the batch nodes"),
    ):
        await notes.save(ctx("C1", author=author), text)
    asker = Requester("T1/U1", "T1", channel_id="C1")
    plain = Recall(db, None, RecallConfig(neighbour_share=0.0))
    lent = Recall(db, None)
    assert "yes, ship it" not in [i.text for i in await plain.recall(asker, "consumer partitions")]
    hits = [i.text for i in await lent.recall(asker, "consumer partitions", k=3)]
    assert hits[0] == "shall we raise the consumer partitions to 48?"
    assert "yes, ship it" in hits
    assert "lunch is pizza again" not in hits


async def test_one_authors_run_of_notes_lends_nothing_to_its_neighbours(db, redactor, embedder):
    """A monologue is not a conversation: each of one person's notes stands on its own, so a
    keyword hit neither lends score to nor shares keyword context with the note next to it."""
    notes = Notes(db, redactor, embedder)
    for text in (
        "shall we raise the consumer partitions to 48?",
        "booked the dentist for tuesday",
    ):
        await notes.save(ctx("C1", author=ALICE), text)
    asker = Requester("T1/U1", "T1", channel_id="C1")
    hits = await Recall(db, embedder).recall(asker, "consumer partitions", mode="keyword")
    assert [i.text for i in hits] == ["shall we raise the consumer partitions to 48?"]
    rows = await db.fetchall("SELECT context FROM memory_notes ORDER BY id")
    assert [r[0] for r in rows] == ["", ""]


async def test_a_who_question_prefers_the_note_that_names_a_person(db, redactor, embedder):
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "the cert renewal alert needs a runbook link")
    await notes.save(ctx("C1", author=BOB), "alice owns the cert renewal alert")
    asker = Requester("T1/U2", "T1", channel_id="C1")
    who = await Recall(db, embedder).recall(asker, "who has the cert renewal alert?")
    assert who[0].text == "alice owns the cert renewal alert"
    plain = await Recall(db, embedder, RecallConfig(answer_type_boost=1.0)).recall(
        asker, "who has the cert renewal alert?"
    )
    assert who[0].score / who[1].score > plain[0].score / plain[1].score


async def test_a_when_question_prefers_the_note_with_a_time(db, redactor, embedder):
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1"), "queue consumers lagging, paging the data team at 02:40 UTC")
    await notes.save(ctx("C1"), "queue consumers lagging badly, consumers lagging everywhere")
    asker = Requester("T1/U2", "T1", channel_id="C1")
    items = await Recall(db, embedder).recall(asker, "when did the queue consumers start lagging?")
    assert "02:40" in items[0].text


async def test_a_later_correction_of_a_top_hit_is_recalled_beside_it(db, redactor, embedder):
    clock = Clock()
    notes = Notes(db, redactor, embedder, clock=clock)
    await notes.save(ctx("C1"), "AI-1: Hamid owns the idle transaction timeout", kind="action")
    for i in range(12):
        clock.now += timedelta(minutes=1)
        await notes.save(ctx("C1", author=BOB), f"graph {i} looks flat")
    clock.now += timedelta(days=1)
    await notes.save(
        ctx("C1", author=ALICE), "I'll take AI-1 over from Hamid, due Tuesday", kind="correction"
    )
    asker = Requester("T1/U2", "T1", channel_id="C1")
    question = "idle transaction timeout follow-up owner"
    lend = RecallConfig(correction_share=0.9)
    items = await Recall(db, embedder, lend, clock).recall(asker, question, k=3)
    assert "I'll take AI-1 over from Hamid, due Tuesday" in [i.text for i in items]
    off = RecallConfig(correction_share=0.0, answer_type_boost=1.0)
    without = await Recall(db, embedder, off, clock).recall(asker, question, k=3, mode="keyword")
    assert "I'll take AI-1 over from Hamid, due Tuesday" not in [i.text for i in without]


async def _incident_with_a_personal_note(db, redactor, embedder):  # type: ignore[no-untyped-def]
    """A public incident in C1 with one channel root cause and the owner's personal note."""
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    inc = await incidents.open(ctx("C1"), title="kafka lag", channel_id="C1")
    await notes.save(ctx("C1"), "kafka consumer lag after the broker upgrade", "root_cause")
    await notes.save(
        ctx(None, scope="user"), "kafka consumer lag, I am interviewing at Globex", "decision"
    )
    await db.execute("UPDATE memory_notes SET incident_id = :i", {"i": inc.id})
    return inc


async def test_incident_statements_never_return_personal_rows_even_to_their_owner(
    db, redactor, embedder
):
    from memory.store import notes as note_store

    inc = await _incident_with_a_personal_note(db, redactor, embedder)
    owner = Requester.full_member("T1/U1", "T1", channel_id="C7")
    rows = await note_store.incident_statements(db, owner, inc.id)
    assert [r["scope"] for r in rows] == ["channel"]


async def test_similar_incidents_never_show_personal_memory_even_to_its_owner(
    db, redactor, embedder
):
    await _incident_with_a_personal_note(db, redactor, embedder)
    owner = Requester.full_member("T1/U1", "T1", channel_id="C7")
    recall = Recall(db, embedder)
    # The owner's personal note is the best match for this question, and visible to them.
    assert any(
        i.scope == "user" for i in await recall.recall(owner, "interviewing at Globex kafka")
    )
    matches = await recall.similar_incidents(owner, "interviewing at Globex kafka lag")
    assert matches, "the channel's root cause still makes the incident similar"
    for m in matches:
        assert "Globex" not in f"{m.why} {m.line}"


async def test_without_the_sql_filter_the_code_still_keeps_personal_rows_out_of_shared_lines(
    db, redactor, embedder, monkeypatch
):
    """The second layer: with the store's `scope <> 'user'` clause taken out, the similar
    incident's headline and the earlier incident's statements still never quote personal rows."""
    from memory.store import notes as note_store

    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    inc = await incidents.open(ctx("C1"), title="kafka lag", channel_id="C1")
    await notes.save(ctx("C1"), "we decided to pin the kafka client to 3.6", "decision")
    await notes.save(ctx("C1"), "kafka consumer lag after the broker upgrade", "root_cause")
    # Newest, so each line would pick it first if it got through.
    await notes.save(
        ctx(None, scope="user"), "root cause: I am interviewing at Globex", "root_cause"
    )
    await notes.save(ctx(None, scope="user"), "we decided I leave for Globex", "decision")
    await db.execute("UPDATE memory_notes SET incident_id = :i", {"i": inc.id})
    unfiltered = note_store._HEADLINE.replace("AND n.scope <> 'user'", "")
    assert unfiltered != note_store._HEADLINE
    monkeypatch.setattr(note_store, "_HEADLINE", unfiltered)
    owner = Requester.full_member("T1/U1", "T1", channel_id="C7")
    rows = await note_store.incident_statements(db, owner, inc.id)
    assert "user" in {r["scope"] for r in rows}  # the SQL layer is off in this test

    recall = Recall(db, embedder)
    (match,) = await recall.similar_incidents(owner, "kafka consumer lag after the upgrade")
    assert match.line == "kafka consumer lag after the broker upgrade"
    earlier = await recall.relevant(owner, "what did we decide last time?")
    assert earlier and all("Globex" not in i.text for i in earlier)
    assert "we decided to pin the kafka client to 3.6" in [i.text for i in earlier]
    # An incident named by its title: its statements, never the owner's personal ones.
    named = await recall.relevant(owner, "what was the root cause of the kafka lag incident?")
    assert named and named[0].text == "kafka consumer lag after the broker upgrade"
    assert all(i.scope != "user" for i in named[:1])


async def _two_earlier_incidents(db, redactor, embedder):  # type: ignore[no-untyped-def]
    """inc-1 in C1 decided about DNS (then corrected it) and filed an action; inc-2 in C2 (the
    newer) decided about kafka. The asker is in a third incident channel, C3."""
    clock = Clock()
    incidents = Incidents(db, clock, redactor=redactor)
    notes = Notes(db, redactor, embedder, clock=clock)
    one = await incidents.open(ctx("C1"), title="dns", channel_id="C1")
    await notes.save(
        ctx("C1"), "we decided to raise the DNS TTL to 300", "decision", incident=one.id
    )
    await notes.save(ctx("C1"), "AI: Bob owns the resolver dashboard", "action", incident=one.id)
    await notes.save(
        ctx("C1"), "correction: we keep the DNS TTL at 60, not 300", "correction", incident=one.id
    )
    clock.now += timedelta(hours=2)
    two = await incidents.open(ctx("C2"), title="kafka", channel_id="C2")
    await notes.save(
        ctx("C2"), "decision: pause the kafka consumers until the broker is back", "decision",
        incident=two.id,
    )  # fmt: skip
    return Recall(db, embedder, clock=clock), Requester.full_member("T1/U9", "T1", channel_id="C3")


async def test_last_times_decision_follows_the_questions_topic(db, redactor, embedder):
    """A topic in the question picks the incident that decided about it, not just the latest;
    no topic means the latest; a topic no earlier decision shares adds nothing."""
    recall, asker = await _two_earlier_incidents(db, redactor, embedder)
    latest = await recall.relevant(asker, "what did we decide last time?")
    assert "pause the kafka consumers" in latest[0].text
    dns = await recall.relevant(asker, "what did we decide about the DNS TTL last time?")
    assert "DNS TTL" in dns[0].text
    unrelated = await recall.relevant(asker, "what did we decide about the CDN last time?")
    assert not any("kafka" in i.text or "TTL" in i.text for i in unrelated[:1])


async def test_last_times_decision_comes_from_the_incident_the_question_matches(
    db, redactor, embedder
):
    """No earlier decision shares the question's words, but a note of inc-1 does: the question
    is about inc-1, so its decisions answer (not the newer kafka incident's, nor nothing)."""
    recall, asker = await _two_earlier_incidents(db, redactor, embedder)
    items = await recall.relevant(
        asker, "the resolver dashboard again: what did we decide last time?"
    )
    assert items and "DNS TTL" in items[0].text
    assert not any("kafka" in i.text for i in items)


async def test_last_times_corrected_decision_shows_the_correction_first(db, redactor, embedder):
    recall, asker = await _two_earlier_incidents(db, redactor, embedder)
    (first, second, *_) = await recall.relevant(asker, "what did we decide on DNS last time?")
    assert first.text == "correction: we keep the DNS TTL at 60, not 300"
    assert second.text == "we decided to raise the DNS TTL to 300" and second.superseded_by


async def test_last_times_action_items_are_found(db, redactor, embedder):
    recall, asker = await _two_earlier_incidents(db, redactor, embedder)
    items = await recall.relevant(asker, "what were the action items on the resolver last time?")
    assert items and items[0].text == "AI: Bob owns the resolver dashboard"


async def test_a_why_question_prefers_the_note_that_explains(db, redactor, embedder):
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "doubled the worker memory limit to 4Gi")
    await notes.save(ctx("C1", author=BOB), "memory limit doubled, but the leak just grew slower")
    asker = Requester("T1/U2", "T1", channel_id="C1")
    question = "why did doubling the worker memory limit not help?"
    why = await Recall(db, embedder).recall(asker, question, mode="keyword")
    assert why[0].text.startswith("memory limit doubled, but")
    plain = await Recall(db, embedder, RecallConfig(answer_type_boost=1.0)).recall(
        asker, question, mode="keyword"
    )
    assert why[0].score / why[1].score > plain[0].score / plain[1].score


async def test_a_what_did_it_log_question_prefers_the_note_that_quotes_it(db, redactor, embedder):
    """ "What exception were the pods throwing?" is answered by the message that pastes it, not
    by the later summary that mentions the same pods."""
    notes = Notes(db, redactor, embedder)
    await notes.save(
        ctx("C1", author=ALICE),
        "billing-api pods: `java.sql.SQLTransientConnectionException: Connection is not available`",
    )
    await notes.save(ctx("C1", author=BOB), "impact: billing-api pods failed invoice requests")
    asker = Requester("T1/U2", "T1", channel_id="C1")
    question = "what exception were the billing-api pods throwing on invoice requests?"
    quoted = await Recall(db, embedder).recall(asker, question, mode="keyword")
    assert "SQLTransientConnectionException" in quoted[0].text
    plain = await Recall(db, embedder, RecallConfig(answer_type_boost=1.0)).recall(
        asker, question, mode="keyword"
    )
    assert quoted[0].score / quoted[1].score > plain[0].score / plain[1].score


def test_how_long_asks_for_a_span_or_the_times_it_is_read_from() -> None:
    """ "How long were writes down?" is answered by "down about 9 min (10:13-10:22)", or by the
    two clock times the span is read from; only a span says it outright."""
    assert wanted("how long were writes down?") == "duration"
    assert wanted("when did we fail over?") == "time"
    assert wanted("wen did the cert expire?") == "time"  # as typed in a hurry
    assert wanted("how long until the cert expires?") == "time"  # when, not for how long
    assert wanted("how long ago did we restart it?") == "time"
    assert wanted("how long until it was mitigated?") == "duration"  # said in the past: a span
    assert wanted("how long before we noticed?") == "duration"
    for said in (
        "writes were down about 9 min",
        "10:13-10:22",
        "failover took 1:30",
        "lasted a few hours",
        "had it for 3 years",
        "down for ~5m",
    ):
        assert says_a_span(said) and holds("duration", said, []), said
    assert holds("duration", "paged at 02:09 UTC", []) and not says_a_span("paged at 02:09 UTC")
    for said in (
        "cart-svc 2.14.0 (deployed 09:55)",
        "500s are up",
        "failover at 10:22",
        "I am on it",  # "am" is no "a m(inute)"
        "ah ok the pool",
        "rollback scheduled for 10:30",
    ):
        assert not says_a_span(said), said


def test_what_a_verbatim_question_asks_for_and_what_holds_it() -> None:
    for q in ("What warning did Node print at start?", "what error do we get?",
              "What did the consumer pods log before they left the group?"):  # fmt: skip
        assert wanted(q) == "verbatim", q
    assert wanted("what did we decide?") is None
    assert holds("verbatim", "logs say `LeaveGroup request`", [])
    assert holds("verbatim", "the client threw TimeoutException twice", [])
    assert holds("verbatim", "curl got HTTP/1.1 429 back", [])
    assert not holds("verbatim", "the pods are failing again", [])


async def test_a_bare_acknowledgement_ranks_below_a_message_with_content(db, redactor, embedder):
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "checkout errors again?")
    await notes.save(ctx("C1", author=BOB), "checkout errors came from the payment gateway timeout")
    asker = Requester("T1/U3", "T1", channel_id="C1")
    off = RecallConfig(length_prior=0.0, neighbour_share=0.0)
    on = RecallConfig(length_prior=1.0, length_cap=8, neighbour_share=0.0)
    flat = await Recall(db, embedder, off).recall(asker, "checkout errors", mode="keyword")
    prior = await Recall(db, embedder, on).recall(asker, "checkout errors", mode="keyword")
    assert flat[0].text == "checkout errors again?"  # BM25 alone favours the short one
    assert prior[0].text.startswith("checkout errors came from")


def test_length_factor_grows_with_content_words_up_to_the_cap():
    from memory.recall.ranking import length_factor

    assert length_factor("ack", cap=8, power=0.0) == 1.0
    short = length_factor("ack, on it", cap=8, power=1.0)
    longer = length_factor("pool exhausted by recon worker sessions", cap=8, power=1.0)
    capped = length_factor(" ".join(f"word{i}" for i in range(30)), cap=8, power=1.0)
    assert short < longer < capped == 1.0


async def test_the_length_prior_never_demotes_a_short_statement(db, redactor, embedder):
    """ "root cause: expired cert" is worth its few words; only plain talk is held to length."""
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "expired cert on lb-7", kind="root_cause")
    await notes.save(ctx("C1", author=BOB), "expired cert on lb-7")
    asker = Requester("T1/U3", "T1", channel_id="C1")
    on = RecallConfig(length_prior=1.0, length_cap=16, neighbour_share=0.0)
    off = RecallConfig(length_prior=0.0, neighbour_share=0.0)
    scored = {i.kind: i.score for i in await Recall(db, embedder, on).recall(asker, "expired cert")}
    flat = {i.kind: i.score for i in await Recall(db, embedder, off).recall(asker, "expired cert")}
    assert scored["root_cause"] == pytest.approx(flat["root_cause"])
    assert scored["note"] < flat["note"]


async def test_asked_from_a_new_channel_the_answer_comes_from_the_incident_that_matches_best(
    db, redactor, embedder
):
    """From a new incident's channel nothing is "here": the best match's channel is the
    incident asked about, and another incident's look-alike ("suspend the cronjob") does not
    join the answer, not even as the best match of one part of the question."""
    notes = Notes(db, redactor, embedder)
    await notes.save(
        ctx("C1", author=ALICE),
        "recon-worker cronjob held 171 pgbouncer sessions idle in transaction",
    )
    await notes.save(ctx("C1", author=BOB), "decision: pause that job and kill its idle sessions")
    await notes.save(ctx("C2", author=BOB), "decision: suspend the cronjob")
    await notes.save(ctx("C2", author=ALICE), "nightly export failing since 02:00")
    question = "which cronjob held the pgbouncer sessions, and did we decide to suspend it?"
    far = Requester.full_member("T1/U2", "T1", channel_id="C9")
    items = await Recall(db, embedder).relevant(far, question)
    assert items and {i.channel_id for i in items} == {"C1"}
    assert "recon-worker" in items[0].text


async def test_asked_where_nothing_matches_the_best_matchs_incident_ranks_first(
    db, redactor, embedder
):
    """The focus layer on its own: from a new channel, the other notes of the best match's
    channel move above another incident's look-alike; in the asker's own channel nothing moves."""
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "recon-worker held 171 pgbouncer sessions idle")
    await notes.save(ctx("C1", author=BOB), "we paused that job and killed its sessions")
    await notes.save(
        ctx("C2", author=BOB), "pgbouncer sessions for the nightly export sat idle too"
    )
    question = "which worker held the pgbouncer sessions idle?"
    recall = Recall(db, embedder)
    far = Requester.full_member("T1/U2", "T1", channel_id="C9")
    ranked = await recall.recall(far, question, k=3)
    assert [i.channel_id for i in ranked] == ["C1", "C2", "C1"]
    assert [i.channel_id for i in recall._focused(far, ranked)] == ["C1", "C1", "C2"]
    here = Requester.full_member("T1/U2", "T1", channel_id="C2")
    mine = await recall.recall(here, question, k=3)
    assert recall._focused(here, mine) == mine


async def test_the_message_a_thread_opened_with_is_read_only_where_the_asker_may_see_it(
    db, redactor, embedder
):
    """A vague question reads its thread's first message: never from a private channel the
    asker is not in, never across teams, never a personal row."""
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("CPRIV", private=True, source_ts="1.0"), "checkout 503s since 10:02")
    await notes.save(ctx("CPUB", source_ts="2.0"), "payments latency alert firing")
    await notes.save(ctx("CPUB", scope="user", source_ts="3.0"), "my own note")
    recall = Recall(db, embedder)
    member = Requester.full_member(
        "T1/U2", "T1", channel_id="CPRIV", member_channel_ids=frozenset({"CPRIV"})
    )
    outsider = Requester.full_member("T1/U3", "T1", channel_id="CPUB")
    assert await recall.said_in(member, "CPRIV", "1.0") == "checkout 503s since 10:02"
    assert await recall.said_in(outsider, "CPRIV", "1.0") is None
    assert await recall.said_in(outsider, "CPUB", "2.0") == "payments latency alert firing"
    other_team = Requester.full_member("T2/U1", "T2", channel_id="CPUB")
    assert await recall.said_in(other_team, "CPUB", "2.0") is None
    owner = Requester.full_member("T1/U1", "T1")
    assert await recall.said_in(owner, "CPUB", "3.0") is None  # their own, but personal


async def test_a_note_is_found_by_its_message_with_an_index_seek_not_a_channel_scan(db):
    """Edits, deletions and a vague thread question look notes up by their Slack message."""
    from memory.store import notes as note_store

    for sql in (note_store._SAID_IN.format(vis="1"), note_store._FROM_MESSAGE):
        plan = await db.fetchall(
            f"EXPLAIN QUERY PLAN {sql}", {"team": "T", "channel": "C", "ts": "1"}
        )
        assert "memory_notes_message" in " ".join(str(r[3]) for r in plan), plan


async def test_this_incidents_statements_answer_a_question_that_names_only_their_kind(
    db, redactor, embedder
):
    """ "What did we decide?" shares no word with the decision; asked in the incident's channel
    it is answered by that incident's newest decision, a correction above what it corrects."""
    recall, _ = await _two_earlier_incidents(db, redactor, embedder)
    here = Requester.full_member("T1/U9", "T1", channel_id="C1")
    (first, second, *_) = await recall.relevant(here, "what did we decide?")
    assert first.text == "correction: we keep the DNS TTL at 60, not 300"
    assert second.superseded_by == first.id
    (owner, *_) = await recall.relevant(here, "who owns it?")
    assert owner.text == "AI: Bob owns the resolver dashboard"
    kafka = Requester.full_member("T1/U9", "T1", channel_id="C2")  # the other incident
    (decided, *_) = await recall.relevant(kafka, "what did we decide?")
    assert "pause the kafka consumers" in decided.text


async def test_without_the_sql_filter_this_incidents_statements_still_leave_personal_rows_out(
    db, redactor, embedder, monkeypatch
):
    """The code layer of the in-incident answer: the store's `scope <> 'user'` clause taken
    out, the owner asking in the channel still gets only the channel's action item."""
    from memory.store import notes as note_store

    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    inc = await incidents.open(ctx("C1"), title="kafka lag", channel_id="C1")
    await notes.save(ctx("C1"), "AI: Bob adds the consumer lag alert", "action", incident=inc.id)
    await notes.save(ctx(None, scope="user"), "AI: prep my Globex interview", "action")
    await db.execute("UPDATE memory_notes SET incident_id = :i", {"i": inc.id})
    monkeypatch.setattr(
        note_store, "_HEADLINE", note_store._HEADLINE.replace("AND n.scope <> 'user'", "")
    )
    owner = Requester.full_member("T1/U1", "T1", channel_id="C1")
    rows = await note_store.incident_statements(db, owner, inc.id, kinds=("action",))
    assert "user" in {r["scope"] for r in rows}
    items = await Recall(db, embedder).relevant(owner, "who is doing it?")
    assert [i.text for i in items] == ["AI: Bob adds the consumer lag alert"]


async def _kafka_disk_incident(db, redactor, embedder):  # type: ignore[no-untyped-def]
    """inc in C1 with a root cause and an action item that share no word with the questions."""
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    inc = await incidents.open(ctx("C1"), title="kafka disk", channel_id="C1")
    await notes.save(
        ctx("C1"), "rca: retention change in PR #412 merged without review", "root_cause",
        incident=inc.id,
    )  # fmt: skip
    await notes.save(ctx("C1"), "AI: ravi adds a growth-rate alert", "action", incident=inc.id)
    return Recall(db, embedder), Requester.full_member("T1/U9", "T1", channel_id="C1")


async def test_it_in_a_question_is_what_the_thread_opened_with(db, redactor, embedder):
    """ "Why did it fill up?" under a KubePersistentVolumeFillingUp alert: "fill" is the
    alert's word, so the incident's root cause answers; asked with no such opening, the
    question names something the incident's statements do not say, and nothing is shown."""
    recall, here = await _kafka_disk_incident(db, redactor, embedder)
    opening = "[FIRING:1] KubePersistentVolumeFillingUp kafka/data-kafka-2"
    (cause,) = await recall.relevant(here, "why did it fill up", thread=AskedIn("1.0", opening))
    assert cause.text.startswith("rca: retention change in PR #412")
    assert await recall.relevant(here, "why did it fill up") == []


@pytest.mark.parametrize(
    ("question", "not_said"),
    [
        ("who owns the payments service?", "AI: ravi adds"),
        ("who is doing the checkout migration?", "AI: ravi adds"),
        ("what are the action items for the payments outage?", "AI: ravi adds"),
        ("why was the backup skipped?", "rca: retention change"),
        ("why were we paged at 3am?", "rca: retention change"),
    ],
)
async def test_a_question_about_something_else_gets_none_of_the_incidents_statements(
    db, redactor, embedder, question, not_said
):
    """The action item or root cause the question's kind asks for is not shown: the question
    names a subject ("the payments service", "silenced") that neither it nor the alert says."""
    recall, here = await _kafka_disk_incident(db, redactor, embedder)
    opening = "[FIRING:1] KubePersistentVolumeFillingUp kafka/data-kafka-2"
    items = await recall.relevant(here, question, thread=AskedIn("1.0", opening))
    assert not any(i.text.startswith(not_said) for i in items), [i.text for i in items]


async def test_a_later_handover_is_ranked_beside_the_item_it_takes_over(db, redactor, embedder):
    """ "Who owns it now?": the handover names the item only by its key and shares no other
    word with the question, so it is found through the item it corrects (its share of the
    item's score), not by search."""
    notes = Notes(db, redactor, embedder)
    await notes.save(
        ctx("C1"),
        "AI-1: set idle_in_transaction_session_timeout on recon roles. owner Hamid",
        "action",
    )
    for n in range(12):
        await notes.save(
            ctx("C1"), f"follow-up on replica {n}: idle sessions are fine, its owner says", "note"
        )
    await notes.save(ctx("C1"), "fine, I'll take AI-1 myself, due 21 June", "correction")
    asker = Requester("T1/UASK", "T1", channel_id="C1")
    question = "who owns the idle_in_transaction_session_timeout follow-up now?"
    shown = [i.text for i in await Recall(db, embedder).recall(asker, question, k=3)]
    assert "fine, I'll take AI-1 myself, due 21 June" in shown
    unlent = Recall(db, embedder, RecallConfig(correction_share=0.0))
    assert "fine, I'll take AI-1 myself, due 21 June" not in [
        i.text for i in await unlent.recall(asker, question, k=3)
    ]


async def _cert_incident(db, redactor, embedder):  # type: ignore[no-untyped-def]
    """inc-1 in #inc-410-api-gw-cert: its messages never name the gateway (the channel does).
    The asker is in a new incident channel, C2, about something else."""
    clock = Clock()
    incidents = Incidents(db, clock, redactor=redactor)
    notes = Notes(db, redactor, embedder, clock=clock)
    one = await incidents.open(ctx("C1"), title="api gw cert", channel_id="C1")
    for text, kind in (
        ("cert on api.example.com expired at 02:00 UTC", "note"),
        ("cert-manager renewal job has been failing since nov 3", "note"),
        ("root cause: IAM policy change removed route53 perms from the cert-manager role",
         "root_cause"),
        ("we were hard down for ~31 min (02:00-02:31)", "note"),
        ("new cert issued, secret updated, gw pods restarted", "mitigation"),
    ):  # fmt: skip
        await notes.save(ctx("C1", author=ALICE), text, kind, incident=one.id)
    clock.now += timedelta(days=1)
    two = await incidents.open(ctx("C2"), title="grpc tls warnings", channel_id="C2")
    await notes.save(
        ctx("C2", author=BOB), "grpc clients logging x509: certificate has expired", incident=two.id
    )
    return Recall(db, embedder, clock=clock), Requester.full_member("T1/U9", "T1", channel_id="C2")


async def test_an_item_elsewhere_is_read_with_its_channels_subject(db, redactor, embedder):
    """ "How long was api-gw down?" from another channel: the note that says so names no
    gateway (its channel does), and is the answer; without the title it falls below the floor."""
    recall, asker = await _cert_incident(db, redactor, embedder)
    items = await recall.relevant(asker, "how long was api-gw down?")
    assert items and items[0].text == "we were hard down for ~31 min (02:00-02:31)"
    ranked = await recall.recall(asker, "how long was api-gw down?", k=10)
    subjects = await recall.subjects(asker, ranked)
    assert {subjects[it.id] for it in ranked if it.channel_id == "C1"} == {"api gw cert"}


async def test_every_item_is_read_with_its_own_incidents_title(db, redactor, embedder):
    """The asker's own incident's items get its title too: a past incident never gains on
    this one by words this one's channel also leaves unsaid."""
    recall, _ = await _cert_incident(db, redactor, embedder)
    here = Requester.full_member("T1/U9", "T1", channel_id="C2")
    ranked = await recall.recall(here, "x509 certificate expired", k=10)
    subjects = await recall.subjects(here, ranked)
    titles = {"C1": "api gw cert", "C2": "grpc tls warnings"}
    assert {it.channel_id for it in ranked} == {"C1", "C2"}
    assert subjects == {it.id: titles[str(it.channel_id)] for it in ranked}


async def test_last_times_cause_said_in_other_words_is_found(db, redactor, embedder):
    """ "Why did renewal fail last time?": the root cause names neither renewal nor failing,
    the note beside it does; that incident answers with its root cause (with the shipped
    floor, by the note kept; `…_when_the_floor_keeps_nothing` covers a floor that keeps none)."""
    recall, asker = await _cert_incident(db, redactor, embedder)
    items = await recall.relevant(asker, "why did renewal fail last time")
    assert items and items[0].kind == "root_cause", [i.text for i in items]
    # A question whose topic no earlier message says gets no incident's cause.
    none = await recall.relevant(asker, "why did the kafka consumers stall last time")
    assert not any(i.kind == "root_cause" for i in none), [i.text for i in none]


async def test_last_time_is_answered_from_the_earlier_incident_not_this_channel(
    db, redactor, embedder
):
    """An earlier incident answers "last time": this channel's own messages do not. With no
    earlier incident that did anything, "last time" is earlier in this one."""
    recall, asker = await _cert_incident(db, redactor, embedder)
    items = await recall.relevant(asker, "how did we fix the expired cert last time?")
    assert items and all(i.channel_id == "C1" for i in items), [i.text for i in items]
    assert items[0].kind == "mitigation"
    here = Requester.full_member("T1/U9", "T1", channel_id="C1")
    again = await recall.relevant(here, "how did we fix it last time the cert expired?")
    assert again and again[0].channel_id == "C1", [i.text for i in again]


async def test_last_times_incident_is_found_by_words_when_the_floor_keeps_nothing(
    db, redactor, embedder
):
    """With no item kept (a floor nothing passes), the best-ranked message elsewhere that says
    the question's topic still names the incident whose root cause answers."""
    from dataclasses import replace as replaced

    from memory.recall.floor import FLOORS

    _, asker = await _cert_incident(db, redactor, embedder)
    strict = {mode: replaced(f, floor=0.999) for mode, f in FLOORS.items()}
    recall = Recall(db, embedder, RecallConfig(floors=strict))
    assert await recall.relevant(asker, "why did renewal fail") == []
    items = await recall.relevant(asker, "why did renewal fail last time")
    assert items and items[0].kind == "root_cause", [i.text for i in items]


async def test_keyword_search_finds_a_note_by_the_abbreviation_it_uses(db, redactor, embedder):
    """The question says "certificate", the note "cert": the words-only search (FTS5) finds
    it, as it finds the note when the question says "cert"."""
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "cert on api.example.com expired at 02:00")
    await notes.save(ctx("C1", author=BOB), "payments pods restarted at 02:10")
    asker = Requester("T1/U2", "T1", channel_id="C1")
    for question in ("any certificate trouble?", "any cert trouble?"):
        found = await Recall(db, embedder).recall(asker, question, mode="keyword")
        assert found and found[0].text.startswith("cert on api"), question


async def test_a_duration_question_keeps_the_span_however_far_behind_the_best_item(
    db, redactor, embedder
):
    """With a ratio that keeps only the best item, "how long was api-gw down?" still keeps the
    item that says a span (it passes the floor), and leads with it; a question that asks no
    span keeps the best item alone."""
    from dataclasses import replace as replaced

    from memory.recall.floor import FLOORS

    _, asker = await _cert_incident(db, redactor, embedder)
    only_best = {mode: replaced(f, ratio=0.999) for mode, f in FLOORS.items()}
    recall = Recall(db, embedder, RecallConfig(floors=only_best))
    items = await recall.relevant(asker, "how long was api-gw down?")
    assert items and items[0].text == "we were hard down for ~31 min (02:00-02:31)"
    assert len(await recall.relevant(asker, "was api-gw down?")) == 1


async def test_a_listing_keeps_every_item_above_the_floor_however_far_behind(
    db, redactor, embedder
):
    """`/incident recall` asks for a list: with a ratio that keeps only the best item in an
    answer, the listing still shows what else passes the floor (at most a few)."""
    from dataclasses import replace as replaced

    from memory.recall.floor import FLOORS

    _, asker = await _cert_incident(db, redactor, embedder)
    only_best = {mode: replaced(f, ratio=0.999) for mode, f in FLOORS.items()}
    recall = Recall(db, embedder, RecallConfig(floors=only_best))
    assert len(await recall.relevant(asker, "expired cert")) == 1
    listed = await recall.relevant(asker, "expired cert", listing=True)
    assert 2 <= len(listed) <= FLOORS["hybrid"].most, [i.text for i in listed]


async def test_a_personal_note_never_points_last_time_at_an_incident(db, redactor, embedder):
    """The asker's own personal note says the question's words; the incident's shared messages
    do not. With no item kept, a personal note is no pointer: what it names stays private, so
    no shared answer is chosen by it."""
    from dataclasses import replace as replaced

    from memory.recall.floor import FLOORS

    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    inc = await incidents.open(ctx("C1"), title="api gw cert", channel_id="C1")
    await notes.save(ctx("C1"), "root cause: IAM policy change removed route53 perms", "root_cause")
    await notes.save(ctx(None, scope="user"), "renewal job failing since nov 3, I think")
    await db.execute("UPDATE memory_notes SET incident_id = :i", {"i": inc.id})
    await incidents.open(ctx("C2"), title="grpc tls", channel_id="C2")
    owner = Requester.full_member("T1/U1", "T1", channel_id="C2")
    strict = {mode: replaced(f, floor=0.999) for mode, f in FLOORS.items()}
    recall = Recall(db, embedder, RecallConfig(floors=strict))
    items = await recall.relevant(owner, "why did renewal fail last time")
    assert not any(i.kind == "root_cause" for i in items), [i.text for i in items]


def test_how_long_an_incident_lasted_is_said_in_time_units_not_in_rows_or_heap_sizes() -> None:
    from memory.recall.answer_type import says_how_long

    for said in ("~37 min of checkout errors", "lasted 13 minutes", "took 2h", "after 45m",
                 "(14:50-15:29)"):  # fmt: skip
        assert says_how_long(said), said
    for other in ("consumer group is 2.1M behind", "heap 512m", "2.1m rows"):
        assert not says_how_long(other), other


def test_a_report_read_whole_counts_a_percentile_but_not_a_severity_or_a_host() -> None:
    """ "sev1: cart db01 unreachable" names this incident's severity and host: an incident that
    said "declaring sev1" and "db01 disk at 91%" is not like it on those alone; "p99" is what
    was measured and counts."""
    from datetime import UTC, datetime

    from memory.recall.floor import FLOORS
    from memory.recall.recall import RecallItem, _incidents_read_whole

    def said(n: int, text: str) -> RecallItem:
        return RecallItem(n, "note", text, "channel", "inc-7", "C7", "T1/U1",
                          datetime.now(UTC), None, 1.0, similarity=0.6)  # fmt: skip

    asker = Requester.full_member("T1/U9", "T1", channel_id="C9")
    floors = (FLOORS["hybrid"], FLOORS["keyword"])
    hits = [said(1, "declaring sev1, ledger is down"), said(2, "db01 disk at 91%")]
    assert _incidents_read_whole("sev1: cart db01 unreachable", hits, {}, asker, floors) == {}
    hits = [said(1, "orders p99 at 2.4s"), said(2, "cache hit ratio dropped to 61%")]
    report = "catalog p99 jumped to 3s, cache hit ratio fell"
    assert "inc-7" in _incidents_read_whole(report, hits, {}, asker, floors)


def test_a_link_question_asks_for_a_message_with_an_address() -> None:
    assert wanted("link to the lag dashboard?") == "link"
    assert wanted("what's the bridge link?") == "link"
    assert wanted("who posted the link?") == "person"
    for network in ("any packet loss on the link?", "what's wrong with the link?",
                    "what is the status of the private link?", "whats the latency on the link"):  # fmt: skip
        assert wanted(network) != "link", network
    assert holds("link", "on it. grafana: https://grafana.example.com/d/kafka-lag", [])
    assert not holds("link", "lag draining ~40k/min, 700k behind now", [])


async def test_a_link_question_is_answered_by_the_message_that_gives_the_address(
    db, redactor, embedder
) -> None:
    """The report names the lag far more often than the message with the dashboard's address,
    which says only "grafana" and the URL: the address is what was asked for."""
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            (
                "order-events consumer lag climbing since ~08:00, 1.2M behind, lag alert firing",
                "note",
            ),
            (
                "on it. grafana: https://grafana.example.com/d/kafka-lag?var-group=order-confirm",
                "note",
            ),
            ("consumers rebalancing every ~40s, lag still growing", "note"),
            ("lag draining ~40k/min, 700k behind now", "note"),
        ],
        title="orders consumer lag",
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    ranked = await recall.recall(asker, "link to the lag dashboard?")  # the answer type's boost
    assert "https://grafana.example.com" in ranked[0].text, [r.text for r in ranked]
    found = await recall.relevant(asker, "link to the lag dashboard?")
    assert found and "https://grafana.example.com" in found[0].text, [f.text for f in found]
    # Without the ranking's boost for the answer type, the answer still leads: the floor keeps
    # the message with the address whatever its words put it behind.
    plain = Recall(db, embedder, RecallConfig(answer_type_boost=1.0))
    found = await plain.relevant(asker, "link to the lag dashboard?")
    assert found and "https://grafana.example.com" in found[0].text, [f.text for f in found]
