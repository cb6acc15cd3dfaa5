"""'Why did X happen?' before anyone labelled a root cause: the reply that explains the report of
X, said a few messages after it (memory.recall.explanations)."""

from __future__ import annotations

from typing import Any

import pytest

from memory.recall.explanations import REACH, explains_in_chat, explanation_of, reasons, states
from memory.text import stems

REPORT = "consumers are rebalancing every ~40s, CommitFailedException in the logs"
EXPLAINED = "that'd do it - PDF render takes ~6s per batch, so the broker kicks them out"
TOPIC = stems("consumers rebalancing")


def _rows(*texts: str, kind: str = "note") -> list[dict[str, Any]]:
    return [{"id": n, "text": t, "kind": kind} for n, t in enumerate(texts, 1)]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (EXPLAINED, True),
        ("turns out the cron flushed the cache", True),
        ("errors because the pool is at 200", True),
        ("so, any news on the rollback?", False),  # "so" as a filler
        ("ok so we rolled back payments-api to v41", False),
        ("so the fix is to restore the TTL", False),  # a plan, not why
        ("rolling back now", False),
    ],
)
def test_an_explanation_is_said_with_cause_or_consequence(text: str, says: bool) -> None:
    assert explains_in_chat(text) is says


def test_the_reply_after_a_report_that_explains_it_answers_with_the_report() -> None:
    rows = _rows("order-events consumer lag climbing", REPORT, "fwiw we shipped 3.14", EXPLAINED)
    assert [r["text"] for r in explanation_of(rows, TOPIC)] == [EXPLAINED, REPORT]


def test_an_explanation_too_far_after_the_report_or_before_it_is_none() -> None:
    far = _rows(REPORT, *(f"looking at pod {n}" for n in range(REACH)), EXPLAINED)
    assert explanation_of(far, TOPIC) == []
    before = _rows(EXPLAINED, REPORT)
    assert explanation_of(before, TOPIC) == []


def test_a_report_of_something_else_or_a_question_explains_nothing() -> None:
    assert explanation_of(_rows("checkout 502s since 06:02", EXPLAINED), TOPIC) == []
    asked = _rows(REPORT, "is that because of the deploy?")
    assert explanation_of(asked, TOPIC) == []
    assert explanation_of(_rows(REPORT, EXPLAINED), set()) == []


def test_a_report_that_explains_itself_answers_alone() -> None:
    said = "consumers rebalancing because max.poll.interval.ms is 5000"
    assert [r["text"] for r in explanation_of(_rows(said, EXPLAINED), TOPIC)] == [said]


def test_a_status_line_or_a_plan_explains_nothing_but_a_root_cause_does() -> None:
    rows = _rows(REPORT, "status -> investigating")
    rows[1]["kind"] = "status"
    assert explanation_of(rows, TOPIC) == []
    rows = _rows(REPORT, "ok so we rolled back", "root: v42 moved PDF rendering into the loop")
    rows[2]["kind"] = "root_cause"
    assert [r["id"] for r in explanation_of(rows, TOPIC)] == [3, 1]


def test_a_short_question_is_about_a_report_that_states_all_of_it() -> None:
    """ "Why did the lag drain?" is not about "lag climbing since 08:00 … because of 3.14"."""
    rows = _rows("lag climbing since 08:00 because 3.14 renders PDFs", "lag draining ~40k/min")
    assert explanation_of(rows, stems("lag drain")) == []
    assert states(stems("lag drain"), "lag draining ~40k/min")
    assert not states(stems("lag drain"), "lag climbing since 08:00")


async def test_why_asked_in_the_incident_is_led_by_the_reply_that_explained_it(
    db, redactor, embedder
) -> None:
    from memory.scopes import Requester
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("order-events consumer lag climbing since ~08:00, now 1.2M msgs behind", "note"),
            ("on it. grafana: https://grafana.example.com/d/kafka-lag", "note"),
            (REPORT, "note"),
            ("fwiw we shipped order-confirm 3.14 at 07:52, PDF rendering in the loop", "note"),
            (EXPLAINED, "note"),
            ("rollback done, 3.13 running on all 6 pods", "mitigation"),
        ],
        title="orders consumer lag",
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    found = await recall.relevant(asker, "why did the consumers keep rebalancing?")
    assert found and found[0].text == EXPLAINED, [f.text for f in found]
    # Asked where the incident is not, it reads nothing of it: its channel is not this one.
    elsewhere = Requester.full_member("T1/U9", "T1", channel_id="C2")
    assert await recall._with_explanation_here(elsewhere, "why did it rebalance?", []) == []


async def test_a_root_cause_labelled_later_explains_the_report_over_an_earlier_theory(
    db, redactor, embedder
) -> None:
    from memory.scopes import Requester
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("checkout requests failing with 503s since 10:02", "note"),
            ("turns out the LB health check path changed", "note"),
            ("health check is fine, not the LB", "note"),
            ("root cause: v42 raised the DB pool from 20 to 200", "root_cause"),
        ],
        title="checkout errors",
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    found = await recall.relevant(asker, "why did checkout requests fail?")
    assert found and found[0].kind == "root_cause", [f.text for f in found]


async def test_a_kept_item_that_says_why_is_left_as_it_is(db, redactor, embedder) -> None:
    from memory.scopes import Requester
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("checkout requests failing with 503s since 10:02", "note"),
            ("turns out the LB health check path changed", "note"),
            ("it's because v42 exhausted the DB pool", "note"),
        ],
        title="checkout errors",
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    kept = [i for i in await recall.recall(asker, "v42 exhausted DB pool") if "v42" in i.text]
    why = "why did checkout requests fail?"
    assert await recall._with_explanation_here(asker, why, kept) == kept
    led = await recall._with_explanation_here(asker, why, [])
    assert [i.text for i in led][:1] == ["turns out the LB health check path changed"]


def test_a_line_that_rules_something_out_reasons_and_a_report_does_not() -> None:
    assert reasons("checked: the live-blog polls are cached at the edge, not it")
    assert reasons(EXPLAINED)
    assert not reasons("checkout requests failing with 503s since 10:02")  # a time, no reason
    assert not reasons(REPORT)


async def test_a_kept_line_on_what_is_asked_other_than_the_report_is_left_as_it_is(
    db, redactor, embedder
) -> None:
    """ "Why did the lag alert take so long to fire?": the kept line answers in its own words;
    the alert's report and the root cause after it are about something else."""
    from memory.scopes import Requester
    from tests.memory.contexts import incident_channel

    answer = (
        "the lag rule is > 50k for 10m and the lag only crossed 50k around 15:08; an alert"
        " on lag growth would have fired much earlier"
    )
    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("the lag alert fired at 15:18, consumers stuck", "note"),
            ("root cause: v2.8.0 batch size change, consumers evicted before commit", "root_cause"),
            (answer, "note"),
        ],
        title="orders consumer lag",
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    kept = [i for i in await recall.recall(asker, "lag rule 50k crossed") if i.text == answer]
    why = "why did the lag alert take so long to fire, and what would have caught it sooner?"
    assert kept and await recall._with_explanation_here(asker, why, kept) == kept
    # Asked of the report itself, the root cause after it explains it.
    led = await recall._with_explanation_here(asker, "why did the lag alert fire?", [])
    assert [i.kind for i in led][:1] == ["root_cause"], [i.text for i in led]


def test_a_report_that_hedges_is_explained_by_the_reply_after_it() -> None:
    hedged = "consumers rebalancing every ~40s, not sure why yet"
    assert not reasons(hedged)
    assert [r["text"] for r in explanation_of(_rows(hedged, EXPLAINED), TOPIC)] == [
        EXPLAINED,
        hedged,
    ]


async def test_a_repeated_report_or_another_incidents_cause_kept_does_not_hide_the_reply(
    db, redactor, embedder
) -> None:
    """Search may keep the symptom said again ("… still rebalancing") or an older incident's
    root cause: neither answers why it happens in this one."""
    from memory.scopes import Requester
    from tests.memory.contexts import incident_channel

    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [("root cause: consumers rebalancing due to long GC pauses", "root_cause")],
        title="search consumer lag",
        channel="C2",
    )
    await incident_channel(
        db,
        redactor,
        embedder,
        [
            (REPORT, "note"),
            (EXPLAINED, "note"),
            ("restarted the group, consumers still rebalancing", "note"),
        ],
        title="orders consumer lag",
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    why = "why did the consumers keep rebalancing?"
    kept = await recall.recall(asker, "consumers rebalancing", k=10)
    repeat = [i for i in kept if "still rebalancing" in i.text]
    elsewhere = [i for i in kept if i.channel_id == "C2"]
    assert repeat and elsewhere
    for held in (repeat, elsewhere):
        led = await recall._with_explanation_here(asker, why, held)
        assert led[0].text == EXPLAINED, [i.text for i in led]


async def test_a_personal_note_the_store_returned_never_explains_in_a_shared_answer(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer of the read the explanation comes from (its SQL keeps personal rows out):
    were the incident's statements to come back with the asker's own note, it never leads."""
    from memory.notes.notes import Notes
    from memory.scopes import Requester
    from memory.store import notes as note_store
    from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

    recall = await incident_channel(
        db, redactor, embedder, [(REPORT, "note")], title="orders consumer lag"
    )
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    incident = await recall._incident_asked_in(asker)
    assert incident is not None
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user", user="U9"),
        "consumers rebalancing because my VPN flapped, so the broker kicked them out",
        "note",
        incident=incident.id,
    )
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    led = await recall._with_explanation_here(asker, "why did the consumers keep rebalancing?", [])
    assert all(i.scope != "user" for i in led), [i.text for i in led]
