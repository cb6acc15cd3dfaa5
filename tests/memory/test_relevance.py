"""Answering the question asked (issue 14, items 3 and 4): each ranking layer on its own —
what a thread message states, the relevance floor, corrections superseding, and `relevant`."""

from __future__ import annotations

import numpy as np
import pytest

from evals.calibrate import Case, fit, fit_logistic, score
from memory.episodes.statements import classify, strip_label
from memory.notes.notes import Notes
from memory.recall.clauses import clauses
from memory.recall.floor import FLOORS, Features, FloorConfig, coverage
from memory.recall.recall import Recall
from memory.recall.supersede import corrects
from memory.scopes import Requester
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx, store_returning_personal_rows

ASKER = Requester("T1/UASK", "T1", channel_id="C1")


def test_a_message_is_read_as_the_statement_it_makes_with_or_without_a_label() -> None:
    assert classify("root cause: v42 raised the DB pool").kind == "root_cause"
    assert classify("turns out v42 raised the DB pool from 20 to 200").kind == "root_cause"
    assert classify("Decision: freeze deploys until Monday").kind == "decision"
    assert classify("we decided to freeze deploys").kind == "decision"
    # "AI:" opens an action item as "AI-3:" does; a command someone ran is a mitigation.
    assert classify("AI: ravi adds a growth-rate alert on kafka pvcs").kind == "action"
    # A bare "AI:" has no number to be referred to by: shown without it ("Action: AI: …" read
    # as a doubled label in digests); a numbered one keeps its id.
    assert classify("AI: ravi adds a growth-rate alert").text == "ravi adds a growth-rate alert"
    assert strip_label("AI: ravi adds a growth-rate alert") == "ravi adds a growth-rate alert"
    assert strip_label("AI-3: pin the root CA") == "AI-3: pin the root CA"
    assert strip_label("ai: do we have a runbook?") == "ai: do we have a runbook?"
    assert classify("done `kubectl -n kafka patch pvc data-kafka-2`").kind == "mitigation"
    assert classify("ran `helm rollback checkout 41`, pods cycling").kind == "mitigation"
    assert classify("we patched the ingress config, errors dropping").kind == "mitigation"
    assert classify("patched the configmap and bounced the pods").kind == "mitigation"
    for chat in (
        "ai is overhyped",
        "ai-generated summary says restart the pods",
        "AI-assisted triage flagged the db",
        "AI - is this related to the deploy?",
        "ai: do we have a runbook?",
        "running `kubectl get pods` now",  # looking is not fixing
        "ran `df -h`, disk at 91%",
        "applied `terraform plan`, no diff",
        "I'm done, `git log` shows nothing new",
        "the kernel was patched last month, not it",
        "ran `kubectl describe deploy api | grep -i restart`",  # a changing verb, not run
        "ran `git log --oneline | grep upgrade`",
    ):
        assert classify(chat).kind == "note", chat
    assert classify("rolled back to v41, errors stopped").kind == "mitigation"
    assert classify("status: resolved, monitoring for an hour").kind == "status"
    assert classify("scratch that, it's not DNS").kind == "correction"
    assert classify("what was the root cause?").kind == "note"  # a question states nothing
    assert classify("lol coffee time").kind == "note"
    # An action item's id leads: it is the item, whatever its words say ("instead of").
    item = classify("AI-3: the app pins the root CA instead of the intermediate")
    assert item.kind == "action" and item.text.startswith("AI-3:")


def test_an_action_names_its_owner_and_a_self_assigned_one_its_author() -> None:
    assert classify("action item: Bob owns the pool alert").owner == "Bob"
    assert classify("I'll write the postmortem", author="alice").owner == "alice"
    assert classify("Ngozi will open a ticket with StorCo").owner == "Ngozi"
    assert classify("It will take an hour to open the ticket").owner is None  # no person


def test_formal_phrasing_is_read_as_the_statement_it_makes() -> None:
    """Sentences a formal team writes: a decision that says what it ruled out, a change said
    as done by the team, a status call that uses the word "mitigated", a handover that opens
    with "Actually"."""
    decided = "We have decided to move master-1 off ds-07 instead of restarting etcd."
    assert classify(decided).kind == "decision"
    assert classify("roll back to v40 instead of v41").kind == "correction"
    assert classify("I have storage-vMotioned master-1 to ds-03 at 10:25").kind == "mitigation"
    assert classify("we drained node-4 and cordoned it").kind == "mitigation"
    # A passive "was migrated" tells what happened to it: the cause, not the fix.
    assert classify("The VM was live-migrated to another hypervisor at 09:40").kind == "note"
    assert classify("We consider the incident mitigated.").kind == "status"
    assert classify("we mitigated it by rolling back").kind == "mitigation"
    assert classify("Actually, Tomasz will own the StorCo ticket").kind == "correction"
    assert classify("I actually think the db is fine").kind == "note"


def test_labels_are_stripped_once_however_often_they_are_repeated() -> None:
    assert strip_label("Decision: decision: roll back") == "roll back"
    assert strip_label("*Root cause*: the pool") == "the pool"
    assert strip_label("decision:") == "decision:"  # nothing left: the text stays


def test_coverage_counts_question_words_the_item_contains_ignoring_endings() -> None:
    question = "which pgbouncer pool timeouts?"
    assert coverage(question, "PgBouncer pool timeout at 02:31") == 1.0
    assert coverage(question, "coffee time") == 0.0


def test_coverage_reads_a_short_verb_with_its_ending() -> None:
    """A five-letter prefix kept "rolled" (rolle) apart from "roll": the note that answered
    "what did we roll back?" had half its words and fell under the floor once embedded."""
    assert coverage("what did we roll back?", "rolled back payments-api to v41") == 1.0
    assert coverage("who paged the db team?", "paging the db team now") == 1.0


def test_coverage_meets_a_compound_with_its_two_words_either_way() -> None:
    assert coverage("rollback", "rolled back payments-api to v41") == 1.0
    assert coverage("did we roll back?", "rollback of payments-api done") == 1.0
    assert coverage("failover", "the primary failed over at 10:02") == 1.0
    # Two words that only sit next to each other are not the compound of something else.
    assert coverage("rollback", "we rolled the dice and went back") == 0.0
    assert coverage("rollback", "we rolled. back then it was fine") == 0.0  # a sentence apart
    for compound, apart in (("notice", "not ice"), ("another", "an other"), ("inbox", "in box")):
        assert coverage(compound, apart) == 0.0, compound  # a function word opens no compound


def test_a_phrasal_verb_is_covered_only_by_the_phrase_not_its_words_apart() -> None:
    """ "Did we fail back?": "failed over …, writes back." says "fail" with "over" and "back"
    with "writes", not failing back; "TTL back to 5 min" still says "go back" (no "go")."""
    asked = "did we fail back?"
    assert coverage(asked, "failed back to redis-sess-a at 15:40") == 1.0
    assert coverage(asked, "failed over to redis-sess-b at 10:22, writes back.") == 0.5
    assert coverage("should the ttl go back?", "TTL back to 5 min") == 2 / 3  # ttl, back
    assert coverage("was api-gw down?", "api gw cert: we were hard down for ~31 min") == 1.0
    assert coverage("was api-gw down?", "api-gw on node-3 went down at 02:00") == 1.0
    # "back" said in another phrase asked ("rolled back") covers it.
    asked = "did we fail back and roll back?"
    assert coverage(asked, "failed over to b, then rolled back the deploy") == 1.0
    assert coverage("how long were writes down?", "so writes were down about 9 min") == 1.0


def test_coverage_meets_a_long_stem_the_other_begins_but_not_a_short_one() -> None:
    """English stemming leaves config / configuration and replica / replication apart."""
    assert coverage("configuration change", "config change at 10:02") == 1.0
    assert coverage("replication lag", "replica lag is 40 s") == 1.0
    assert coverage("postgres", "postgresql max_connections hit") == 1.0
    assert coverage("checkout", "check the pool") == 0.0  # five letters: not enough


def test_the_floor_keeps_the_best_few_and_nothing_below_it() -> None:
    floor = FloorConfig(bias=0, w_sim=0, w_cov=0, w_rank=0, floor=0.3, ratio=0.5, most=2)
    assert floor.keep([0.9, 0.2, 0.8, 0.6]) == [0, 2]  # the likeliest two, at most
    assert floor.keep([0.2, 0.8, 0.9]) == [1, 2]  # ... shown in rank order
    assert floor.keep([0.8, 0.9]) == [0, 1]
    assert floor.keep([0.9, 0.4]) == [0]  # 0.4 is under half the best
    assert floor.keep([0.25, 0.2]) == []  # nothing reaches the floor
    assert floor.keep([]) == []


def test_fitted_floors_rank_a_close_covering_first_item_above_an_unrelated_one() -> None:
    for config in FLOORS.values():
        close = config.probability(Features(similarity=0.7, coverage=0.8, rank=1.0))
        far = config.probability(Features(similarity=0.05, coverage=0.0, rank=0.1))
        assert close > config.floor > far


def test_logistic_fit_separates_what_it_is_shown() -> None:
    x = np.array([[0.9, 0.8, 1.0], [0.8, 0.9, 0.5], [0.1, 0.0, 0.2], [0.2, 0.1, 0.3]] * 5)
    y = np.array([1.0, 1.0, 0.0, 0.0] * 5)
    w = fit_logistic(x, y)
    z = np.hstack([np.ones((len(x), 1)), x]) @ w
    assert (z[y == 1] > 0).all() and (z[y == 0] < 0).all()


def test_calibration_picks_cut_offs_that_answer_and_abstain() -> None:
    good = Features(0.8, 0.9, 1.0)
    bad = Features(0.1, 0.0, 0.5)
    cases = [
        Case(0, True, (good, bad), (True, False), 1),
        Case(1, True, (good, bad), (True, False), 1),
        Case(0, False, (bad, bad), (False, False), 0),
        Case(1, False, (bad, bad), (False, False), 0),
    ]
    config = fit(cases)
    figures = score(config, cases)
    assert figures["recall"] == 1.0 and figures["precision"] == 1.0
    assert figures["nothing_said"] == 1.0


def test_a_later_correction_supersedes_only_what_it_is_about() -> None:
    assert corrects("looks like DNS for payments-api", 10, "scratch that, it's not DNS", 12)
    assert not corrects("looks like DNS for payments-api", 10, "scratch that, disk is fine", 12)
    assert not corrects("looks like DNS", 12, "scratch that, not DNS", 10)  # earlier: no
    # Far apart, one shared word is not enough; two are.
    assert not corrects("rollback target v40", 1, "correction: checkout owner is Ann", 90)
    assert corrects("rollback target is v40", 1, "correction: rollback target is v39", 90)
    # Numbers and words that only say when are not a shared subject.
    assert not corrects(
        "request volume is flat, 1.1k rps, same as last Tuesday night",
        1,
        "I'll take AI-1 over from Hamid, I'll do it in the Tuesday window",
        90,
    )


def test_naming_the_same_item_links_a_correction_however_late_and_another_item_never() -> None:
    item = "AI-1: set idle_in_transaction_session_timeout on recon roles. owner Hamid"
    assert corrects(item, 1, "fine, I'll take AI-1 myself, due 21 June", 90, earlier_kind="action")
    # AI-2 is not AI-1: the "ai" both keys begin with is no shared word, even close by.
    other = "AI-2: alert on pgbouncer cl_waiting above 50. owner Hamid"
    assert not corrects(other, 1, "fine, I'll take AI-1 myself, due 21 June", 2)
    # Nor does a handover of another item that shares a word with it (the new owner's name).
    handover = "I won't make AI-3 before Friday, handing off AI-3 to Tom"
    docs = "AI-2 document that master volumes stay on ceph-masters-1 — @tom"
    assert not corrects(docs, 1, handover, 2, earlier_kind="action")
    assert corrects("AI-3 etcd latency check — @marta", 1, handover, 2, earlier_kind="action")
    # A correction of a wrong number, or an owner change of the same subject, still corrects.
    assert corrects("fix is in #2219, rolling it out", 1, "scratch that, the fix is in #2231", 2)
    assert corrects(
        "Bob owns the CI check (OPS-12)", 1, "scratch that, Dan owns the CI check, OPS-15", 2
    )
    assert corrects("PR #2219 adds backoff to the client", 1, "correction: #2219 was reverted", 90)
    # A key typed in lower case still names the item; severities and ciphers name no item.
    assert corrects(item, 1, "fine, i'll take ai-1 myself", 90, earlier_kind="action")
    sev = "AI-2: alert on SEV-1 paging gaps. owner Ola"
    assert not corrects(sev, 1, "correction: this is SEV-1 not SEV-2", 90)


def test_taking_over_an_item_by_its_id_is_a_handover() -> None:
    for said in (
        "fine, I'll take AI-1 myself, due 21 June",
        "sure, I'll take AI-3 over, due 27 Sept",
        "I'll take OPS-12 from Ben, it's close to the refresher work anyway",
    ):
        assert classify(said).kind == "correction", said
    assert classify("I'll take AI-2 today").kind == "action"  # an owner, not a new one
    # A list announced is no item; an agreement is no decision.
    assert classify("postmortem action items for the search latency incident").kind == "note"
    assert classify("ok, agreed").kind == "note"
    assert classify("agreed, ship v41 tonight").kind == "decision"
    # Chat drops the "I" of a change reported as done; a passive one tells what happened.
    assert classify("bumped the cpu limit 2 -> 4 on search-api at 14:10").kind == "mitigation"
    assert classify("master-1 was live-migrated at 09:40").kind == "note"
    # A state reported with a verb that can also name a change is not one.
    for state in (
        "Increased error rates on checkout since 10:02",
        "moved to #inc-2481, follow there",
        "blocked on db team approval",
        "raised this with the db team",
        "taking node-4 from the pool",  # a host, not an item someone owned
    ):
        assert classify(state).kind == "note", state
    assert classify("fine, i'll take ai-1 myself").kind == "correction"
    assert classify("action item for bob: fix the alert").kind == "action"
    assert classify("follow up for the alert: add runbook link").kind == "action"
    assert classify("rollback approved").kind == "decision"


async def test_relevant_leads_with_the_correction_and_marks_the_old_statement(
    db, redactor, embedder
) -> None:
    notes = Notes(db, redactor, embedder)
    threads = Threads(db, redactor, notes=notes)
    from memory.incidents import Incidents

    inc = await Incidents(db, redactor=redactor).open(
        ctx("C1", author=ALICE), title="checkout 503s", channel_id="C1"
    )
    lines = [
        (ALICE, "1700000001.000100", "decision: roll back checkout to v40"),
        (BOB, "1700000002.000100", "payments side is healthy"),
        (ALICE, "1700000003.000100", "scratch that, roll back checkout to v39 instead of v40"),
    ]
    for author, ts, text in lines:
        await threads.capture(
            ctx("C1", author=author), ts=ts, thread_ts=None, text=text, incident=inc.id
        )
    items = await Recall(db, embedder).relevant(ASKER, "which version do we roll checkout back to?")
    assert "v39" in items[0].text and items[0].corrects is not None
    old = next(i for i in items if "v40" in i.text and "v39" not in i.text)
    assert old.superseded_by == items[0].id
    assert items[0].author_name == "alice" and items[0].permalink


async def test_relevant_says_nothing_for_an_unrelated_question(db, redactor, embedder) -> None:
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1"), "root cause: v42 raised the DB pool from 20 to 200", "root_cause")
    await notes.save(ctx("C1"), "mitigation: rolled back to v41", "mitigation")
    recall = Recall(db, embedder)
    assert await recall.relevant(ASKER, "is there anything about payments fraud?") == []
    found = await recall.relevant(ASKER, "what was the root cause?")
    assert found and "v42" in found[0].text


async def test_an_edited_message_replaces_its_note_and_a_deleted_one_removes_it(
    db, redactor, embedder
) -> None:
    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    await threads.capture(
        ctx("C1", author=ALICE, source_ts="1700000001.000100"),
        ts="1700000001.000100",
        thread_ts=None,
        text="root cause: expired TLS cert on the edge",
        incident=None,
    )
    assert await db.scalar("SELECT count(*) FROM memory_notes") == 0  # no incident: not noted
    await threads.capture(
        ctx("C2", author=ALICE),
        ts="1700000002.000100",
        thread_ts=None,
        text="root cause: expired TLS cert on the edge",
        incident=await _incident(db, redactor, "C2"),
    )
    assert await db.scalar("SELECT kind FROM memory_notes") == "root_cause"
    await threads.edit("T1", "C2", "1700000002.000100", "root cause: DNS TTL too long")
    texts = [r[0] for r in await db.fetchall("SELECT text FROM memory_notes")]
    assert texts == ["root cause: DNS TTL too long"]
    await threads.delete("T1", "C2", "1700000002.000100")
    assert await db.scalar("SELECT count(*) FROM memory_notes") == 0


async def _incident(db, redactor, channel: str) -> str:
    from memory.incidents import Incidents

    inc = await Incidents(db, redactor=redactor).open(
        ctx(channel, author=ALICE), title="edge errors", channel_id=channel
    )
    return inc.id


def test_a_correction_naming_a_new_owner_corrects_the_action_not_a_decision() -> None:
    """ "scratch that, Dan owns the CI check" shares a word with "roll back checkout…" (their
    stems meet), but a new owner is news about an action item, not about the rollback."""
    from memory.recall.supersede import corrects

    fix = "scratch that, Dan owns the CI check, Bob is out next week"
    decision = "roll back checkout-api to v41, no forward fix tonight"
    action = "Bob owns adding a CI check on pool size vs max_connections"
    assert not corrects(decision, 1, fix, 3, earlier_kind="decision")
    assert corrects(action, 2, fix, 3, earlier_kind="action")
    assert corrects(decision, 1, "scratch that, roll back checkout to v40 instead", 3,
                    earlier_kind="decision")  # fmt: skip
    # A plain note is an item to hand over only when it names who owns it.
    taken = "Sure, I'll take the renewal job fix over."
    assert not corrects("the renewal job fix is failing since 12 Nov", 1, taken, 2,
                        earlier_kind="note")  # fmt: skip
    assert corrects("Cyrus owns the renewal job fix", 1, taken, 2, earlier_kind="note")


def test_a_question_that_asks_two_things_is_read_as_its_parts() -> None:
    assert clauses("What was the DNS theory based on, and why was it dropped?") == [
        "What was the DNS theory based on",
        "why was it dropped",
    ]
    assert clauses("is it down? who is on call?") == ["is it down", "who is on call"]
    # "and" joining two things asked about, not two questions: one part.
    assert clauses("roll back and restart the pods") == ["roll back and restart the pods"]
    assert clauses("who owns the CI check?") == ["who owns the CI check?"]
    many = "is it down? who is on call? what broke? where is the runbook? why did it page?"
    assert clauses(many) == ["is it down", "who is on call", "what broke"]  # the first three
    spaced = "a" + " " * 40_000 + "b?"  # Slack keeps whitespace: a run of it is no part
    assert clauses(spaced) == [spaced]


async def test_each_part_of_a_two_part_question_brings_the_note_that_answers_it(
    db, redactor, embedder
) -> None:
    """Driven as a person: "what did we roll back and who is on the db?" showed only the
    rollback; the note naming who is on the database stayed under the floor."""
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "rolled back payments-api to v41 at 10:12")
    await notes.save(ctx("C1", author=BOB), "paged the db team, Carol is on it")
    await notes.save(ctx("C1", author=BOB), "cdn cache purged for the static bundle")
    recall = Recall(db, embedder)
    both = await recall.relevant(ASKER, "what did we roll back and who is on the db?")
    assert [i.text for i in both] == [
        "rolled back payments-api to v41 at 10:12",
        "paged the db team, Carol is on it",
    ]
    one = await recall.relevant(ASKER, "what did we roll back?")
    assert [i.text for i in one] == ["rolled back payments-api to v41 at 10:12"]


async def _personal_correction(db, redactor, embedder) -> Recall:
    """A shared decision, then the asker's own personal note correcting it."""
    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1", author=ALICE), "decision: roll back checkout to v40", "decision")
    await notes.save(
        ctx("C1", scope="user", user="UASK"),
        "scratch that, roll back checkout to v38 instead of v40",
        "correction",
    )
    return Recall(db, embedder)


async def test_a_personal_correction_is_never_read_as_superseding_a_shared_statement(
    db, redactor, embedder
) -> None:
    """SQL layer: the corrections query returns shared rows only, even to the note's owner."""
    from memory.store import notes as note_store

    await _personal_correction(db, redactor, embedder)
    rows = await note_store.later_corrections(db, ASKER, channel_id="C1", after_id=0, limit=50)
    assert rows == []
    items = await Recall(db, embedder).relevant(ASKER, "which version do we roll checkout to?")
    shared = next(i for i in items if i.scope == "channel")
    assert shared.superseded_by is None


async def test_a_personal_correction_the_store_returned_still_supersedes_nothing_shared(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the store to return a personal correction, recall drops it."""
    from memory.store import notes as note_store

    recall = await _personal_correction(db, redactor, embedder)
    unfiltered = await store_returning_personal_rows(db)
    monkeypatch.setattr(note_store, "later_corrections", unfiltered)
    items = await recall.relevant(ASKER, "which version do we roll checkout to?")
    assert all(i.superseded_by is None for i in items if i.scope == "channel")
    assert not any(i.corrects for i in items)


async def test_a_kept_correction_brings_the_item_it_corrects_under_it(
    db, redactor, embedder
) -> None:
    """Only the handover passes a strict floor; it says who owns AI-1, not what AI-1 is, so the
    item it takes over is shown under it, marked superseded."""
    from dataclasses import replace as with_

    from memory.recall.recall import RecallConfig

    notes = Notes(db, redactor, embedder)
    await notes.save(ctx("C1"), "AI-1: move the synonyms rebuild to 03:00 UTC. owner Raj", "action")
    for n in range(6):
        await notes.save(ctx("C1"), f"timeline comment {n} fixed in the doc", "note")
    await notes.save(ctx("C1"), "sure, I'll take AI-1 over, due 20 Nov", "correction")
    strict = {m: with_(f, ratio=0.999) for m, f in FLOORS.items()}
    recall = Recall(db, embedder, RecallConfig(floors=strict))
    ranked = await recall.recall(ASKER, "who owns AI-1 now?", k=10)
    assert ranked[0].text.startswith("sure, I'll take AI-1 over")  # the floor keeps it alone
    items = await recall.relevant(ASKER, "who owns AI-1 now?")
    assert [i.text for i in items] == [
        "sure, I'll take AI-1 over, due 20 Nov",
        "AI-1: move the synonyms rebuild to 03:00 UTC. owner Raj",
    ]
    assert items[1].superseded_by == items[0].id and items[0].corrects == items[1].id


async def test_a_kept_correction_brings_only_what_it_plainly_corrects(db, embedder) -> None:
    """The rollback correction shares "payments bug" with the root cause and "roll back … v40"
    with the decision it corrects: the decision comes under it (its first clause says so),
    never the root cause; a pager handover sharing only "checkout" brings nothing."""
    from datetime import UTC, datetime

    from memory.recall.recall import RecallItem

    def item(n: int, kind: str, text: str) -> RecallItem:
        return RecallItem(n, kind, text, "channel", None, "C1", "T1/U1", datetime.now(UTC),
                          None, 1.0 / n)  # fmt: skip

    cause = item(1, "root_cause", "root cause: the 10:00 deploy doubled checkout cpu requests")
    bug = item(2, "root_cause", "root cause: payments client bug, retries never back off")
    rollback = item(3, "decision", "decision: roll back checkout to v40")
    fix = item(4, "correction", "scratch that, roll back to v39 instead, v40 has the payments bug")
    pager = item(5, "correction", "actually Raj had the checkout pager before Ola took over")
    recall = Recall(db, embedder)
    ranked = [fix, bug, cause, rollback, pager]
    assert [i.text for i in await recall._with_what_they_correct(ASKER, [fix], ranked)] == [
        fix.text,
        rollback.text,
    ]
    assert await recall._with_what_they_correct(ASKER, [pager], ranked) == [pager]


async def test_a_correction_supersedes_only_the_shown_item_it_says_most_about(
    db, redactor, embedder
) -> None:
    """Both shown items share words with the correction; only the rollback decision its first
    clause names is marked superseded, the payments root cause stays as it was."""
    notes = Notes(db, redactor, embedder)
    await notes.save(
        ctx("C1"), "root cause: payments client bug, retries never back off", "root_cause"
    )
    await notes.save(ctx("C1"), "decision: roll back checkout to v40", "decision")
    await notes.save(
        ctx("C1"),
        "scratch that, roll back to v39 instead, v40 has the payments bug too",
        "correction",
    )
    recall = Recall(db, embedder)
    found = await recall.recall(ASKER, "payments bug, roll back checkout to v40", k=10)
    shown = [i for i in found if i.kind != "correction"]
    assert {i.kind for i in shown} == {"root_cause", "decision"}
    items = await recall._with_corrections(ASKER, shown)
    superseded = [i.text for i in items if i.superseded_by]
    assert superseded == ["decision: roll back checkout to v40"]
    assert items[0].text.startswith("scratch that") or items[1].text.startswith("scratch that")


async def _thread_of(db, redactor, embedder, lines: list[tuple[str, str]]) -> Recall:
    """`lines` (author, text) said in one incident's channel C1, a second apart."""
    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    inc = await _incident(db, redactor, "C1")
    for n, (author, text) in enumerate(lines, start=1):
        ts = f"17000000{n:02d}.000100"
        await threads.capture(
            ctx("C1", author=author), ts=ts, thread_ts=None, text=text, incident=inc
        )
    return Recall(db, embedder)


async def _consumer_incident(db, redactor, embedder) -> Recall:
    return await _thread_of(
        db,
        redactor,
        embedder,
        [
            (ALICE, "every consumer is stuck on the same partition, p7"),
            (BOB, "checked: the live-blog polls are cached at the edge, not it"),
            (BOB, "root cause: the feed cache key expired at the edge on p7"),
            (ALICE, "decision: skip the bad offset on p7, not a full replay"),
            (BOB, "mitigation: restarted the consumers reading p7"),
        ],
    )


async def test_a_fix_question_is_answered_by_the_decision_bridged_from_the_report(
    db, redactor, embedder
) -> None:
    recall = await _consumer_incident(db, redactor, embedder)
    fixed = await recall.relevant(ASKER, "how did we fix the stuck partition?")
    assert fixed[0].kind in ("decision", "mitigation") and "p7" in fixed[0].text, fixed
    # A cause is no fix: the message that answers the "why" is not swapped for the root cause.
    why = await recall.relevant(ASKER, "why was the live-blog ruled out?")
    assert "live-blog polls are cached" in why[0].text, why
    # A best item that already says what was chosen is the answer, not a bridge to another.
    instead = await recall.relevant(ASKER, "how did we mitigate it instead of a full replay?")
    assert "skip the bad offset" in instead[0].text, instead


async def test_a_bridge_is_made_by_what_the_report_says_not_by_its_numbers(
    db, redactor, embedder
) -> None:
    recall = await _thread_of(
        db,
        redactor,
        embedder,
        [
            (ALICE, "dns lookups for payments-api time out on every node, 2%"),
            (BOB, "decision: restart coredns on each node"),
            (ALICE, "decision: postpone the 10:30 search deploy, 2 approvers out"),
        ],
    )
    fixed = await recall.relevant(ASKER, "how did we fix the payments-api dns?")
    assert "restart coredns" in fixed[0].text, fixed


async def test_a_personal_decision_the_store_returned_is_never_bridged_in(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer of the bridge: were the incident-statements query to return the asker's own
    decision (its SQL keeps personal rows out), the shared answer still never leads with it."""
    from memory.store import notes as note_store

    recall = await _thread_of(
        db, redactor, embedder, [(ALICE, "every consumer is stuck on the same partition, p7")]
    )
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user", user="UASK"), "decision: skip the bad offset on p7", "decision"
    )
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    fixed = await recall.relevant(ASKER, "how did we fix the stuck partition?")
    assert fixed and all(i.scope != "user" for i in fixed), fixed


def test_coverage_ignores_the_how_long_frame_of_a_question() -> None:
    """ "How long were writes down?" is about writes being down: "long", and the "take" of
    "how long did it take", are what kind of answer is asked for, not words it must hold."""
    assert coverage("how long were writes down?", "so writes were down about 9 min") == 1.0
    assert coverage("how long did the failover take?", "failover took 1:30") == 1.0
    assert coverage("did the failover take long?", "failover took 1:30") < 1.0  # no frame
    assert coverage("how many pods restarted?", "pods restarted 40 times") == 1.0
    # "down" is what an outage question is about, not a function word.
    assert coverage("how long were we down", "we were hard down for ~31 min") == 1.0
    assert coverage("whats the status", "status: resolved 02:50") == 1.0  # chat spelling


@pytest.mark.parametrize(
    "described",
    [
        "eviction policy is allkeys-lru instead of volatile-lru, so it is evicting live keys",
        "it purges * instead of the changed paths",
        "the job was using the old key instead of the new one",
        "this restarts the pod instead of draining it",
    ],
)
def test_instead_of_in_what_something_is_or_does_corrects_nothing(described: str) -> None:
    """A finding said with "instead of" is no correction: marking an earlier message
    "superseded" by it would hide what people said."""
    assert classify(described).kind != "correction"
    assert classify("go with redis-b instead of redis-c").kind == "correction"
    # The clause that says what to do instead is read, not the one owning up before it.
    assert classify("that was a typo, use db-2 instead of db-3").kind == "correction"
    assert classify("the version was wrong: roll back to v40 instead of v41").kind == "correction"


async def test_how_long_is_answered_first_by_the_item_that_says_the_span(
    db, redactor, embedder
) -> None:
    """ "How long were writes down?": the message saying "about 9 min (10:13-10:22)" leads,
    not the root cause that shares "writes" and says when the bad deploy went out."""
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            (
                "cart-svc 2.14.0 (deployed 09:55) writes carts into the session db without a TTL",
                "root_cause",
            ),
            ("failed over to redis-sess-b at 10:22, writes back", "mitigation"),
            ("so writes were down about 9 min (10:13-10:22)", "note"),
        ],
        title="checkout logouts",
    )
    items = await recall.relevant(ASKER, "how long were writes down?")
    assert items and items[0].text == "so writes were down about 9 min (10:13-10:22)", [
        i.text for i in items
    ]


async def test_when_did_we_fail_over_last_time_is_answered_from_the_earlier_incident(
    db, redactor, embedder
) -> None:
    """Asked from the next incident's channel: "fail" is what it is about, "last time" points
    back, and the earlier incident's failover answers."""
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("sessions dropped on checkout, redis-sess-a at maxmemory", "note"),
            ("failed over to redis-sess-b at 10:22, writes back", "mitigation"),
            ("root cause: cart-svc writes carts without a TTL", "root_cause"),
        ],
        title="checkout logouts",
    )
    later = Requester.full_member("T1/UASK", "T1", channel_id="C2")
    items = await recall.relevant(later, "when did we fail over last time?")
    assert items and items[0].text == "failed over to redis-sess-b at 10:22, writes back"


def test_a_question_asking_for_a_kind_of_statement_is_answered_in_part_by_its_kind() -> None:
    """ "Who owns the pgbouncer change?" asks for an action item: one covers its "owns" (an
    action names its owner) where the same words said as plain talk do not; "what's the rc?"
    asks for a root cause."""
    from datetime import UTC, datetime

    from memory.recall.recall import RecallItem, features

    def item(kind: str, text: str) -> RecallItem:
        return RecallItem(1, kind, text, "channel", None, "C1", "T1/U1", datetime.now(UTC),
                          None, 1.0)  # fmt: skip

    said = "bo to switch pgbouncer to transaction pooling"
    asked = "who owns the pgbouncer change?"
    assert features(asked, item("action", said), 0).coverage == 2 / 3
    assert features(asked, item("note", said), 0).coverage == 1 / 3
    rc = "32 workers x 12 pods wanted 768 conns"
    assert features("what's the rc?", item("root_cause", rc), 0).coverage == 1.0
    assert features("what's the rc?", item("note", rc), 0).coverage == 0.0


async def test_of_the_kept_items_the_one_that_says_all_that_is_asked_leads(
    db, redactor, embedder
) -> None:
    """ "Did we fail back?": "failed back to redis-sess-a" says it; "failed over …, writes back"
    only shares its words, however search ranks the two."""
    notes = Notes(db, redactor, embedder)
    over = "failed over to redis-sess-b at 10:22, writes back. failover took 1:30, back soon"
    back = "failed back to redis-sess-a at 15:40 after flushing the cart keys"
    await notes.save(ctx("C1", author=BOB), over, "mitigation")
    await notes.save(ctx("C1", author=ALICE), back, "mitigation")
    found = await Recall(db, embedder).relevant(ASKER, "did we fail back?")
    assert [i.text for i in found][:1] == [back], [i.text for i in found]
