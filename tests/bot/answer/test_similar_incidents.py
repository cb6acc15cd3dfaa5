"""Similar past incidents (issue 14, item 5): up to three, each with id, title, when, status,
its root cause line and a link; an unrelated question finds nothing similar."""

from __future__ import annotations

from bot.answer import render
from bot.answer.compose import Answering, Question, ThreadKey
from memory.embedding.embedder import Embedder
from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.recall.recall import Recall
from memory.redaction.redactor import Redactor
from memory.scopes import Requester
from memory.store.db import Database
from memory.subjects import Author
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx

# Asked from a new incident channel by someone who may read the old one.
ASKER = Requester("T1/UASK", "T1", channel_id="CNEW", member_channel_ids=frozenset({"COLD"}))


SAID = [
    (ALICE, "billing-api pods throw HikariPool connection timeouts"),
    (BOB, "root cause: recon-worker held 96 postgres sessions idle in transaction"),
    (ALICE, "mitigation: paused recon-worker, errors stopped"),
]


async def _past_incident(
    db: Database,
    redactor: Redactor,
    embedder: Embedder,
    said: list[tuple[Author, str]] = SAID,
    *,
    status: str | None = "resolved",
) -> str:
    """Incident "Billing API 5xx" in #COLD whose thread said `said`; `status` as set with
    `/incident status` (None: never set, so it stays open)."""
    inc = await Incidents(db, redactor=redactor).open(
        ctx("COLD", author=ALICE), title="Billing API 5xx", channel_id="COLD"
    )
    if status is not None:
        await Incidents(db, redactor=redactor).set_status("T1", inc.id, status)
    threads = Threads(db, redactor, notes=Notes(db, redactor, embedder))
    for i, (author, text) in enumerate(said):
        ts = f"170000000{i}.000100"
        await threads.capture(
            ctx("COLD", author=author, source_ts=ts), ts=ts, thread_ts=None, text=text,
            incident=inc.id,
        )  # fmt: skip
    return inc.id


async def test_a_matching_past_incident_is_shown_with_when_status_root_cause_and_link(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    old = await _past_incident(db, redactor, embedder)
    answering = Answering(
        recall=Recall(db, embedder), knowledge=None, skills=None, profiles=None, episodes=None
    )
    q = Question(ASKER, "pods throw HikariPool connection timeouts", ThreadKey("T1", "CNEW", "1"))
    answer = await answering.compose(q)
    (similar,) = answer.similar
    assert similar.incident_id == old and similar.status == "resolved"
    assert similar.line and "recon-worker held 96 postgres sessions" in similar.line
    assert similar.url and similar.url.startswith("https://")
    (block,) = render.similar_incidents(answer.similar)
    text = block["text"]["text"]
    assert f"<{similar.url}|{old}> Billing API 5xx" in text and "resolved" in text
    assert similar.when in text


async def test_an_unrelated_question_finds_nothing_similar(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    await _past_incident(db, redactor, embedder)
    recall = Recall(db, embedder)
    assert await recall.similar_incidents(ASKER, "office coffee machine is broken") == []
    assert render.similar_incidents([]) == [render.context("No similar past incidents found.")]


async def test_a_past_incident_shows_what_its_thread_last_said_about_its_status(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """Nobody ran `/incident status`, but the thread said it was resolved: the line says so
    beside the incident's own status instead of showing a plain "open"."""
    said = [
        (ALICE, "billing-api pods throw HikariPool connection timeouts"),
        (BOB, "status: mitigated, watching the error rate"),
        (BOB, "status: resolved at 10:48 <!channel>"),
    ]
    await _past_incident(db, redactor, embedder, said, status=None)
    answering = Answering(
        recall=Recall(db, embedder), knowledge=None, skills=None, profiles=None, episodes=None
    )
    q = Question(ASKER, "pods throw HikariPool connection timeouts", ThreadKey("T1", "CNEW", "1"))
    (similar,) = (await answering.compose(q)).similar
    assert similar.status == "open"
    (block,) = render.similar_incidents((similar,))
    text = block["text"]["text"]
    assert "open; thread says: resolved at 10:48 &lt;!channel&gt;" in text


async def test_a_past_incident_whose_status_is_its_headline_says_it_once(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """No root cause, fix or decision said, only "resolved 12:30": the line is not the same
    status said again after the facts, in the list or in a "seen before" lead."""
    said = [
        (ALICE, "billing-api pods throw HikariPool connection timeouts"),
        (BOB, "status: resolved 12:30"),
    ]
    await _past_incident(db, redactor, embedder, said, status=None)
    answering = Answering(
        recall=Recall(db, embedder), knowledge=None, skills=None, profiles=None, episodes=None
    )
    asked = "billing-api pods throw HikariPool connection timeouts, have we seen this before?"
    answer = await answering.compose(Question(ASKER, asked, ThreadKey("T1", "CNEW", "1")))
    (block,) = render.similar_incidents(answer.similar)
    assert block["text"]["text"].count("resolved 12:30") == 1, block["text"]["text"]
    lead = answer.summary.splitlines()[0]
    assert lead.startswith("Seen before:") and lead.count("resolved 12:30") == 1, lead


async def test_a_correction_of_another_statement_leaves_the_root_cause_line_be(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """ "Scratch that, roll back to 5 days" corrects the rollback target said just before it,
    not the root cause that also names retention: the past incident is known by its cause. Its
    status is the one its latest message labels, however that message opens."""
    said = [
        (ALICE, "orders consumers are lagging, kafka-3 disk at 97%"),
        (BOB, "root cause: the 14-day retention change on orders.v2 had no capacity check"),
        (BOB, "if we need to undo the retention change, roll back to 7 days, not the original 3"),
        (BOB, "scratch that, the original retention was 5 days, so roll back to 5 days"),
        (ALICE, "Lag is back under 1k. Status: mitigated."),
    ]
    await _past_incident(db, redactor, embedder, said, status=None)
    answering = Answering(
        recall=Recall(db, embedder), knowledge=None, skills=None, profiles=None, episodes=None
    )
    asked = "orders consumers lagging and kafka disk full, have we seen this before?"
    answer = await answering.compose(Question(ASKER, asked, ThreadKey("T1", "CNEW", "1")))
    (block,) = render.similar_incidents(answer.similar)
    text = block["text"]["text"]
    assert "the 14-day retention change on orders.v2 had no capacity check" in text, text
    assert "scratch that" not in text.lower(), text
    assert "thread says: mitigated." in text, text
    lead = answer.summary.splitlines()[0]
    assert lead.startswith("Seen before:") and "thread says: mitigated." in lead, lead


async def test_a_long_report_said_across_a_past_incidents_messages_finds_it(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """A new incident's report names several things ("consumer group … behind … kafka … disk");
    the past incident said each in a different message, none whole: read as one text, it is
    similar. A report about something else finds nothing."""
    said = [
        (
            ALICE,
            "Orders consumers are lagging badly: consumer group orders-fulfilment is 2.1M behind",
        ),
        (BOB, "Broker kafka-3 is at 97% disk on /var/lib/kafka, retention on orders.v2 tripled"),
        (BOB, "root cause: the 14-day retention change on orders.v2 had no capacity check"),
        (ALICE, "I set retention.ms on orders.v2 to 259200000 (3 days), cleaner deleting segments"),
    ]
    await _past_incident(db, redactor, embedder, said, status=None)
    recall = Recall(db, embedder)
    report = "payments-events consumer group is 800k behind and kafka-5 disk is at 94%"
    for embedded in (False, True):  # read by words only until the index job embeds them
        if embedded:
            assert await Notes(db, redactor, embedder).index_missing_vectors() == len(said)
        found = await recall.similar_incidents(ASKER, f"{report}\nseen this?", report=report)
        assert [m.line for m in found] == [
            "root cause: the 14-day retention change on orders.v2 had no capacity check"
        ], embedded
    other = "search pods return 502s after the nginx ingress upgrade, tls handshakes time out"
    assert await recall.similar_incidents(ASKER, f"{other}\nseen this?", report=other) == []
    # Said in one word of one message ("delayed"), a report is no incident said in parts.
    delayed = "payment webhooks from stripe are delayed by 10 minutes, queue depth 40k"
    assert await recall.similar_incidents(ASKER, f"{delayed}\nseen this?", report=delayed) == []


async def test_a_report_is_never_matched_by_personal_notes_or_this_channels_own(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """Read together, an incident's messages exclude the asker's own channel's and personal
    rows: neither may make an incident "seen before" in a shared post."""
    from dataclasses import replace as replaced

    from memory.recall.floor import FLOORS
    from memory.recall.recall import _incidents_read_whole

    said = [
        (ALICE, "orders consumers are lagging: consumer group orders-fulfilment is 2.1M behind"),
        (BOB, "broker kafka-3 is at 97% disk on /var/lib/kafka"),
    ]
    await _past_incident(db, redactor, embedder, said, status=None)
    report = "payments-events consumer group is 800k behind and kafka-5 disk is at 94%"
    hits = await Recall(db, embedder).recall(ASKER, report, k=10)
    floors = (FLOORS["hybrid"], FLOORS["keyword"])
    assert _incidents_read_whole(report, hits, {}, ASKER, floors)  # the two messages together
    personal = [replaced(hits[0], scope="user"), *hits[1:]]
    assert _incidents_read_whole(report, personal, {}, ASKER, floors) == {}
    here = Requester("T1/UASK", "T1", channel_id="COLD")
    assert _incidents_read_whole(report, hits, {}, here, floors) == {}


async def test_a_report_read_together_needs_two_messages_and_half_its_words_numbers_aside(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """With a floor every incident passes, what decides is the reading itself: two messages
    each saying a part, together half of the report's words, its readings (numbers) left out."""
    from memory.recall.floor import FloorConfig
    from memory.recall.recall import _incidents_read_whole

    said = [
        (ALICE, "consumer group orders-fulfilment is 2.1M behind"),
        (BOB, "broker kafka-3 disk at 97%"),
    ]
    await _past_incident(db, redactor, embedder, said, status=None)
    recall = Recall(db, embedder)
    anything = FloorConfig(bias=30.0, w_sim=0.0, w_cov=0.0, w_rank=0.0, floor=0.0, ratio=0.0)
    floors = (anything, anything)

    async def read(report: str) -> set[str]:
        hits = await recall.recall(ASKER, report, k=10)
        return set(_incidents_read_whole(report, hits, {}, ASKER, floors))

    assert await read("kafka-5 disk 94% 800k 12ms behind") == {"inc-1"}  # numbers: no words
    never = FloorConfig(bias=-30.0, w_sim=0.0, w_cov=0.0, w_rank=0.0, floor=0.5, ratio=0.0)
    report = "kafka-5 disk 94% 800k 12ms behind"
    hits = await recall.recall(ASKER, report, k=10)
    assert _incidents_read_whole(report, hits, {}, ASKER, (never, never)) == {}  # the floor
    # One message says both words of "kafka disk": no report said in parts.
    assert await read("kafka disk") == set()
    # Two messages, one word each, of a report of six: not half of it.
    assert await read("kafka behind, checkout cart payments tokens") == set()
