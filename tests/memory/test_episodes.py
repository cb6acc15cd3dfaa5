"""Episodes: deterministic thread roll-ups, scoped reads and search, and the daily digest data."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.episodes.episodes import Episodes
from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.redaction.redactor import Redactor
from memory.scopes import Requester
from memory.store.db import Database
from memory.threads import Threads
from tests.fakes.ollama_server import FakeOllama
from tests.memory.contexts import ALICE, BOB, ctx

ROOT = "1764500000.000100"

THREAD = [
    (ALICE, ROOT, "p99 latency on checkout-api jumped to 2.4s after the 14:05 deploy"),
    (
        BOB,
        "1764500060.000100",
        "Looks like the root cause is connection pool exhaustion in pgbouncer.",
    ),
    (ALICE, "1764500120.000100", "Decided to roll back build 4812. I'll write the postmortem."),
    (BOB, "1764500300.000100", "Rolled back; error rate back to normal. lol coffee time"),
]


async def capture(
    db: Database, redactor: Redactor, clock, channel: str = "CINC1", private: bool = False
) -> None:
    threads = Threads(db, redactor, clock)
    for author, ts, text in THREAD:
        await threads.capture(
            ctx(channel, author=author, private=private), ts=ts, thread_ts=ROOT, text=text
        )


async def test_roll_up_extracts_first_report_cues_participants_and_span(
    db: Database, redactor: Redactor, clock
) -> None:
    await capture(db, redactor, clock)
    ep = await Episodes(db, None, clock).roll_up("T1", "CINC1", ROOT)
    assert ep is not None
    assert ep.title.startswith("p99 latency on checkout-api")
    assert ep.sections["root_causes"] == [
        "Looks like the root cause is connection pool exhaustion in pgbouncer."
    ]
    assert ep.sections["decisions"] == ["Decided to roll back build 4812."]
    assert ep.sections["actions"] == ["alice: I'll write the postmortem."]  # with its owner
    assert ep.sections["mitigations"] == ["Rolled back; error rate back to normal."]
    assert "coffee" not in ep.summary, "chatter without a cue stays out of the summary"
    assert ep.participants == (ALICE.subject_id, BOB.subject_id)
    assert ep.message_count == 4 and ep.ended_at - ep.started_at == timedelta(minutes=5)
    assert ep.owner_subject_id == ALICE.subject_id


async def test_a_thread_so_far_is_told_only_to_someone_asking_in_its_channel(
    db: Database, redactor: Redactor, clock
) -> None:
    await capture(db, redactor, clock, channel="CPRIV", private=True)
    episodes = Episodes(db, None, clock)
    inside = Requester("T1/UASK", "T1", channel_id="CPRIV")
    now = await episodes.so_far(inside, "T1", "CPRIV", ROOT)
    assert now is not None and "Decisions: Decided to roll back build 4812." in now.text
    for elsewhere in (
        Requester("T1/UASK", "T1", channel_id="CGEN"),
        Requester("T1/UASK", "T1", channel_id=None),  # App Home, a DM
        Requester("T2/UASK", "T2", channel_id="CPRIV"),  # another workspace's channel id
    ):
        assert await episodes.so_far(elsewhere, "T1", "CPRIV", ROOT) is None
    assert await episodes.so_far(inside, "T1", "CPRIV", "1.000") is None  # no such thread


async def test_a_channel_so_far_is_told_only_to_someone_asking_in_it(
    db: Database, redactor: Redactor, clock
) -> None:
    await capture(db, redactor, clock, channel="CPRIV", private=True)
    episodes = Episodes(db, None, clock)
    inside = Requester("T1/UASK", "T1", channel_id="CPRIV")
    now = await episodes.channel_so_far(inside, "T1", "CPRIV")
    assert now is not None and "Decisions: Decided to roll back build 4812." in now.text
    for elsewhere in (
        Requester("T1/UASK", "T1", channel_id="CGEN"),
        Requester("T1/UASK", "T1", channel_id=None),  # App Home, a DM
        Requester("T2/UASK", "T2", channel_id="CPRIV"),  # another workspace's channel id
    ):
        assert await episodes.channel_so_far(elsewhere, "T1", "CPRIV") is None
    assert (
        await episodes.channel_so_far(Requester("T1/U", "T1", channel_id="CX"), "T1", "CX") is None
    )


async def test_a_channel_so_far_reads_only_its_own_workspaces_messages(
    db: Database, redactor: Redactor, clock
) -> None:
    """Two workspaces can hold a channel with the same id: the SQL reads the asker's team's."""
    threads = Threads(db, redactor, clock)
    await threads.capture(
        ctx("CSAME", team="T2", user="U2"),
        ts="1.000100",
        thread_ts=None,
        text="decision: T2 rotates its payments keys",
    )
    await threads.capture(
        ctx("CSAME"), ts="1.000200", thread_ts=None, text="decision: roll back build 4812"
    )
    now = await Episodes(db, None, clock).channel_so_far(
        Requester("T1/UASK", "T1", channel_id="CSAME"), "T1", "CSAME"
    )
    assert now is not None and "roll back build 4812" in now.text
    assert "payments keys" not in now.text


async def test_roll_up_is_an_upsert_and_links_the_channel_incident(
    db: Database, redactor: Redactor, clock
) -> None:
    incident = await Incidents(db, clock, redactor=redactor).open(
        ctx("CINC1", author=ALICE), title="checkout slow", channel_id="CINC1"
    )
    await capture(db, redactor, clock)
    episodes = Episodes(db, None, clock)
    first = await episodes.roll_up("T1", "CINC1", ROOT)
    clock.advance(minutes=3)
    second = await episodes.roll_up("T1", "CINC1", ROOT)
    assert first is not None and second is not None
    assert first.id == second.id and second.updated_at > first.updated_at
    assert second.incident_id == incident.id
    assert await db.scalar("SELECT count(*) FROM memory_episodes") == 1


async def test_empty_thread_rolls_up_to_nothing(db: Database, clock) -> None:
    assert await Episodes(db, None, clock).roll_up("T1", "CINC1", ROOT) is None


async def test_private_channel_episode_is_only_found_inside_that_channel(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    await capture(db, redactor, clock, channel="CPRIV", private=True)
    episodes = Episodes(db, embedder, clock)
    await episodes.roll_up("T1", "CPRIV", ROOT)
    inside = Requester(BOB.subject_id, "T1", channel_id="CPRIV")
    outside = Requester(
        ALICE.subject_id, "T1", channel_id="COTHER", member_channel_ids=frozenset({"CPRIV"})
    )
    assert [h.episode.channel_id for h in await episodes.search(inside, "pgbouncer pool")] == [
        "CPRIV"
    ]
    assert await episodes.search(outside, "pgbouncer pool") == []
    assert await episodes.search(outside, "database connections ran out") == []
    assert len(await episodes.recent(inside)) == 1 and await episodes.recent(outside) == []


async def test_search_finds_episode_by_meaning_with_an_embedder(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    await capture(db, redactor, clock)
    episodes = Episodes(db, embedder, clock)
    await episodes.roll_up("T1", "CINC1", ROOT)
    member = Requester(BOB.subject_id, "T1", member_channel_ids=frozenset({"CINC1"}))
    hits = await episodes.search(member, "slow responses after a release")
    assert [h.episode.channel_id for h in hits] == ["CINC1"]
    keyword_only = Episodes(db, None, clock)
    assert await keyword_only.search(member, "slow responses after a release") == []


async def test_digest_holds_public_incidents_episodes_and_decisions_only(
    db: Database, redactor: Redactor, clock
) -> None:
    since = clock() - timedelta(hours=1)
    incidents = Incidents(db, clock, redactor=redactor)
    pub = await incidents.open(
        ctx("CINC1", author=ALICE), title="checkout slow", channel_id="CINC1"
    )
    await incidents.open(
        ctx("CPRIV", author=ALICE, private=True), title="hush hush", channel_id="CPRIV"
    )
    await incidents.set_status("T1", pub.id, "resolved")
    await capture(db, redactor, clock)
    await capture(db, redactor, clock, channel="CPRIV", private=True)
    notes = Notes(db, redactor, None, clock=clock)
    await notes.save(
        ctx("CINC1", author=ALICE), "we decided to freeze deploys", kind="decision", incident=pub.id
    )
    await notes.save(ctx("CPRIV", author=ALICE, private=True), "private decision", kind="decision")
    episodes = Episodes(db, None, clock)
    await episodes.roll_up("T1", "CINC1", ROOT)
    await episodes.roll_up("T1", "CPRIV", ROOT)
    clock.advance(minutes=1)
    digest = await episodes.digest("T1", since)
    assert [i.id for i in digest.incidents_opened] == [pub.id]
    assert [i.id for i in digest.incidents_resolved] == [pub.id]
    assert [e.channel_id for e in digest.episodes] == ["CINC1"]
    assert [(d.source, d.text) for d in digest.decisions] == [
        ("episode", "Decided to roll back build 4812."),
        ("note", "we decided to freeze deploys"),
    ]
    assert (await episodes.digest("T1", clock())).empty


@pytest.fixture
async def fake_ollama() -> AsyncIterator[tuple[FakeOllama, str]]:
    fake = FakeOllama()
    yield fake, await fake.start()
    await fake.stop()


def ollama_chat(base_url: str):
    import aiohttp

    async def chat(messages: list[dict[str, str]], format: dict) -> str:
        body = {"model": "llama3.2", "messages": messages, "format": format, "stream": False}
        async with aiohttp.ClientSession() as s, s.post(f"{base_url}/api/chat", json=body) as r:
            return (await r.json())["message"]["content"]

    return chat


async def test_llm_summary_is_stored_redacted_and_invalid_output_is_dropped(
    db: Database, redactor: Redactor, clock, fake_ollama: tuple[FakeOllama, str]
) -> None:
    fake, url = fake_ollama
    await capture(db, redactor, clock)
    episodes = Episodes(db, None, clock, redactor=redactor)
    fake.reply = json.dumps({"summary": "Rolled back 4812; ask sre@example.com for details."})
    ep = await episodes.roll_up("T1", "CINC1", ROOT, chat=ollama_chat(url))
    assert ep is not None and ep.llm_summary is not None
    assert "Rolled back 4812" in ep.llm_summary and "sre@example.com" not in ep.llm_summary
    fake.reply = "Sure! Here is a summary: it was bad."
    ep = await episodes.roll_up("T1", "CINC1", ROOT, chat=ollama_chat(url))
    assert ep is not None and ep.llm_summary is None and ep.summary


async def test_digest_shows_workspace_decisions_but_no_personal_or_other_team_memory(
    db: Database, redactor: Redactor, clock
) -> None:
    """The digest reads through the visibility filter as the team's public audience."""
    since = clock() - timedelta(hours=1)
    notes = Notes(db, redactor, None, clock=clock)
    await notes.save(ctx("CINC1", author=ALICE, scope="workspace"), "we decided on canaries")
    await notes.save(ctx(None, author=ALICE, scope="user"), "my own decision", kind="decision")
    await notes.save(ctx("CPRIV", author=BOB, private=True), "hush decision", kind="decision")
    await notes.save(ctx("CINC1", team="T2", user="U7"), "other team decision", kind="decision")
    await Incidents(db, clock, redactor=redactor).open(
        ctx("CINC1", team="T2", user="U7"), title="other team outage", channel_id="CINC1"
    )
    await notes.save(
        ctx("CINC1", author=ALICE, scope="workspace"), "we decided to freeze", kind="decision"
    )
    clock.advance(minutes=1)
    digest = await Episodes(db, None, clock).digest("T1", since)
    assert [d.text for d in digest.decisions] == ["we decided to freeze"]
    assert digest.incidents_opened == []


async def test_search_fuses_keyword_and_vector_ranks_with_shared_rrf(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    """An episode both searches rank first scores 1/60 + 1/60 (text.rrf at RRF_K)."""
    await capture(db, redactor, clock)
    episodes = Episodes(db, embedder, clock)
    await episodes.roll_up("T1", "CINC1", ROOT)
    member = Requester(BOB.subject_id, "T1", channel_id="CINC1")
    [hit] = await episodes.search(member, "pgbouncer connection pool")
    assert hit.score == pytest.approx(2 / 60)
    [keyword_only] = await Episodes(db, None, clock).search(member, "pgbouncer connection pool")
    assert keyword_only.score == pytest.approx(1 / 60)


async def test_an_unrelated_question_gets_no_episode_even_though_one_is_nearest(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    """Vector search always has a nearest episode; an answer must not cite it for a question
    about something else (it read as "memory has nothing" above a cited roll-up)."""
    await capture(db, redactor, clock)
    episodes = Episodes(db, embedder, clock)
    await episodes.roll_up("T1", "CINC1", ROOT)
    member = Requester(BOB.subject_id, "T1", member_channel_ids=frozenset({"CINC1"}))
    for question in ("how do I mitigate CPU throttling?", "is there anything about fraud?"):
        assert await episodes.search(member, question) == [], question
    assert await episodes.search(member, "slow responses after a release") != []


async def test_a_roll_up_that_shares_one_word_with_the_question_is_not_relevant(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    """Keyword search finds the roll-up on "logs" alone; `relevant` (what answers cite) keeps
    it only for a question about what the thread was about."""
    await capture(db, redactor, clock)
    episodes = Episodes(db, embedder, clock)
    await episodes.roll_up("T1", "CINC1", ROOT)
    member = Requester(BOB.subject_id, "T1", member_channel_ids=frozenset({"CINC1"}))
    off_topic = "who leaked card numbers into the payments deploy logs?"
    assert await episodes.search(member, off_topic) != [], "keyword search does match it"
    assert await episodes.relevant(member, off_topic) == []
    [hit] = await episodes.relevant(member, "what caused the checkout latency after the deploy?")
    assert hit.episode.title.startswith("p99 latency on checkout-api")


async def test_questions_to_the_bot_are_not_part_of_the_roll_up(
    db: Database, redactor: Redactor, clock
) -> None:
    """A thread of nothing but questions to the bot is no episode; in a real thread the
    question is left out of what happened."""
    threads = Threads(db, redactor, clock)
    asked = "1764500500.000100"
    await threads.capture(
        ctx("CINC1", author=BOB),
        ts=asked,
        thread_ts=None,
        text="what was the root cause?",
        asks_bot=True,
    )
    assert await Episodes(db, None, clock).roll_up("T1", "CINC1", asked) is None
    await capture(db, redactor, clock)
    await threads.capture(
        ctx("CINC1", author=BOB),
        ts="1764500600.000100",
        thread_ts=ROOT,
        text="is there a runbook for pgbouncer?",
        asks_bot=True,
    )
    ep = await Episodes(db, None, clock).roll_up("T1", "CINC1", ROOT)
    assert ep is not None and ep.message_count == len(THREAD)
    assert "runbook for pgbouncer" not in ep.summary
