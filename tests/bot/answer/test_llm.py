"""Citation checks and history compaction for the LLM step (issue 5, item 9); the citation
gate on what the model answers, against the Ollama stand-in (issue 18, item 6)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from bot.answer import messages
from bot.answer.compose import Answer, Question, Source, ThreadKey
from bot.answer.llm import (
    SYSTEM_PROMPT,
    Generator,
    OllamaChat,
    TokenLedger,
    compact_history,
    unknown_citations,
)
from memory.scopes import Requester
from memory.store.db import Database
from tests.fakes.ollama_server import FakeOllama

CITED = Answer(
    "Start with *db › Steps* [S1]: raise the pool size.",
    (Source("S1", "runbook", "db › Steps", "Raise the pool size."),),
)
QUESTION = Question(
    Requester("T1/U1", "T1", channel_id="C1"), "pool?", ThreadKey("T1", "C1", "1.0")
)


@pytest.fixture
async def ollama() -> AsyncIterator[tuple[FakeOllama, str]]:
    fake = FakeOllama()
    url = await fake.start()
    yield fake, url
    await fake.stop()


@pytest.fixture
async def generator(
    db: Database, ollama: tuple[FakeOllama, str]
) -> AsyncIterator[tuple[Generator, FakeOllama]]:
    fake, url = ollama
    gen = Generator(
        OllamaChat(host=url, model="llama3.2", timeout_s=5), TokenLedger(db, cap=10_000)
    )
    yield gen, fake
    await gen.close()


async def test_a_model_answer_citing_given_sources_replaces_the_summary(generator) -> None:  # type: ignore[no-untyped-def]
    gen, fake = generator
    fake.reply = "Raise the pool size [S1]."
    improved, reply = await gen.improve(QUESTION, CITED, [])
    assert improved.generated and improved.summary == "Raise the pool size [S1]."
    assert reply is not None and improved.notice is None


@pytest.mark.parametrize(
    "model_says",
    [
        "Raise the pool size.",  # no citation at all
        "Drop the database [S9].",  # a source it was not given
        "Raise the pool size [S1], then drop the database [S2].",  # one known, one unknown
        "   ",  # nothing
    ],
)
async def test_a_model_answer_without_valid_citations_is_not_posted(
    generator, model_says: str
) -> None:  # type: ignore[no-untyped-def]
    gen, fake = generator
    fake.reply = model_says
    improved, _ = await gen.improve(QUESTION, CITED, [])
    assert not improved.generated
    assert improved.summary == CITED.summary
    assert improved.notice == messages.UNVERIFIED_LLM_ANSWER


async def test_an_answer_with_no_sources_is_never_sent_to_the_model(generator) -> None:  # type: ignore[no-untyped-def]
    gen, fake = generator
    bare = Answer("I found nothing in the runbooks or in memory that answers this.")
    assert await gen.improve(QUESTION, bare, []) == (bare, None)
    assert [r for r in fake.requests if r.path == "/api/chat"] == []


def test_citation_of_a_source_not_given_is_detected() -> None:
    a = Answer("s", (Source("S1", "runbook", "db › Steps", "t"),))
    assert unknown_citations("Do it [S1] then [S7].", a) == {"S7"}
    assert unknown_citations("Do it [S1].", a) == set()


def test_compaction_keeps_newest_messages_within_budget() -> None:
    msgs = [{"role": "user", "content": f"m{i} " + "x" * 396} for i in range(10)]  # ~100 tokens
    kept = compact_history(msgs, budget_tokens=350)
    assert [m["content"][:2] for m in kept] == ["m7", "m8", "m9"]


def test_compaction_never_separates_a_tool_call_from_its_results() -> None:
    msgs = [
        {"role": "user", "content": "old " * 100},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "recall"}}]},
        {"role": "tool", "content": "r1 " * 60},
        {"role": "tool", "content": "r2 " * 60},
        {"role": "user", "content": "new question"},
    ]
    kept = compact_history(msgs, budget_tokens=60)
    assert kept == [msgs[-1]]  # the tool unit (~92 tokens) does not fit: dropped whole
    kept = compact_history(msgs, budget_tokens=100)
    assert kept == msgs[1:]  # fits: call and both results kept together


async def test_a_thread_at_its_token_cap_gets_the_cited_answer_and_a_notice(
    db: Database, ollama: tuple[FakeOllama, str]
) -> None:
    """The cap counts what the model reported (42 + 7 tokens per reply); at the cap, no call."""
    fake, url = ollama
    fake.reply = "Raise the pool size [S1]."
    gen = Generator(OllamaChat(host=url, model="llama3.2", timeout_s=5), TokenLedger(db, cap=49))
    try:
        first, _ = await gen.improve(QUESTION, CITED, [])
        assert first.generated
        capped, reply = await gen.improve(QUESTION, CITED, [])
    finally:
        await gen.close()
    assert reply is None
    assert capped == replace(CITED, notice=messages.token_cap_reached(49))
    assert len([r for r in fake.requests if r.path == "/api/chat"]) == 1


async def test_the_model_is_given_the_rules_the_numbered_sources_and_the_question(
    generator,  # type: ignore[no-untyped-def]
) -> None:
    gen, fake = generator
    fake.reply = "Raise the pool size [S1]."
    await gen.improve(QUESTION, CITED, [{"role": "user", "content": "earlier in the thread"}])
    [chat] = [r.body for r in fake.requests if r.path == "/api/chat"]
    assert chat["messages"] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "earlier in the thread"},
        {
            "role": "user",
            "content": "Sources:\n[S1] db › Steps\nRaise the pool size.\n\nQuestion: pool?",
        },
    ]
