"""'What changed at 13:50?': statements that say the time lead (memory.recall.clock_times)."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.clock_times import says_time, times_in
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

ROLLOUT = "fluent-bit v3 rolled out at 13:50, it buffers to /var/lib on the host"
ROLLBACK = "rolled back fluent-bit on cp nodes at 14:22"


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("what changed at 13:50?", {(13, 50)}),
        ("what did we do around 9:35", {(9, 35)}),
        ("deploy went out 09:35, p99 up at ~09:38", {(9, 35), (9, 38)}),
        ("ratio 3:1 on host:8080, v1.2:3", set()),
        ("dns at 10.0.0.1:53", set()),  # an address's port
        ("13:50:12 ERROR conn refused", {(13, 50)}),  # a log line's, with its seconds
        ("deployed 2024-05-01T12:30:00Z", {(12, 30)}),  # an ISO stamp's
        ("paged at 1:50pm, again 12:10 am", {(13, 50), (0, 10)}),
        ("failover took 1:30", {(1, 30)}),  # (a duration reads as a time: nothing tells them apart)
    ],
)
def test_clock_times_said(text: str, times: set[tuple[int, int]]) -> None:
    assert times_in(text) == times


def test_nine_thirty_five_is_said_with_or_without_its_leading_zero() -> None:
    assert says_time("their deploy v7.3 went out 09:35", times_in("what changed at 9:35?"))
    assert not says_time("their deploy v7.3 went out 09:35", times_in("what changed at 19:35?"))


async def _channel(db, redactor, embedder, lines: list[tuple[str, str]], channel: str = "C1"):  # type: ignore[no-untyped-def]
    return await incident_channel(
        db, redactor, embedder, lines, title="etcd latency", channel=channel
    )


DAY = [
    ("apiserver p99 is 3s+, etcd fsync p99 at 800ms on etcd-2", "note"),
    (ROLLOUT, "note"),
    ("decision: roll back fluent-bit to v2.2 on the control-plane nodes only", "decision"),
    (ROLLBACK, "mitigation"),
    ("status: mitigated 14:35, leaving open until the daemonset is fixed", "status"),
]


async def test_the_statement_that_says_the_time_leads(db, redactor, embedder) -> None:
    recall = await _channel(db, redactor, embedder, DAY)
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "what changed at 13:50?")
    assert items and items[0].text == ROLLOUT


async def test_asked_from_another_channel_the_incident_search_ranked_first_is_read(
    db, redactor, embedder
) -> None:
    recall = await _channel(db, redactor, embedder, DAY)
    asker = Requester.full_member("T1/U9", "T1", channel_id="C2")
    items = await recall.relevant(asker, "what did we roll back on the cp nodes at 14:22?")
    assert items and items[0].text == ROLLBACK


async def test_a_time_nobody_said_changes_nothing(db, redactor, embedder) -> None:
    recall = await _channel(db, redactor, embedder, DAY)
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    assert await recall.relevant(asker, "what changed at 16:05?") == []


async def test_a_personal_note_the_store_returned_never_leads_a_shared_answer(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer (the channel query's SQL layer is tested with the current value)."""
    recall = await _channel(db, redactor, embedder, DAY[:1])
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "13:50 my dentist appointment", "note"
    )
    monkeypatch.setattr(note_store, "earlier_in_channel", await store_returning_personal_rows(db))
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "what changed at 13:50?")
    assert all(i.scope != "user" for i in items)


async def test_the_time_leads_over_statements_that_share_more_of_the_questions_words(
    db, redactor, embedder
) -> None:
    """Words the question shares ("changed", "buffer") rank another statement first; the one
    that says the time asked about is what happened then."""
    lines = [
        *DAY,
        (
            "correction: it was fluent-bit v3.0.1 not v3, the buffer path default changed",
            "correction",
        ),
        ("what changed in the buffer config? it changed a lot in 3.x", "note"),
    ]
    recall = await _channel(db, redactor, embedder, lines)
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "what changed in the buffer at 13:50?")
    assert items and ROLLOUT in [i.text for i in items[:2]], [i.text for i in items]
    assert items[0].text != "what changed in the buffer config? it changed a lot in 3.x"


async def test_a_question_that_names_the_time_is_not_what_happened_then(
    db, redactor, embedder
) -> None:
    asked = ("did anything change at 13:50?", "note")  # asked before it was said
    recall = await _channel(db, redactor, embedder, [DAY[0], asked, *DAY[1:]])
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "what changed at 13:50?")
    assert items and items[0].text == ROLLOUT


async def test_asked_from_another_channel_the_incident_named_is_read_for_the_time(
    db, redactor, embedder
) -> None:
    recall = await _channel(db, redactor, embedder, DAY)
    asker = Requester.full_member("T1/U9", "T1", channel_id="C2")
    items = await recall.relevant(asker, "in the etcd latency incident, what happened at 13:50?")
    assert items and items[0].text == ROLLOUT


async def test_the_report_made_at_the_time_leads_a_later_summary_that_names_it(
    db, redactor, embedder
) -> None:
    promoted = "10:11 pg-orders-2 promoted, writes back"
    summary = "status: resolved 10:40, orders writes down for 9 min (10:02-10:11)"
    recall = await _channel(
        db, redactor, embedder, [(promoted, "note"), (summary, "status")], channel="C3"
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C3")
    items = await recall.relevant(asker, "what happened at 10:11?")
    assert [i.text for i in items[:2]] == [promoted, summary]


async def test_a_question_that_names_another_incident_reads_that_incident_first(
    db, redactor, embedder
) -> None:
    """Asked in the payments channel, "in the etcd latency incident, what happened at 13:50?"
    is about the etcd incident, though the payments channel said 13:50 too."""
    recall = await _channel(db, redactor, embedder, DAY)
    here = [("stripe webhook retries piling up at 13:50", "note")]
    await _channel(db, redactor, embedder, here, channel="C2")
    asker = Requester.full_member("T1/U9", "T1", channel_id="C2")
    items = await recall.relevant(asker, "in the etcd latency incident, what happened at 13:50?")
    assert items and items[0].text == ROLLOUT, [i.text for i in items]
    # not naming one, the channel asked in is what it is about
    items = await recall.relevant(asker, "what happened at 13:50?")
    assert items and items[0].text == here[0][0]
