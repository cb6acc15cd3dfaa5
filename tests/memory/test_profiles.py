"""Profiles (issue 4 item 6): dedup, corrections, redaction, scopes and LLM extraction."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.errors import EmptyText, FactOnlySecrets, FactTooLong, RedactionFailed, UnknownItem
from memory.profiles.extraction import SourceMessage
from memory.profiles.profiles import Profiles
from memory.redaction.redactor import Redactor
from memory.scopes import Requester, WriteContext
from memory.store.db import Database
from memory.subjects import Author
from tests.fakes.crashing_recognizer import crashing_redactor
from tests.fakes.ollama_server import FakeOllama
from tests.memory.contexts import ALICE, BOB
from tests.memory.contexts import ctx as write

SOURCE_TS = "1700000000.000100"


@pytest.fixture
def profiles(db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock) -> Profiles:
    return Profiles(db, redactor, embedder, clock)


async def vector_rows(db: Database, prefix: str) -> int:
    """Rows across every vec0 table whose name starts with `prefix`."""
    tables = await db.fetchall(
        "SELECT name FROM sqlite_master WHERE name LIKE ? AND sql LIKE 'CREATE VIRTUAL%'",
        (prefix + "%",),
    )
    return sum([await db.scalar(f"SELECT count(*) FROM {t[0]}") for t in tables])


def ctx(
    author: Author = ALICE, channel: str | None = "CINC1", private: bool = False
) -> WriteContext:
    """A personal (user-scope) write quoting a message in `channel`."""
    return write(channel, author=author, private=private, scope="user", source_ts=SOURCE_TS)


async def test_fact_is_stored_redacted_and_linked_to_its_source_message(profiles: Profiles) -> None:
    fact = await profiles.add_fact(ctx(), "Page me at alice@example.com, I own the payments stack")
    assert "alice@example.com" not in fact.text and "<EMAIL_ADDRESS>" in fact.text
    assert (fact.source_channel_id, fact.source_ts) == ("CINC1", "1700000000.000100")
    stored = await profiles.facts(ALICE.subject_id)
    assert [f.text for f in stored] == [fact.text]


async def test_new_fact_contained_in_old_keeps_the_old_one(profiles: Profiles) -> None:
    old = await profiles.add_fact(ctx(), "I use Terraform and Helm for deploys")
    again = await profiles.add_fact(ctx(), "i use terraform")
    assert again.outcome == "duplicate" and again.id == old.id
    assert [f.id for f in await profiles.facts(ALICE.subject_id)] == [old.id]


async def test_old_fact_contained_in_new_is_replaced_and_kept_as_history(
    profiles: Profiles,
) -> None:
    old = await profiles.add_fact(ctx(), "I use Terraform")
    new = await profiles.add_fact(ctx(), "I use Terraform and Helm for deploys")
    assert new.outcome == "replaced"
    assert [f.id for f in await profiles.facts(ALICE.subject_id)] == [new.id]
    history = {f.id: f for f in await profiles.history(ALICE.subject_id)}
    assert history[old.id].superseded_by == new.id and history[old.id].superseded_at is not None


async def test_paraphrase_is_a_near_duplicate_by_embedding(profiles: Profiles) -> None:
    old = await profiles.add_fact(ctx(), "I prefer Grafana dashboards over Kibana")
    again = await profiles.add_fact(ctx(), "I like Grafana dashboards more than Kibana")
    assert again.outcome == "duplicate" and again.id == old.id


async def test_negated_fact_is_not_a_duplicate_and_supersedes(profiles: Profiles) -> None:
    old = await profiles.add_fact(ctx(), "I am on call this week")
    new = await profiles.add_fact(ctx(), "I am not on call this week")
    assert new.outcome == "replaced" and new.id != old.id
    assert [f.text for f in await profiles.facts(ALICE.subject_id)] == [
        "I am not on call this week"
    ]


async def test_correction_supersedes_the_closest_fact_only(profiles: Profiles) -> None:
    stack = await profiles.add_fact(ctx(), "My stack is Python and Postgres")
    editor = await profiles.add_fact(ctx(), "I prefer vim as my editor", "preference")
    fixed = await profiles.add_fact(ctx(), "My stack is Go and Postgres", "correction")
    assert fixed.outcome == "corrected"
    current = {f.id for f in await profiles.facts(ALICE.subject_id)}
    assert current == {editor.id, fixed.id}
    old = next(f for f in await profiles.history(ALICE.subject_id) if f.id == stack.id)
    assert old.superseded_by == fixed.id


async def test_correction_without_embedder_uses_keyword_overlap(
    db: Database, redactor: Redactor, clock
) -> None:
    plain = Profiles(db, redactor, None, clock)
    old = await plain.add_fact(ctx(), "We run Kubernetes on GKE")
    fixed = await plain.add_fact(ctx(), "We run Kubernetes on EKS", "correction")
    assert fixed.outcome == "corrected"
    assert [f.id for f in await plain.facts(ALICE.subject_id)] == [fixed.id]
    assert old.id in {f.id for f in await plain.history(ALICE.subject_id)}


async def test_explicit_supersedes_must_be_my_own_current_fact(profiles: Profiles) -> None:
    bobs = await profiles.add_fact(ctx(BOB), "I use Datadog")
    with pytest.raises(UnknownItem):
        await profiles.add_fact(ctx(), "I use Grafana", "correction", supersedes=bobs.id)
    assert await profiles.facts(ALICE.subject_id) == []
    assert [f.id for f in await profiles.facts(BOB.subject_id)] == [bobs.id]


async def test_another_user_never_sees_my_profile(profiles: Profiles) -> None:
    await profiles.add_fact(
        ctx(channel="CPRIV", private=True), "I am the primary on-call for payments"
    )
    same_channel_bob = Requester(BOB.subject_id, "T1", channel_id="CPRIV")
    assert await profiles.for_requester(same_channel_bob) == []
    me = Requester(ALICE.subject_id, "T1", channel_id=None)
    assert [f.text for f in await profiles.for_requester(me)] == [
        "I am the primary on-call for payments"
    ]


async def test_fact_of_only_secrets_is_refused(profiles: Profiles) -> None:
    with pytest.raises(FactOnlySecrets):
        await profiles.add_fact(ctx(), "AKIAIOSFODNN7EXAMPLE alice@example.com")
    assert await profiles.history(ALICE.subject_id) == []


async def test_empty_and_oversized_facts_are_refused(profiles: Profiles) -> None:
    with pytest.raises(EmptyText):
        await profiles.add_fact(ctx(), "   \n ")
    with pytest.raises(FactTooLong) as err:
        await profiles.add_fact(ctx(), "x" * 501)
    assert err.value.limit == 500 and "500" in str(err.value)


async def test_redactor_failure_writes_nothing(db: Database, clock) -> None:
    broken = Profiles(db, crashing_redactor(), None, clock)
    with pytest.raises(RedactionFailed):
        await broken.add_fact(ctx(), "I use Terraform")
    assert await db.scalar("SELECT count(*) FROM memory_profile_facts") == 0


async def test_delete_removes_fact_fts_and_vector_but_only_my_own(
    profiles: Profiles, db: Database
) -> None:
    fact = await profiles.add_fact(ctx(), "I use kubectl with k9s")
    assert await vector_rows(db, "memory_profile_vec") == 1
    with pytest.raises(UnknownItem):
        await profiles.delete(BOB.subject_id, fact.id)
    await profiles.delete(ALICE.subject_id, fact.id)
    assert await profiles.history(ALICE.subject_id) == []
    hits = await db.scalar(
        "SELECT count(*) FROM memory_profile_facts_fts WHERE memory_profile_facts_fts MATCH 'k9s'"
    )
    assert hits == 0
    assert await vector_rows(db, "memory_profile_vec") == 0


# --- LLM extraction ---------------------------------------------------------------------------

MESSAGES = [
    SourceMessage(
        "1700000001.000100",
        "I deploy everything with ArgoCD, ping me at a@b.io",
        ALICE.subject_id,
        "CINC1",
    ),
    SourceMessage("1700000002.000100", "Bob here: I use Jenkins", BOB.subject_id, "CINC1"),
    SourceMessage(
        "1700000003.000100", "I can't touch prod DBs without approval", ALICE.subject_id, "CINC1"
    ),
]


@pytest.fixture
async def fake_ollama() -> AsyncIterator[tuple[FakeOllama, str]]:
    fake = FakeOllama()
    yield fake, await fake.start()
    await fake.stop()


def ollama_chat(base_url: str):
    """The callable the bot wires: Ollama's /api/chat with a JSON-schema format, non-streaming."""
    import aiohttp

    async def chat(messages: list[dict[str, str]], format: dict) -> str:
        body = {"model": "llama3.2", "messages": messages, "format": format, "stream": False}
        async with aiohttp.ClientSession() as s, s.post(f"{base_url}/api/chat", json=body) as r:
            return (await r.json())["message"]["content"]

    return chat


def reply(*facts: dict[str, str]) -> str:
    return json.dumps({"facts": list(facts)})


async def test_extraction_stores_valid_facts_linked_to_own_messages(
    profiles: Profiles, fake_ollama: tuple[FakeOllama, str]
) -> None:
    fake, url = fake_ollama
    fake.reply = reply(
        {
            "text": "I deploy with ArgoCD, reach me at a@b.io",
            "kind": "fact",
            "category": "tools",
            "source_ts": "1700000001.000100",
        },
        {
            "text": "I cannot touch production databases without approval",
            "kind": "fact",
            "category": "constraint",
            "source_ts": "1700000003.000100",
        },
    )
    stored = await profiles.extract_from_messages(ctx(), ollama_chat(url), MESSAGES)
    assert [(f.origin, f.source_ts, f.source_channel_id) for f in stored] == [
        ("extraction", "1700000001.000100", "CINC1"),
        ("extraction", "1700000003.000100", "CINC1"),
    ]
    assert "a@b.io" not in stored[0].text
    prompt = fake.requests[-1].body
    sent = json.dumps(prompt["messages"])
    assert "Jenkins" not in sent, "other people's messages must never reach the prompt"
    assert "a@b.io" not in sent, "messages are redacted before the model sees them"
    assert prompt["format"]["properties"]["facts"]


@pytest.mark.parametrize(
    "raw",
    [
        "not json at all",
        '{"facts": [{"text": "I use ArgoCD", "kind": "fact"}]}',
        reply(
            {
                "text": "I use ArgoCD",
                "kind": "fact",
                "category": "tools",
                "source_ts": "1700000001.000100",
            },
            {
                "text": "I use Jenkins",
                "kind": "fact",
                "category": "tools",
                "source_ts": "1700000002.000100",
            },
        ),
        reply(
            {
                "text": "I use ArgoCD",
                "kind": "opinion",
                "category": "tools",
                "source_ts": "1700000001.000100",
            }
        ),
    ],
    ids=["not-json", "missing-fields", "cites-someone-elses-message", "bad-kind"],
)
async def test_invalid_model_output_is_dropped_whole(
    profiles: Profiles, fake_ollama: tuple[FakeOllama, str], raw: str
) -> None:
    fake, url = fake_ollama
    fake.reply = raw
    assert await profiles.extract_from_messages(ctx(), ollama_chat(url), MESSAGES) == []
    assert await profiles.history(ALICE.subject_id) == []


async def test_extraction_is_not_called_without_own_messages(profiles: Profiles) -> None:
    calls: list[object] = []

    async def chat(messages: list[dict[str, str]], format: dict) -> str:
        calls.append(messages)
        return reply()

    assert await profiles.extract_from_messages(ctx(), chat, MESSAGES[1:2]) == []
    assert calls == []
