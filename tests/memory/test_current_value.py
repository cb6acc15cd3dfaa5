"""'What's maxclients set to now?': the newest word on a value leads (memory.recall.current)."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.current import asks_current_value, gives_value, subject_of
from memory.recall.recall import NEWEST_ID, Recall
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

BUMPED = "bumped maxclients to 20000 as a stopgap"
BACK = "maxclients back to 10000 at 09:55"
TO_DO = "AI @chen set max_connections + add an alert on connected_clients > 80% of maxclients"


@pytest.mark.parametrize(
    "question",
    [
        "what's maxclients set to now?",
        "What pool size is billing_db running with now?",
        "what is the memory limit currently?",
        "so what's the current replica count",
        "What is our SkyQuote limit now, and how did it get there?",
        # as chat types it
        "maxclients now?",
        "whats the pool size rn",
        "wat is maxclients now?",
        "what is max_connections at atm?",
        "origin max replicas now?",
    ],
)
def test_questions_that_ask_for_a_value_as_it_stands(question: str) -> None:
    assert asks_current_value(question)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("whats the pool size rn", {"pool"}),
        ("wat is maxclients now?", {"maxclient"}),
        ("maxclients now?", {"maxclient"}),
    ],
)
def test_chat_words_are_no_part_of_the_subject(question: str, subject: set[str]) -> None:
    assert subject_of(question) == subject


@pytest.mark.parametrize(
    "question",
    [
        "who owns it now?",  # a handover: corrections answer it
        "what was maxclients set to?",  # no "now": the past is asked
        "If it broke again now, would the pool hold?",  # asks no value
        "how did the limit get there, and what is it now?",  # the first part asks no value
        "who now?",  # a person
        "status now?",  # where the incident stands
        "eta now?",
        "it is slow now?",
        "is it fixed now?",  # whether it holds: the state question's, not a value
        "are we good now?",
    ],
)
def test_questions_that_ask_no_current_value(question: str) -> None:
    assert not asks_current_value(question)


def test_the_subject_leaves_out_words_that_only_ask_how_it_is_set() -> None:
    assert subject_of("what's maxclients set to now?") == {"maxclient"}
    # Only the part that asks for the value: "how did it get there" is another question.
    assert subject_of("What is our SkyQuote limit now, and how did it get there?") == {
        "skyquot",
        "limit",
    }


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("what's maxclients set to now?", BACK),
        ("what's maxclients set to now?", BUMPED),
        ("what's maxclients set to now?", "redis primary: maxclients is 10000, we're pinned"),
        (
            "what pool size is billing_db running with now?",
            "billing_batch user deployed and billing_db default_pool_size is back to 120",
        ),
        # A reading in chat: the subject, how it moves, the number.
        ("whats the lag now", "lag draining ~40k/min, 700k behind now"),
        ("queue depth now?", "queue depth sitting around 12k"),
        ("what's the error rate now?", "error rate back down, 0.3% now"),
        ("what's maxclients set to now?", "maxclients, bumped to 20000"),
    ],
)
def test_statements_that_give_the_subject_a_value(question: str, text: str) -> None:
    assert gives_value(text, subject_of(question))


@pytest.mark.parametrize(
    "text",
    [
        TO_DO,  # "80% of maxclients": a share of it, not its value
        "scratch the maxclients bump, it just hides the leak",  # no number at all
        "maxclients alert fired 3 times",  # "alert" is no linking word: the count is not it
        "the pool limit for 5m windows",  # the other subject word only
        "maxclients climbing since 08:00",  # "since" ends the reach: a time, not its value
    ],
)
def test_statements_that_give_it_no_value(text: str) -> None:
    assert not gives_value(text, {"maxclient"})


@pytest.mark.parametrize(
    ("question", "text"),
    [
        # Another setting that shares a word with it
        ("what's the redis memory limit now?", "rate limit now 500 rps on the gateway"),
        ("what's apiserver p99 now?", "fsync p99 now 12ms"),
        ("what pool size is billing_db running with now?", "billing_db at 95% cpu"),
        # A value it had before
        ("what's maxclients set to now?", "for the pm: maxclients was 10000 before the bump"),
        ("whats the lag now", "lag peaked at 2.1M at 08:40"),
        # A number in the next clause is another thing's
        ("what's the error rate now?", "error rate dropping; 5 pods restarted"),
    ],
)
def test_another_setting_or_a_past_value_is_no_value_of_the_subject(
    question: str, text: str
) -> None:
    assert not gives_value(text, subject_of(question))


def test_words_known_from_the_incident_need_not_be_said_again() -> None:
    """In the appointment-svc incident's channel, "the memory limit back from 2Gi to 1Gi" is
    that service's limit."""
    subject = subject_of("What is the appointment-svc memory limit now?")
    said = "decision on limits: we set the memory limit back from 2Gi to 1Gi"
    assert not gives_value(said, subject)
    assert gives_value(said, subject, known={"appoint", "servic"})  # svc: service


async def _channel(  # type: ignore[no-untyped-def]
    db, redactor, embedder, lines: list[tuple[str, str]], title: str = "search 500s"
) -> Recall:
    return await incident_channel(db, redactor, embedder, lines, title=title)


ASKER = Requester.full_member("T1/U9", "T1", channel_id="C1")


async def test_the_newest_value_leads_over_an_earlier_one_and_a_later_to_do(
    db, redactor, embedder
) -> None:
    recall = await _channel(
        db,
        redactor,
        embedder,
        [
            ("redis primary: connected_clients=10000, maxclients is 10000", "note"),
            (BUMPED, "mitigation"),
            ("decision: roll back search-api to 3.8.4", "decision"),
            (BACK, "note"),
            (TO_DO, "action"),
        ],
    )
    items = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert items and items[0].text == BACK, [i.text for i in items]


async def test_a_lead_that_gives_a_value_is_replaced_only_by_a_later_one(
    db, redactor, embedder
) -> None:
    recall = await _channel(
        db, redactor, embedder, [("maxclients alert fired 3 times", "note"), (BACK, "note")]
    )
    items = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert items[0].text == BACK


async def test_a_later_value_replaces_an_earlier_value_that_led(db, redactor, embedder) -> None:
    recall = await _channel(
        db,
        redactor,
        embedder,
        [(BUMPED, "mitigation"), ("maxclients at 30000 since noon, as agreed", "decision")],
    )
    (lead, *_) = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert lead.text == "maxclients at 30000 since noon, as agreed"


async def test_a_later_statement_without_a_value_is_not_undone_by_an_earlier_value(
    db, redactor, embedder
) -> None:
    """Only an open to-do gives way to an earlier value: a later decision that names no number
    ("keep maxclients as it is") is the newer word, and leads."""
    keep = "decision: leave maxclients set as it is now until the pool fix lands"
    recall = await _channel(db, redactor, embedder, [(BUMPED, "mitigation"), (keep, "decision")])
    (lead, *_) = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert lead.text == keep


async def test_a_correction_of_the_newest_value_is_shown_above_it(db, redactor, embedder) -> None:
    fix = "scratch that, maxclients is 25000 not 20000"
    recall = await _channel(
        db, redactor, embedder, [(BUMPED, "mitigation"), (fix, "correction"), (TO_DO, "action")]
    )
    first, second, *_ = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert (first.text, second.text) == (fix, BUMPED)
    assert second.superseded_by == first.id


async def test_in_its_incidents_channel_a_value_need_not_name_what_the_title_says(
    db, redactor, embedder
) -> None:
    back = "decision on limits: we set the memory limit back from 2Gi to 1Gi"
    recall = await _channel(
        db,
        redactor,
        embedder,
        [
            ("raised the appointment-svc memory limit to 2Gi, rollout in progress", "mitigation"),
            (back, "decision"),
        ],
        title="appointment-svc OOM",
    )
    (lead, *_) = await recall.relevant(ASKER, "What is the appointment-svc memory limit now?")
    assert lead.text == back


async def test_a_later_question_about_the_value_is_no_value(db, redactor, embedder) -> None:
    recall = await _channel(
        db,
        redactor,
        embedder,
        [(BACK, "note"), ("is maxclients at 10000 on replica-2 too?", "note"), (TO_DO, "action")],
    )
    (lead, *_) = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert lead.text == BACK


async def test_the_channel_query_never_returns_a_personal_note_even_to_its_owner(
    db, redactor, embedder
) -> None:
    """SQL layer: the statements the newest value is read from are shared ones only."""
    await _channel(db, redactor, embedder, [(BUMPED, "mitigation")])
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "my own test box: maxclients set to 50000", "note"
    )
    owner = Requester.full_member("T1/U1", "T1", channel_id="C1")
    rows = await note_store.earlier_in_channel(
        db, owner, channel_id="C1", before_id=NEWEST_ID, limit=60
    )
    assert [r["text"] for r in rows] == [BUMPED]


async def test_a_personal_value_the_store_returned_never_leads_a_shared_answer(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the channel query to return a personal note, it is never shown."""
    recall = await _channel(db, redactor, embedder, [(BUMPED, "mitigation"), (TO_DO, "action")])
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "my own test box: maxclients set to 50000", "note"
    )
    monkeypatch.setattr(note_store, "earlier_in_channel", await store_returning_personal_rows(db))
    items = await recall.relevant(ASKER, "what's maxclients set to now?")
    assert items and all(i.scope != "user" for i in items)
