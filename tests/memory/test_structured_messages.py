"""A message dressed up as chat does (issue 14, item 3): list markers, *bold* labels and emoji
say nothing; a structured update states each of its lines; "RC?", a typo in a kind word, "whos
doing" and "open action items" ask what they plainly ask."""

from __future__ import annotations

import pytest

from memory.episodes.statements import (
    Statement,
    classify,
    statement_parts,
    statements_of,
    strip_label,
    unmarked,
    without_correction_cue,
)
from memory.notes.notes import Notes
from memory.recall.earlier import asked_kinds, asks_what_happened, respelled, topic_words
from memory.recall.open_items import asks_open_items, done_keys
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx, store_returning_personal_rows

ASKER = Requester("T1/UASK", "T1", channel_id="C1")

UPDATE = (
    "*Update 10:05*\n"
    "• Cause: ceph-ssd-2 is shared with logging, too slow for etcd\n"
    "• Decision: move master volumes back to `ceph-masters-1`, one at a time\n"
    "• Next update 10:45"
)
FOLLOW_UPS = (
    "*Postmortem follow-ups* :memo:\n"
    "1. AI-1 alert on etcd fsync p99 > 50ms for 10m — @priya\n"
    "2. AI-2 document that master volumes stay on ceph-masters-1 — @tom\n"
    "3. AI-3 storage migrations need an etcd latency check — @marta"
)


def test_list_markers_emphasis_and_emoji_say_nothing_and_code_is_kept() -> None:
    assert unmarked("*Status: mitigated* 11:25. Thanks all :pray:") == (
        "Status: mitigated 11:25. Thanks all"
    )
    assert classify("*Status: mitigated* 11:25").kind == "status"
    assert classify("• Cause: the pool is shared with logging").kind == "root_cause"
    assert classify("- _Decision:_ roll back").kind == "decision"
    assert strip_label("*Status: mitigated* 11:25 :pray:") == "mitigated 11:25"
    # Code keeps its characters: `*` and `_` in a span or a fenced block are not emphasis.
    assert unmarked("set `rate(x[5m])*100` and *ship*") == "set `rate(x[5m])*100` and ship"
    fenced = "ran\n```\nkubectl scale x*2 --replicas=_3_\n```\nthen *waited*"
    assert unmarked(fenced) == "ran\n```\nkubectl scale x*2 --replicas=_3_\n```\nthen waited"
    assert "default_pool_size" in unmarked("raised `default_pool_size` and default_pool_size")
    # Clock times, log lines, paths and globs are no emoji nor emphasis.
    for kept in (
        "roll back at 10:05:30 UTC",
        "ERROR:root:pool exhausted",
        "~/.kube/config",
        "*.example.com",
        "p99 ~3.8s",
        "__init__.py",
        "_JAVA_OPTIONS",
    ):
        assert strip_label(f"Decision: {kept}") == kept, kept


def test_a_list_heading_is_no_item_and_a_signed_item_names_its_owner() -> None:
    for heading in ("*Postmortem follow-ups* :memo:", "Action items:", "*Follow-ups*"):
        assert classify(heading).kind == "note", heading
    item = classify("1. AI-1 alert on etcd fsync p99 > 50ms for 10m — @priya")
    assert item.kind == "action" and item.owner == "priya"
    assert classify("AI-2: rotate the keys (<@U123>)").owner == "<@U123>"
    assert classify("action items for bob").kind == "action"  # names its owner, no heading
    for item in (
        "opened INFRA-552 as a follow-up",
        "we need a follow-up",
        "add it as an action item",
    ):
        assert classify(item).kind == "action", item  # a line ending so is no heading


def test_a_structured_update_states_each_of_its_lines() -> None:
    parts = statement_parts(UPDATE)
    assert [classify(p).kind for p in parts] == ["note", "root_cause", "decision", "note"]
    assert parts[0] == "*Update 10:05*" and parts[3] == "Next update 10:45"
    assert parts[1] == "Cause: ceph-ssd-2 is shared with logging, too slow for etcd"
    items = statement_parts(FOLLOW_UPS)
    assert [classify(p).kind for p in items] == ["note", "action", "action", "action"]
    assert items[1].startswith("AI-1 alert")


@pytest.mark.parametrize(
    "message",
    [
        "we rolled back at 10:02.\nerrors are dropping now.",  # prose over two lines
        ":rotating_light: *IC: Marta* | comms: Priya\nImpact: API calls take 3-5s",  # no list
        "fsync p99 ~450ms\n```\nhistogram_quantile(0.99, x)\n```",  # a line and its code
        "• looking at it\n• still looking",  # a list of talk states nothing
        "root cause: the cert expired",
        "Options:\n1. roll back\n2. fail over to us-west\n3. wait it out",  # put up to discuss
        "• roll back\n• fail over to us-west\nthoughts?",
        "Decision: roll back api\nOwner: @bob",  # a field stays with its line
    ],
)
def test_any_other_message_is_one_statement_whole(message: str) -> None:
    assert statement_parts(message) == [message.strip()]


def test_talk_between_statements_stays_where_it_was_said() -> None:
    parts = statement_parts("ok so\n- we restarted the db\n- then it recovered\n- no idea why")
    assert parts == ["ok so", "we restarted the db", "then it recovered", "no idea why"]


def test_handing_an_item_over_by_its_key_is_a_correction_in_more_words() -> None:
    for said in (
        "yep, AI-1 is mine now",
        "AI-1 is now mine",
        "I can take #2219",
        "#2219 is mine now",
        "AI-3 is on me now",
    ):
        assert classify(said, author="sam").kind == "correction", said
        assert classify(said, author="sam").owner == "sam", said
    for talk in ("let me grab INC-1234 details", "I can take CPU-2 offline", "let me take #2 off"):
        assert classify(talk).kind == "note", talk
    assert classify("I'll take AI-2 today").kind == "action"  # its first owner
    assert classify("AI-1 is mine").kind == "action"


def test_giving_an_item_to_someone_is_a_correction_that_names_the_new_owner() -> None:
    for said, owner in (
        ("I won't make AI-3 before Friday, handing off AI-3 to Tom", "Tom"),
        ("handing AI-2 over to @ana", "ana"),
        ("ownership of AI-1 moves to Sam", "Sam"),
        ("Ana is taking AI-2", "Ana"),
        ("@sam please take AI-1", "sam"),
        ("AI-3 handed off to Tom", "Tom"),
        ("handover: Sam has AI-1 now", "Sam"),
        ("hand off AI-1 to me", "marta"),
        # Chat spelling: names in lower case, other verbs that give an item.
        ("handing off ai-3 to tom", "tom"),
        ("tom is taking AI-3", "tom"),
        ("passing AI-3 to Tom", "Tom"),
        ("assigning AI-2 to priya", "priya"),
        ("gave #2219 to Dana", "Dana"),
        ("AI-4 passed along to kim", "kim"),
        ("<@U123> pls take AI-1", "<@U123>"),
        ("AI-1 -> @ana", "ana"),  # an arrow to a mention, not an item labelled "AI-1 -"
        ("AI-1 handing off to raj, I'm out tomorrow", "raj"),  # the key first, as a subject
    ):
        assert classify(said, author="marta") == Statement("correction", said, owner), said
    # A shift handover names no item; an item sent to a place is given to no one.
    assert classify("handing over to Tom for the night shift").kind == "note"
    assert classify("AI-1 goes to the backlog").owner is None
    assert classify("ownership of AI-1 goes to the backlog").owner is None  # no "ship"
    assert classify("deploy is taking AI-3 down").owner is None
    assert classify("AI-3 -> done").owner is None  # only a mention after an arrow is a person
    for nobody in ("hand AI-3 to whoever is on call tonight", "pass AI-3 to next shift"):
        assert classify(nobody).owner is None, nobody
    for talk in (
        "rolled back #2219, handing over to EU on-call",
        "INC-1234: failing over to Frankfurt now",
        "Nobody is taking AI-2 yet",
        "@here please take AI-1",
        "Tom now has AI-1 context if you need it",
        "It is taking #2219 forever to build",
        "the deploy is taking AI-3 down with it",
        "who is taking AI-3?",
        "handing AI-3 to the db team",
        # A PR, ticket or change moves to places; only an action item goes to a lower-case name.
        "canary is picking up PR-4512 now",
        "prod has PR-4512 now",
        "fyi: staging has #4512 now",
        "pipeline is taking PR-4512 for a spin",
        "passed #4512 to ci",
        "CHG-881 passed to CAB",
        "assigned INC-4512 to sev2",
    ):
        assert classify(talk).kind != "correction", talk


def test_asking_to_hear_of_an_item_is_no_new_item() -> None:
    for said in ("ping me when AI-1 is merged so I can link it", "let me know once AI-2 lands"):
        assert classify(said).kind == "note", said
    # An item's own line, a labelled one and one that names its owner stay items.
    assert classify("AI-4: ping me when the dashboards are in").kind == "action"
    assert classify("TODO: let me know when AI-2 lands").kind == "action"
    assert classify("I'll own AI-5 and let you know", author="sam").kind == "action"
    # Only a line that opens with the request: an item that asks for a word back is an item.
    assert classify("AI-5 add alert on queue depth, let me know if you want to pair").kind == (
        "action"
    )
    assert classify("we need a ticket to fix the retry storm, lmk if you disagree").kind == "action"


def test_shorthand_and_a_slip_of_the_keyboard_ask_for_the_kind_they_mean() -> None:
    assert asked_kinds("RC?") == ("root_cause",)
    # Chat's lower case asks it as the question's last word or what it is of.
    for asked in (
        "what's the rc?",
        "whats the rc",
        "what is the rc for inc-601?",
        "hey, what's the rc?",
        "rc?",
    ):
        assert asked_kinds(asked) == ("root_cause",), asked
    for candidate in (
        "what was the rc2 build?",
        "is RC-1 out yet?",
        "did the RC build pass?",
        "is the rc out?",
        "what's the rc build number?",
        "did we ship the rc?",
        "is the rc for 2.3 ready?",
        "when do we cut the rc?",
        "who signs off the rc?",
    ):
        assert "root_cause" not in asked_kinds(candidate), candidate  # a release candidate
    assert asked_kinds("what was the root casue of the etcd incident?") == ("root_cause",)
    assert topic_words("what was the root casue of the etcd incident?") == {"etcd"}
    assert asked_kinds("what did we decied?") == ("decision",)
    assert asked_kinds("any mitgation yet?") == ("mitigation",)
    # Words one slip away from a kind word that are words of their own stay as they are.
    for word in ("cases", "states", "stats", "nation", "acting", "motivation"):
        assert respelled(word) == word, word
    assert asked_kinds("whos doing the fsync alert?") == ("action",)
    assert asked_kinds("who's taking the cron move?") == ("action",)
    # owners asked in other words; the words that ask are no topic
    assert asked_kinds("who is on the hook for the rebuild lock work?") == ("action",)
    assert topic_words("who is on the hook for the circuit breaker?") == {"circuit", "breaker"}
    assert asked_kinds("who is on call?") == ()  # a rota, not an item
    assert asked_kinds("who's handling the rollback?") == ("action",)
    assert asked_kinds("who was assigned the postmortem?") == ("action",)
    assert asked_kinds("who is responsible for the outage?") == ()  # whose fault, not whose item


def test_a_question_for_the_statements_themselves_is_about_what_was_said() -> None:
    for question in (
        "RC?",
        "decisions?",
        "any open action items from the etcd incident?",
        "whos doing the fsync alert?",  # typed without the apostrophe
        "whats the root cause?",
    ):
        assert asks_what_happened(question), question
    for question in (
        "cpu throttling mitigation",
        "how do we mitigate cpu throttling?",
        "whats the fix for disk full?",
    ):
        assert not asks_what_happened(question), question


def test_open_items_are_asked_for_and_done_ones_told() -> None:
    assert asks_open_items("any open action items from the etcd incident?")
    assert asks_open_items("which items are still open?")
    assert not asks_open_items("who owns AI-1?")
    assert topic_words("any open action items from the etcd incident?") == {"etcd"}
    assert done_keys("AI-2 done, added to the masters page in the wiki") == {"ai-2"}
    assert done_keys("AI-4 is done: the bucket reads the limit") == {"ai-4"}
    assert done_keys("the lock (AI-1) went live on 20 Jan") == {"ai-1"}
    assert done_keys("AI-1: alert when the job is done") == set()
    assert done_keys("yep, AI-1 is mine now") == set()
    assert done_keys("AI-1 and AI-2 are done") == {"ai-1", "ai-2"}
    assert done_keys("AI-2 is blocked on infra. update: AI-2 done") == {"ai-2"}
    assert done_keys("AI-9 (done)") == done_keys("AI-9 ✅") == {"ai-9"}
    assert done_keys("ping me when AI-2 is merged") == done_keys("once AI-1 is live") == set()
    assert done_keys("after AI-2 merged, 5xx dropped to zero") == {"ai-2"}
    # Each key of a list after the condition is part of it, not the last one only.
    assert done_keys("ping me when AI-1 and AI-2 are merged") == set()
    assert done_keys("once AI-1 is live, AI-2 done too") == {"ai-2"}
    # The item's own line, a question and a condition close nothing.
    for open_ in ("AI-4: Complete the failover runbook — @priya", "is AI-2 done?",
                  "AI-2 is done when the dashboard is live"):  # fmt: skip
        assert done_keys(open_) == set(), open_


async def _incident_thread(db, redactor, embedder, lines: list[tuple[object, str]]) -> Threads:
    from memory.incidents import Incidents

    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    inc = await Incidents(db, redactor=redactor).open(
        ctx("C1", author=ALICE), title="etcd latency", channel_id="C1"
    )
    for n, (author, text) in enumerate(lines):
        ts = f"17000000{n + 1:02d}.000100"
        await threads.capture(
            ctx("C1", author=author), ts=ts, thread_ts=None, text=text, incident=inc.id
        )
    return threads


async def test_a_structured_message_becomes_a_note_per_statement_replaced_and_removed_together(
    db, redactor, embedder
) -> None:
    threads = await _incident_thread(db, redactor, embedder, [(ALICE, UPDATE)])
    rows = await db.fetchall("SELECT kind, source_ts FROM memory_notes ORDER BY id")
    assert [r["kind"] for r in rows] == ["note", "root_cause", "decision", "note"]
    assert {r["source_ts"] for r in rows} == {"1700000001.000100"}  # all keyed to the message
    found = await Recall(db, embedder).relevant(ASKER, "RC?")
    assert found and found[0].text.startswith("Cause: ceph-ssd-2")
    await threads.edit("T1", "C1", "1700000001.000100", "root cause: the disk was full")
    kinds = [r[0] for r in await db.fetchall("SELECT kind FROM memory_notes")]
    assert kinds == ["root_cause"]
    await threads.delete("T1", "C1", "1700000001.000100")
    assert await db.scalar("SELECT count(*) FROM memory_notes") == 0


async def test_what_a_structured_message_says_is_all_of_its_statements(
    db, redactor, embedder
) -> None:
    """A thread opened with a structured update is about all of it ("what is this about?")."""
    from memory.store import notes as note_store

    await _incident_thread(db, redactor, embedder, [(ALICE, UPDATE)])
    said = await note_store.said_in_message(db, ASKER, channel_id="C1", ts="1700000001.000100")
    assert said is not None and "Cause: ceph-ssd-2" in said and "Decision: move" in said
    assert await note_store.said_in_message(db, ASKER, channel_id="C1", ts="1.2") is None


async def test_open_action_items_leave_out_the_done_and_show_who_took_one_over(
    db, redactor, embedder
) -> None:
    await _incident_thread(
        db,
        redactor,
        embedder,
        [
            (ALICE, FOLLOW_UPS),
            (BOB, "yep, AI-1 is mine now"),
            (BOB, "AI-2 done, added to the masters page in the wiki"),
        ],
    )
    items = await Recall(db, embedder).relevant(ASKER, "open action items?")
    texts = [i.text for i in items]
    assert not any("AI-2" in t for t in texts)
    assert any(t.startswith("AI-3 storage migrations") for t in texts)
    handover = texts.index("yep, AI-1 is mine now")
    assert texts[handover + 1].startswith("AI-1 alert") and items[handover + 1].superseded_by


async def _personally_done(db, redactor, embedder) -> Recall:
    """The follow-ups, and the asker's own note (personal memory) that AI-3 is done."""
    await _incident_thread(db, redactor, embedder, [(ALICE, FOLLOW_UPS)])
    incident = await db.scalar("SELECT incident_id FROM memory_notes WHERE kind = 'action'")
    mine = ctx("C1", scope="user", user="UASK")
    await Notes(db, redactor, embedder).save(
        mine, "AI-3 done on my side", "note", incident=incident
    )
    return Recall(db, embedder)


async def test_a_personal_note_that_an_item_is_done_closes_nothing_others_read(
    db, redactor, embedder
) -> None:
    """SQL layer: the incident's statements never include a personal note, even the asker's."""
    recall = await _personally_done(db, redactor, embedder)
    assert await db.scalar("SELECT count(*) FROM memory_notes WHERE scope = 'user'") == 1
    owner = Requester(
        await db.scalar("SELECT owner_subject_id FROM memory_notes WHERE scope = 'user'"),
        "T1",
        channel_id="C1",
    )
    from memory.recall.recall import DONE_KINDS
    from memory.store import notes as note_store

    incident = await db.scalar("SELECT incident_id FROM memory_notes WHERE scope = 'user'")
    said = await note_store.incident_statements(db, owner, incident, kinds=DONE_KINDS)
    assert said and all(r["scope"] != "user" for r in said)
    texts = [i.text for i in await recall.relevant(owner, "open action items?")]
    assert any(t.startswith("AI-3 storage migrations") for t in texts)


async def test_a_personal_done_the_store_returned_still_closes_nothing(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the statements query to return the personal note, AI-3 stays open."""
    from memory.store import notes as note_store

    recall = await _personally_done(db, redactor, embedder)
    personal = await store_returning_personal_rows(db)
    shared = note_store.incident_statements

    async def with_personal(*args: object, **kwargs: object) -> list:
        return [*await shared(*args, **kwargs), *await personal()]  # type: ignore[arg-type]

    monkeypatch.setattr(note_store, "incident_statements", with_personal)
    texts = [i.text for i in await recall.relevant(ASKER, "open action items?")]
    assert any(t.startswith("AI-3 storage migrations") for t in texts)


def test_rc_with_a_colon_labels_a_root_cause_and_a_release_candidate_is_none() -> None:
    said = "rc: bi-export runs unbounded queries on the replica"
    assert classify(said) == Statement(
        "root_cause", "bi-export runs unbounded queries on the replica"
    )
    assert classify("*RC*: the cron flushed the cache").kind == "root_cause"
    for other in ("rc-2 is out, deploying after lunch", "rc2 build is green"):
        assert classify(other).kind != "root_cause", other


def test_taking_a_named_piece_of_work_over_is_a_handover_to_the_one_who_says_it() -> None:
    said = "Sure, I'll take the renewal job fix over."
    assert classify(said, author="boris") == Statement("correction", said, "boris")
    # Taking something over to a place, or a look over something, gives it to no one.
    for other in (
        "I'll take the dashboards over to ops",
        "let me take a second look over",
        "I'll take a pass over now",
        "I can take a few of these over",
    ):
        assert classify(other, author="boris").kind != "correction", other
    # A ticket handed to a lower-case name by a wording that only gives to people.
    for said, owner in (
        ("ownership of INC-7 moves to priya", "priya"),
        ("handing off OPS-12 to maya", "maya"),
    ):
        assert classify(said) == Statement("correction", said, owner), said


@pytest.mark.parametrize(
    ("said", "now_true"),
    [
        (
            "nvm not 5min, 30s — thats what the runbook says",
            "not 5min, 30s — thats what the runbook says",
        ),
        ("oops typo, v39 not v40", "v39 not v40"),
        ("make that 30s", "30s"),
        ("my bad, it's the eu bucket", "it's the eu bucket"),
        ("I meant replica-2", "replica-2"),
    ],
)
def test_taking_back_what_one_just_said_is_a_correction(said: str, now_true: str) -> None:
    st = classify(said)
    assert st.kind == "correction"
    assert without_correction_cue(st.text) == now_true


@pytest.mark.parametrize(
    "said",
    [
        "nvm, found it",
        "sorry, not me",
        "sorry not sure",
        "sorry for the noise",
        "make that change now pls",
        "I meant to ping you",
    ],
)
def test_an_apology_or_a_withdrawn_question_corrects_nothing(said: str) -> None:
    assert classify(said).kind != "correction"


def test_ai_then_an_owner_mention_is_an_action_item_for_that_owner() -> None:
    st = classify("AI @dev add statement_timeout=10min for the analytics role")
    assert (st.kind, st.owner) == ("action", "dev")
    assert st.text == "@dev add statement_timeout=10min for the analytics role"
    assert classify("AI @dev can you check?").kind != "action"
    assert classify("AI-assisted triage is neat").kind == "note"


async def test_why_in_the_incident_channel_gets_its_root_cause_when_search_kept_the_alert(
    db, redactor, embedder
) -> None:
    """ "why was the replica lagging?" asked in the replica-lag incident's channel: search keeps
    the alert (it shares "replica" and "lag"), which says nothing of why; the incident's root
    cause, whose subject the title names, leads."""
    from memory.incidents import Incidents

    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    inc = await Incidents(db, redactor=redactor).open(
        ctx("C1", author=ALICE), title="pg replica lag", channel_id="C1"
    )
    root = "1700000001.000100"
    said = [
        (ALICE, "pg replica lag alert firing on orders-db-replica-2, lag 14min and climbing"),
        (BOB, "replica is fine cpu wise, wal replay is stuck?? replay_lsn not moving"),
        (BOB, "rca: analytics job runs with no statement_timeout, its query blocked wal replay"),
    ]
    for n, (author, text) in enumerate(said):
        await threads.capture(
            ctx("C1", author=author),
            ts=root if n == 0 else f"17000000{n + 1:02d}.000100",
            thread_ts=None if n == 0 else root,
            text=text,
            incident=inc.id,
        )
    items = await Recall(db, embedder).relevant(
        Requester("T1/UASK", "T1", channel_id="C1"), "why was the replica lagging?"
    )
    assert items and items[0].kind == "root_cause", [(i.kind, i.text) for i in items]


@pytest.mark.parametrize(
    "question", ["what was the fix for the pg replica lag?", "how was the outage fixed?"]
)
def test_asking_what_the_fix_was_asks_for_what_the_team_did(question: str) -> None:
    assert asked_kinds(question) == ("mitigation", "decision")
    assert asks_what_happened(question)


def test_asking_what_the_fix_is_asks_for_a_procedure() -> None:
    assert asked_kinds("what is the fix for OOMKilled?") == ()
    assert not asks_what_happened("what is the fix for OOMKilled?")


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        # What a message asks is no cue of what it states: here a plain report.
        ("did the rollback help? fsync p99 now 12ms, apiserver p99 180ms. yes", "note"),
        ("why did we restart? it was oom", "note"),
        # A question that ends it still makes the whole message a question.
        ("rolled back to v41. did that help?", "note"),
        # The statement after the question keeps its cue.
        ("is it dns? decision: roll back coredns to 1.11", "decision"),
        ("any news? rolled back fluent-bit on cp nodes at 14:22", "mitigation"),
        # A label asked and answered in place keeps its kind.
        ("root cause? 3.9.0 opens a connection per request", "root_cause"),
        ("decision? roll back to 3.8.4. ok", "decision"),
    ],
)
def test_a_question_inside_a_message_is_no_cue_of_what_it_states(said: str, kind: str) -> None:
    assert classify(said).kind == kind


@pytest.mark.parametrize(
    ("message", "owner"),
    [
        (
            "@chen can you add a timeout + circuit breaker on the fraud-check call? by thursday",
            "chen",
        ),
        ("hey @olu could you file the vendor ticket by next week", "olu"),
        ("@olu please file the vendor ticket by friday", "olu"),
        ("<@U0KIM> pls write up the timeline by EOD", "<@U0KIM>"),
    ],
)
def test_work_asked_of_a_named_person_with_a_due_date_is_their_action_item(
    message: str, owner: str
) -> None:
    said = classify(message)
    assert (said.kind, said.owner) == ("action", owner)


@pytest.mark.parametrize(
    "message",
    [
        "@chen can you check the consumer logs?",
        "@raj please restart the pods",
        # what looks like a due date is part of the question
        "@olu can you sort nodes by saturation?",
        "@raj can you group the errors by month",
        "@raj can you filter by this label?",
        "@raj can you check if the errors started before 9am",
        "@chen can you check what changed before this alert fired?",
    ],
)
def test_a_request_of_the_moment_without_a_due_date_is_no_action_item(message: str) -> None:
    assert classify(message).kind == "note"


def test_a_day_of_the_week_is_said_whole_or_shortened_never_as_part_of_a_word() -> None:
    from memory.episodes.statements import finishes_sentence

    for field in ("by friday", "by fri pls", "by thurs", "by next tuesday", "due wed"):
        assert finishes_sentence(field), field
    assert not finishes_sentence("by saturation")  # "sat…" is no Saturday


def test_a_labelled_line_states_each_sentence_of_another_kind_on_its_own() -> None:
    parts = statement_parts("status: resolved 10:31. postmortem owner: olu")
    assert parts == ["status: resolved 10:31.", "postmortem owner: olu"]
    assert [classify(p).kind for p in parts] == ["status", "action"]
    # a field, a sentence of the same kind and plain talk stay with the sentence before them
    assert statement_parts("decision: roll back to v2.2. owner raj, due wed") == [
        "decision: roll back to v2.2. owner raj, due wed"
    ]
    assert len(statement_parts("status: mitigated. monitoring for 30m")) == 1


def test_an_unlabelled_line_is_one_statement_whatever_its_sentences_say() -> None:
    said = "did the rollback help? fsync p99 now 12ms. postmortem owner: olu"
    assert statement_parts(said) == [said]


def test_a_labelled_line_is_split_as_written_and_a_line_with_code_is_kept_whole() -> None:
    assert statement_parts("status: resolved 10:31.   postmortem owner: olu") == [
        "status: resolved 10:31.",
        "postmortem owner: olu",
    ]
    kept = "decision: roll back to v2.2.\towner raj, due wed.  status: mitigated"
    assert statement_parts(kept) == [
        "decision: roll back to v2.2.\towner raj, due wed.",
        "status: mitigated",
    ]
    with_code = "fix: restarted the consumers.\n```\nkubectl rollout restart deploy/c\n```"
    assert statement_parts(with_code) == [with_code]
    inline = "fix: ran `kubectl scale --replicas=3 deploy/c`. status: mitigated"
    assert statement_parts(inline) == [inline]


def test_a_plain_statement_about_items_is_no_heading_and_answers() -> None:
    from memory.episodes.statements import is_heading

    for heading in ("follow-ups:", "*Follow-ups*", "*Postmortem follow-ups* :memo:"):
        assert is_heading(heading), heading
    for said in (
        "no open action items",
        "no follow-ups",
        "AI-3 follow-up",
        "closing all follow-ups",
    ):
        assert not is_heading(said), said


def test_a_setting_said_bumped_to_a_value_is_a_change_made() -> None:
    assert classify("gateway timeout bumped to 60s").kind == "mitigation"
    assert classify("the pool got bumped up to 50 and errors stopped").kind == "mitigation"
    assert classify("p99 went up to 4s at 09:38").kind == "note"  # a symptom, no change made


SIGNED_LIST = (
    "follow-ups: \n"
    "1. alert on archive_command failures > 5m — @olu\n"
    "2. key rotation runbook must include wal-g secret — @raj"
)


def test_a_list_item_signed_with_a_persons_name_is_their_action_item() -> None:
    assert classify("1. alert on archive_command failures > 5m — @olu") == Statement(
        "action", "alert on archive_command failures > 5m — @olu", "olu"
    )
    assert classify("• restart the consumer pods (<@U0KIM>)").owner == "<@U0KIM>"
    # a message signed so is chat, not an item
    for chat in (
        "same thing we saw last week - @raj",
        "see thread above - @raj",
        "I think this is related to the deploy earlier (@raj)",
        "thanks a lot — @olu",
    ):
        assert classify(chat).kind == "note", chat
    assert classify("• can you check the disk — @olu?").kind == "note"  # a question
    assert classify("• we rolled back the deploy - @raj").kind == "mitigation"  # its cue decides
    said = statements_of(SIGNED_LIST)
    assert [kind for _, kind in said] == ["note", "action", "action"]
    assert said[1][0] == "alert on archive_command failures > 5m — @olu"  # stored less its marker


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("plan: fail over to pg-orders-2 now, fix archiving after", "decision"),
        ("updated the secret with the new s3 key, archive_command succeeding again", "mitigation"),
        ("rotated the api token for billing", "mitigation"),
        ("updated the status page", "status"),  # no credential changed
        ("fixed the typo in the doc", "note"),
        ("changed the dashboard config", "note"),
        ("restored the grafana settings", "note"),
        ("plan-b: fail over to dr", "mitigation"),  # names a plan, labels none
        ("failed back to redis-sess-a at 15:40, all green", "mitigation"),
        ("we failed back at 16:00", "mitigation"),
        ("should we fail back now?", "note"),
        ("the nightly job failed back to back three times", "note"),  # twice running, no change
        ("canary failed back-to-back", "note"),
        ("I set retention.ms on orders.v2 to 259200000 (3 days)", "mitigation"),
        ("we set up a bridge call", "note"),
        # A change said in the passive tells what happened before, often the cause.
        ("retention on orders.v2 was bumped to 14 days last Tuesday by the data team", "note"),
        ("timeout bumped to 60s on the gateway", "mitigation"),
        ("retention is bumped to 14 days", "note"),
        # "I/we set" is a change made when a setting gets a number, never a severity, a
        # status, a timer or a role.
        ("I set the replicas to 0", "mitigation"),
        ("we set maxclients = 20000", "mitigation"),
        ("I set a timer for 15 min to re-check", "note"),
        ("I set myself as IC", "note"),
        ("we set off the alarm by accident", "note"),
        # A label after what states something else leaves it be; "Fix-forward" is no label.
        ("scratch that, not v41. Fix: roll back to v40", "correction"),
        ("Turns out the renewal cron was disabled. Fix: re-enabled it", "root_cause"),
        ("@chen can you add a circuit breaker? Update: by thursday pls", "action"),
        ("Rolled back. Fix-forward PR is up", "mitigation"),
        # A role, the pager or data handed over is no item changing hands.
        ("handing the pager over to @mia", "note"),
        ("handing the incident over to @mia as IC, gateway still flapping", "note"),
        ("hand the logs to @sre-team for analysis", "note"),
        ("passing the traffic over to @mia's cluster", "note"),
        ("passing the queue over to @mia's cluster", "note"),  # a place named by whose it is
        ("I set the bridge to dial-in only", "note"),
        # A label opening a later sentence says what the message states.
        ("Lag is back under 1k. Status: mitigated.", "status"),
        ("Found it. Root cause: the cert expired at 02:00.", "root_cause"),
        # An emoji between words ends a sentence as a full stop does.
        ("500s gone :white_check_mark: status: mitigated", "status"),
        ("rollback done :tada: conns dropping", "mitigation"),
        # An item named by what it is, handed to someone mentioned, changes its owner.
        ("Handing the forecast alert over to @mia, I'm out from tomorrow.", "correction"),
        ("passing the traffic over to the eu cluster", "note"),
    ],
)
def test_a_plan_is_a_decision_and_a_changed_setting_a_change_made(said: str, kind: str) -> None:
    assert classify(said).kind == kind


async def test_a_list_heading_never_answers_but_the_items_under_it_do(
    db, redactor, embedder
) -> None:
    await _incident_thread(db, redactor, embedder, [(ALICE, SIGNED_LIST)])
    found = await Recall(db, embedder).relevant(ASKER, "any follow-ups?")
    texts = [f.text for f in found]
    assert texts and all(t.rstrip().endswith(("@olu", "@raj")) for t in texts), texts


def test_a_keyless_handover_names_the_new_owner_and_an_ack_claims_work() -> None:
    from memory.episodes.statements import claims_work

    assert classify("Handing the forecast alert over to @mia, I'm out").owner == "mia"
    assert classify("handing off AI-3 to @tom. he has the context").owner == "tom"
    assert claims_work("Ack, I'll take the forecast alert.")
    assert not claims_work("Ack, looking at the forecast alert.")


def test_the_labelled_part_of_a_message_is_its_status() -> None:
    from memory.episodes.statements import labelled_part

    assert labelled_part("Lag is back under 1k. Status: mitigated.") == "mitigated."
    assert labelled_part("*Status:* investigating. sev1") == "investigating. sev1"
    assert labelled_part("Lag is fine. Status:") == "Lag is fine. Status:"  # labels nothing
    assert labelled_part("Rolled back. Fix-forward PR is up") == "Rolled back. Fix-forward PR is up"


def test_reading_a_message_of_unclosed_emphasis_marks_is_linear() -> None:
    """An emphasis mark per word, never closed, is read in one pass (each was scanned to the
    end of the line: 50k characters took seconds)."""
    import time

    started = time.perf_counter()
    classify("*a " * 16_666)
    assert time.perf_counter() - started < 1.0
