"""'When did it start?' / 'when was it fixed?': the incident's own messages that say when it
began and when it recovered lead (memory.recall.timeline)."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.timeline import asks_when, says_recovered, start_and_end
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

REPORT = "public-api returning 502 for ~30% of requests since 06:02, ALB logs show target timeouts"
TRIGGER = "terraform apply at 05:55 by the platform pipeline: PR #4411 tightened the SG"
ASKED = "any customer impact? need something for the 07:00 exec update"
FIXED = "apply done 06:41. all 12 targets healthy, 502s at 0.1%"
LATER = "status: resolved 08:20, postmortem thursday"
DAY = [
    (REPORT, "note"),
    (TRIGGER, "note"),
    (ASKED, "note"),
    ("decision: revert PR #4411 rather than hand-edit the SG", "decision"),
    (FIXED, "note"),
    (LATER, "status"),
]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("when did it start?", ("start",)),
        ("when did the outage begin?", ("start",)),
        ("what time did the errors start?", ("start",)),
        ("when was it fixed?", ("end",)),
        ("when did we recover", ("end",)),
        ("when did it start and when was it fixed?", ("start", "end")),
        ("when did the cron job start?", ()),  # about the job, not the incident
        ("when did it start last time?", ()),  # about an earlier incident
        ("why did it start?", ()),  # asks no time
        ("when will it be fixed?", ()),  # an estimate nobody said yet
        ("timeline?", ("start", "end")),
        ("what's the timeline so far?", ("start", "end")),
        ("timeline for the migration?", ()),  # another thing's
        ("ETA for the fix?", ()),
        ("what was the root cause?", ()),
        ("when did it start and when was it over?", ("start", "end")),  # "over" is no topic
        ("when was it all over", ("end",)),
        ("when did we go over the limit?", ()),  # another thing's
        ("when will it be over?", ()),
    ],
)
def test_which_end_of_the_incident_a_question_asks_the_time_of(
    question: str, asked: tuple[str, ...]
) -> None:
    assert asks_when(question) == asked


def test_a_recovery_is_said_with_its_time_and_never_only_asked() -> None:
    assert says_recovered(FIXED)
    assert not says_recovered("all targets healthy again")  # no time: no timeline entry
    assert not says_recovered("is it resolved at 06:41?")  # asked, not said
    assert not says_recovered(TRIGGER)
    assert not says_recovered("rollback done 06:15, still 30% 5xx")  # a step done, no recovery
    assert not says_recovered("not back to normal yet as of 06:30")
    assert not says_recovered("06:30 still not stable")
    assert says_recovered("resolved at 06:41, still monitoring")  # watching is no relapse
    assert says_recovered("mitigated at 06:41, root cause not known yet")


async def test_when_it_started_and_when_it_was_fixed_are_the_messages_that_say_so(
    db, redactor, embedder
) -> None:
    recall = await incident_channel(db, redactor, embedder, DAY, title="public API 502s")
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "when did it start and when was it fixed?")
    assert [i.text for i in items[:2]] == [REPORT, FIXED]
    items = await recall.relevant(asker, "when did it start?")
    assert items and items[0].text == REPORT


async def test_asked_from_another_channel_nothing_is_read_as_this_incidents_start(
    db, redactor, embedder
) -> None:
    recall = await incident_channel(db, redactor, embedder, DAY, title="public API 502s")
    asker = Requester.full_member("T1/U9", "T1", channel_id="C2")
    items = await recall.relevant(asker, "when did it start?")
    assert REPORT not in [i.text for i in items[:1]]


async def test_a_personal_note_the_store_returned_never_answers_when_it_started(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer (the store's SQL visibility layer is tested with the incident statements)."""
    recall = await incident_channel(db, redactor, embedder, DAY[2:4], title="public API 502s")
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "my pager started buzzing since 05:58", "note"
    )
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "when did it start?")
    assert all(i.scope != "user" for i in items)


def test_without_a_word_of_beginning_the_first_message_with_a_time_is_the_start() -> None:
    began = [
        {"text": "rolled back from v42 at 10:20, errors unchanged"},
        {"text": "503s since 10:05"},
    ]
    assert start_and_end(began, ("start",)) == [began[1]]  # "from v42" is no beginning
    rows = [
        {"text": "checkout is throwing 503s?"},  # asks, states no time
        {"text": "paged 10:05, checkout 503s on every pod"},
        {"text": "rolled back at 10:20, 503s gone"},
    ]
    assert [r["text"] for r in start_and_end(rows, ("start", "end"))] == [
        rows[1]["text"],
        rows[2]["text"],
    ]
    assert start_and_end(rows[:1], ("start", "end")) == []  # nothing said with a time
