"""'What's the customer impact?': the incident's newest message that states its impact leads
(memory.recall.impact)."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.impact import asks_impact, newest_impact, says_impact
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

ASKED = "any customer impact? need something for the 07:00 exec update"
FIRST = "yes: ~30% of public API calls fail, mostly mobile app sync"
UPDATE = "Update 06:45\nimpact: ~30% of public API requests got 502 from 06:02 to 06:41"
DAY = [
    ("public-api returning 502s since 06:02", "note"),
    (ASKED, "note"),
    (FIRST, "note"),
    ("decision: revert the security group change", "decision"),
    (UPDATE, "status"),
    ("all targets healthy, watching", "note"),
]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("what's the customer impact?", True),
        ("who is affected?", True),
        ("what is the user impact so far", True),
        ("how bad is the impact?", True),
        ("is the payments API affected?", False),  # about payments, which search reads
        ("what was the impact last time?", False),  # an earlier incident's
        ("what was the root cause?", False),
    ],
)
def test_a_question_that_asks_for_this_incidents_impact_and_nothing_else(
    question: str, asked: bool
) -> None:
    assert asks_impact(question) is asked


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (UPDATE, True),
        (FIRST, True),  # a share of what was served
        ("41 customers got two parcels", True),
        ("customer impact - checkout only, EU", True),
        (ASKED, False),  # asked, not stated
        ("p99 at 800ms, 3 pods restarting", False),
        ("cpu 98%, memory 70%", False),  # a reading, no one served
    ],
)
def test_an_impact_is_a_label_or_a_share_or_count_of_what_was_served(text: str, says: bool) -> None:
    assert says_impact(text) is says


def test_the_newest_labelled_impact_wins_over_a_newer_figure_said_in_passing() -> None:
    rows = [  # newest first
        {"text": "retries at 12% of requests, fine"},
        {"text": UPDATE},
        {"text": FIRST},
        {"text": ASKED},
    ]
    assert newest_impact(rows) == rows[1]
    assert newest_impact([rows[0], rows[2]]) == rows[0]
    assert newest_impact([rows[3]]) is None


async def test_the_incidents_stated_impact_answers_in_its_channel_and_not_elsewhere(
    db, redactor, embedder
) -> None:
    recall = await incident_channel(db, redactor, embedder, DAY, title="public API 502s")
    here = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(here, "what's the customer impact?")
    assert items and items[0].text == UPDATE
    assert ASKED not in [i.text for i in items]
    elsewhere = Requester.full_member("T1/U9", "T1", channel_id="C2")
    items = await recall.relevant(elsewhere, "what's the customer impact?")
    assert UPDATE not in [i.text for i in items[:1]]


async def test_a_personal_note_the_store_returned_never_answers_the_impact(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer (the store's SQL visibility layer is tested with the incident statements)."""
    recall = await incident_channel(db, redactor, embedder, DAY[:2], title="public API 502s")
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "impact: 3 of my side projects are late", "note"
    )
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    asker = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(asker, "what's the customer impact?")
    assert all(i.scope != "user" for i in items)


async def test_another_incidents_stated_impact_never_stands_for_this_ones(
    db, redactor, embedder
) -> None:
    """Search may lead with another incident's "customer impact: …" (it shares the words); the
    impact asked for is this incident's."""
    other = [("customer impact: 41 customers were charged twice", "note")]
    await incident_channel(db, redactor, embedder, other, title="payments", channel="C2")
    recall = await incident_channel(db, redactor, embedder, DAY, title="public API 502s")
    here = Requester.full_member("T1/U9", "T1", channel_id="C1")
    items = await recall.relevant(here, "what's the customer impact?")
    assert items and items[0].text == UPDATE, [i.text for i in items]
