"""'Is the lag gone?': the newest word on the thing asked about leads (memory.recall.current)."""

from __future__ import annotations

import pytest

from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.recall.current import asks_current_state, names_subject, state_subject
from memory.recall.recall import AskedIn, Recall
from memory.scopes import Requester
from memory.store import notes as note_store
from memory.text import stems
from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

FIRST = "looking. lag climbing since ~09:40, consumer pods are up but processing 20 msg/s"
DRAINING = "lag draining, 50k -> 8k"
ZERO = "lag at 0 as of 10:31. resolving"
RESOLVED = "status: resolved 10:31."


@pytest.mark.parametrize(
    "question",
    [
        "is the lag gone?",
        "are we still seeing 502s on checkout?",
        "has the backlog drained?",
        "is checkout back to normal?",
        "so is the fsync latency ok now?",
        "lag gone?",  # chat drops the verb
        "still seeing 502s?",
        "any 502s still?",
        "any packet loss on the link now?",
        "is grafana down?",
        "is pgbouncer in transaction mode now?",  # how it stands now, whatever it is said to be
        "are the replicas on v7.2.4 yet?",
        "are these replicas on v7.2.4 now?",
    ],
)
def test_questions_that_ask_whether_a_thing_still_holds(question: str) -> None:
    assert asks_current_state(question)


@pytest.mark.parametrize(
    "question",
    [
        "is it etcd disk like last time?",  # asks what it is, not whether it still holds
        "is there a runbook for kafka lag?",
        "did the rollback help?",  # an outcome: the reply to the change answers it
        "what was the root cause of the lag?",
        "is it ok to restart the broker?",  # leave to act
        "is it safe to fail over now?",
        "is the runbook for kafka lag up to date?",
        "is anyone working on the kafka lag?",  # a person
        "have we done a failover on pg-orders before?",  # history
        "is there a runbook for this yet?",  # a thing asked for
        "is there a fix yet?",
        "is it worth restarting the pods now?",  # leave to act
        "is it time to page the db team now?",
        "any news now?",  # chat, not a thing that holds
        "any update now?",
        "any workaround now?",  # a fix asked for, which a runbook may hold
        "any runbook for this now?",
        "any volunteers now?",
    ],
)
def test_questions_that_ask_no_current_state(question: str) -> None:
    assert not asks_current_state(question)


def test_the_subject_leaves_out_the_words_that_ask_for_the_state() -> None:
    assert state_subject("is the lag gone?") == {"lag"}
    assert state_subject("is pgbouncer in transaction mode now?") == stems(
        "pgbouncer transaction mode"
    )
    assert "502" in "".join(state_subject("are we still seeing 502s on checkout?"))


def test_a_statement_on_the_subject_names_half_its_words_with_what_the_title_says() -> None:
    subject = state_subject("is the consumer lag gone?")
    assert not names_subject("lag at 0 as of 10:31", {"redis", "memory", "limit"})
    assert names_subject("lag at 0 as of 10:31", subject)
    assert not names_subject("status: resolved 10:31.", subject, known={"lag"})
    # one word of four is another thing that shares a word ("apiserver p99" for "fraud-svc p99")
    assert not names_subject("apiserver p99 180ms", state_subject("is the fraud-svc p99 ok now?"))


async def _channel(  # type: ignore[no-untyped-def]
    db, redactor, embedder, lines: list[tuple[str, str]], title: str = "checkout kafka lag"
) -> Recall:
    return await incident_channel(db, redactor, embedder, lines, title=title)


ASKER = Requester.full_member("T1/U9", "T1", channel_id="C1")
DAY = [
    (FIRST, "note"),
    ("bumped max.poll.interval.ms to 900000, rolling restart done 10:05", "mitigation"),
    (DRAINING, "note"),
    (ZERO, "note"),
    (RESOLVED, "status"),
]


async def test_the_newest_word_on_the_subject_leads_then_a_later_status(
    db, redactor, embedder
) -> None:
    recall = await _channel(db, redactor, embedder, DAY)
    items = await recall.relevant(ASKER, "is the lag gone?")
    assert [i.text for i in items[:2]] == [ZERO, RESOLVED]


async def test_a_change_still_to_be_made_on_the_subject_follows_the_newest_word_on_it(
    db, redactor, embedder
) -> None:
    """ "Is pgbouncer in transaction mode now?": the last report on it ("pool_mode=session")
    leads, and the action item to switch it, which says it is not done yet, comes next (not
    the incident's status, which says nothing of pgbouncer)."""
    report = "pg-main at 500/500 conns, pgbouncer pool_mode=session on the new deploy"
    pending = "AI: bob to switch pgbouncer to transaction pooling"
    lines = [(report, "note"), (pending, "action"), ("status: resolved 13:30", "status")]
    recall = await _channel(db, redactor, embedder, lines, title="checkout pg conns")
    items = await recall.relevant(ASKER, "is pgbouncer in transaction mode now?")
    assert [i.text for i in items[:2]] == [report, pending]


async def test_a_change_said_to_be_done_is_no_longer_pending(db, redactor, embedder) -> None:
    """Once "AI-1 done" is said, the item says nothing of how things stand: the status said
    after the report follows it, not the item."""
    report = "pg-main at 500/500 conns, pgbouncer pool_mode=session on the new deploy"
    pending = "AI-1: bob to switch pgbouncer to transaction pooling"
    status = "status: resolved 13:30"
    lines = [(report, "note"), (pending, "action"), ("AI-1 done", "note"), (status, "status")]
    recall = await _channel(db, redactor, embedder, lines, title="checkout pg conns")
    items = await recall.relevant(ASKER, "is pgbouncer in transaction mode now?")
    assert [i.text for i in items[:2]] == [report, status], [i.text for i in items]


async def test_a_plan_the_newest_report_came_after_is_no_longer_pending(
    db, redactor, embedder
) -> None:
    """The decision to drain the primary link came before "loss 0% now": what it planned is
    what the report reads, and the status said after the report follows it."""
    plan = "decision: drain the primary link, shift traffic to the backup link via BGP"
    report = "done, local-pref 200 on backup applied 13:22. loss 0% now"
    status = "status: mitigated, replicas catching up"
    lines = [
        ("seeing 4-6% packet loss on the fra1-ams1 link since 12:48", "note"),
        (plan, "decision"),
        (report, "note"),
        (status, "status"),
    ]
    recall = await _channel(db, redactor, embedder, lines, title="packet loss fra1 ams1")
    items = await recall.relevant(ASKER, "any packet loss on the link now?")
    assert [i.text for i in items[:2]] == [report, status], [i.text for i in items]


async def test_the_newest_reading_leads_over_a_later_line_that_only_names_the_subject(
    db, redactor, embedder
) -> None:
    """A root cause said later names the link ("… stayed on the lossy link") and reads
    nothing of it: the newest reading says how it stands."""
    report = "loss 0% now on the backup link"
    cause = "root cause: fiber cut; traffic stayed on the lossy link for 30 min"
    lines = [
        ("seeing 4-6% packet loss on the fra1-ams1 link since 12:48", "note"),
        (report, "note"),
        (cause, "root_cause"),
    ]
    recall = await _channel(db, redactor, embedder, lines, title="packet loss fra1 ams1")
    items = await recall.relevant(ASKER, "any packet loss on the link now?")
    assert items and items[0].text == report, [i.text for i in items]


async def test_the_newest_word_on_the_outage_leads_over_an_older_reading(
    db, redactor, embedder
) -> None:
    """ "Is it fixed?" after "all clear": the first report's "12% 5xx" is no longer how it
    stands, however much of a reading it gives."""
    report = "checkout returning 12% 5xx since 10:02"
    clear = "status: all clear, closing the bridge"
    lines = [(report, "note"), ("rolled back to v41", "mitigation"), (clear, "status")]
    recall = await _channel(db, redactor, embedder, lines, title="checkout errors")
    items = await recall.relevant(ASKER, "is it fixed?")
    assert items and items[0].text == clear, [i.text for i in items]


async def test_without_the_state_question_the_first_report_may_lead(db, redactor, embedder) -> None:
    """The same subject asked about without asking for its state is ranked as search ranks it:
    the reordering is the state question's alone."""
    recall = await _channel(db, redactor, embedder, DAY)
    items = await recall.relevant(ASKER, "when did the lag start climbing?")
    assert items and items[0].text == FIRST


async def test_a_later_question_about_the_subject_is_no_word_on_it(db, redactor, embedder) -> None:
    recall = await _channel(db, redactor, embedder, [*DAY[:4], ("is the lag back?", "note")])
    items = await recall.relevant(ASKER, "is the lag gone?")
    assert items[0].text == ZERO


async def test_a_personal_note_the_store_returned_never_leads_a_shared_answer(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer (the channel query's SQL layer is tested with the current value)."""
    recall = await _channel(db, redactor, embedder, DAY[:2])
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "my own lag dashboard shows lag at 0", "note"
    )
    monkeypatch.setattr(note_store, "earlier_in_channel", await store_returning_personal_rows(db))
    items = await recall.relevant(ASKER, "is the lag gone?")
    assert items and all(i.scope != "user" for i in items)


async def test_asked_in_a_live_incident_its_own_word_on_the_lag_leads_over_an_older_ones(
    db, redactor, embedder
) -> None:
    """Yesterday's kafka incident said "lag at 0"; today's, asked in, says it is still growing:
    the state asked about is today's."""
    await _channel(db, redactor, embedder, DAY)  # yesterday's, in C1
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    today = await incidents.open(ctx("C5"), title="checkout kafka lag again", channel_id="C5")
    growing = "lag still growing, 120k now"
    for text in ("paged again", growing):
        await notes.save(ctx("C5"), text, "note", incident=today.id)
    asker = Requester.full_member("T1/U9", "T1", channel_id="C5")
    items = await Recall(db, embedder).relevant(asker, "is the consumer lag gone?")
    assert items and items[0].text == growing, [i.text for i in items]


async def test_an_action_item_or_a_decision_on_the_subject_is_no_word_on_how_it_stands(
    db, redactor, embedder
) -> None:
    """ "Is archiving working again?": the report that it succeeds leads, not the later follow-up
    to alert on it nor a decision that waits for it."""
    fixed = "updated the secret with the new s3 key, archive_command succeeding again at 10:31"
    recall = await _channel(
        db,
        redactor,
        embedder,
        [
            ("wal-g archive_command failing since 02:10, WAL piling up", "root_cause"),
            (fixed, "mitigation"),
            ("keep pg-orders-1 out until its archiving works", "decision"),
            ("follow-up: alert on archive_command failures > 5m — @olu", "action"),
        ],
        title="orders db down",
    )
    assert asks_current_state("is archiving working again?")
    items = await recall.relevant(ASKER, "is archiving working again?")
    assert items and items[0].text == fixed, [i.text for i in items]


async def test_how_long_it_lasted_never_comes_from_a_personal_note_the_store_returned(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer of "how long did it last?" in the incident's channel (the statements query's
    SQL layer excludes personal rows on its own; tested with the store)."""
    recall = await _channel(db, redactor, embedder, DAY[:2])
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "my own notes: we were down 45 minutes (10:00-10:45)", "status"
    )
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    items = await recall.relevant(ASKER, "how long did it last?")
    assert all(i.scope != "user" for i in items), [i.text for i in items]


async def test_last_times_answer_never_comes_from_a_personal_note_the_store_returned(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer of "how long were we down last time?" under a report, answered from the
    incident like it (the statements query's SQL layer excludes personal rows on its own)."""
    from memory.recall.recall import AskedIn

    report = "checkout pods log FATAL: sorry, too many clients already from pg-main"
    past = [
        (report, "note"),
        ("rollback of checkout-api done, connections dropping", "mitigation"),
        ("resolved. ~37 min of checkout errors (12:53-13:30)", "status"),
    ]
    await _channel(db, redactor, embedder, past, title="checkout pg conns")
    notes = Notes(db, redactor, embedder)
    now = await Incidents(db, redactor=redactor).open(ctx("C2"), title="cart 500s", channel_id="C2")
    asked = ctx("C2", source_ts="1700009999.000100")
    await notes.save(asked, "cart-svc 500s, postgres logs FATAL: sorry, too many clients already",
                     "note", incident=now.id)  # fmt: skip
    await notes.save(ctx("C1", scope="user"), "my notes: down 45 minutes (10:00-10:45)", "status")
    here = Requester.full_member("T1/U9", "T1", channel_id="C2")
    thread = AskedIn(
        "1700009999.000100", "cart-svc 500s, postgres logs FATAL: sorry, too many clients already"
    )
    recall = Recall(db, embedder)
    found, _ = await recall.answer(here, "how long were we down last time?", thread=thread)
    assert found and "~37 min" in found[0].text, [i.text for i in found]
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    found, _ = await recall.answer(here, "how long were we down last time?", thread=thread)
    assert all(i.scope != "user" for i in found), [i.text for i in found]


async def test_last_time_read_for_what_it_names_never_gives_a_personal_note(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer of `_last_time_about` (the store's SQL visibility layer is tested with the
    incident statements)."""
    past = [
        ("orders db lag growing, reads stale on orders-api, writes failing", "note"),
        ("me. promoting mysql-orders-02 to primary", "note"),
        ("lag growing stopped once 02 was primary, orders-api reads fresh", "status"),
    ]
    await _channel(db, redactor, embedder, past, title="orders db lag")
    now = await Incidents(db, redactor=redactor).open(
        ctx("C2"), title="orders lag", channel_id="C2"
    )
    report = "orders db lag growing again, reads stale on orders-api"
    await Notes(db, redactor, embedder).save(ctx("C2"), report, "note", incident=now.id)
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "promoting my replica side project", "note"
    )
    here = Requester.full_member("T1/U9", "T1", channel_id="C2")
    recall = Recall(db, embedder)
    ask = "how did we promote a replica last time?"
    found, past_incidents = await recall._last_time_about(here, ask, AskedIn("1.0", report), 3, [])
    assert past_incidents and found and "promoting mysql-orders-02" in found[0].text
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    found, _ = await recall._last_time_about(here, ask, AskedIn("1.0", report), 3, [])
    assert all(i.scope != "user" for i in found), [i.text for i in found]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("we run with 1 replica only now (03)", True),
        ("4/12 targets unhealthy", True),
        ("p99 is 1.2 seconds", True),
        ("checkout 5xx at 12% since 06:02", True),
        ("errors have stopped, all pods healthy again", True),  # its state, in words
        ("5xx at 0 now", True),
        ("customers still seeing errors", True),
        ("thanks all, grabbing coffee, back in 5", False),
        ("thanks all, brb 30s", False),
        ("retro moved to 12/5", False),  # a date
        ("I have 2 requests for the retro", False),
        ("lag draining ~40k/min, 700k behind now", True),  # how far behind a consumer is
        ("our fork is 3 commits behind main", False),
    ],
)
def test_a_reading_of_the_service_is_what_are_we_still_degraded_is_answered_by(
    text: str, says: bool
) -> None:
    from memory.recall.current import reports_a_reading

    assert reports_a_reading(text) is says


def test_a_status_that_says_nothing_of_the_service_is_not_how_it_stands() -> None:
    from memory.recall.recall import _says_how_it_stands

    assert not _says_how_it_stands({"kind": "status", "text": "status page updated 14:25"})
    assert _says_how_it_stands({"kind": "status", "text": "mitigated, watching"})
    assert _says_how_it_stands({"kind": "mitigation", "text": "rolled back to v5.1"})
    assert not _says_how_it_stands({"kind": "note", "text": "thanks all, back in 5"})
    assert _says_how_it_stands({"kind": "status", "text": "investigating"})
