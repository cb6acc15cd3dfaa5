"""With Ollama configured the cited answer is edited in place by the LLM answer, whose
citations must name given sources; tokens are capped per thread (issue 5, items 3 and 9)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, INCIDENT, SECRET, eventually
from tests.fakes.ollama_server import FakeOllama


@pytest.fixture
async def ollama() -> AsyncIterator[FakeOllama]:
    fake = FakeOllama(reply="Roll back the last checkout deploy [S1].")
    fake.base_url = await fake.start()  # type: ignore[attr-defined]
    yield fake
    await fake.stop()


async def bot_with_llm(start_bot: Callable[..., Any], ollama: FakeOllama, **kw: Any) -> Runtime:
    return await start_bot(ollama_host=ollama.base_url, **kw)  # type: ignore[attr-defined]


async def ask(slack: FakeSlack, bot: Runtime, question: str) -> tuple[str, Any]:
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        (first, _) = await d.mention(INCIDENT, ALICE, question)
    assert first.ts
    return first.ts, first


async def test_llm_answer_replaces_the_cited_answer_in_place(
    start_bot: Callable[..., Any], ollama: FakeOllama, slack: FakeSlack
) -> None:
    bot = await bot_with_llm(start_bot, ollama)
    ts, _ = await ask(slack, bot, "checkout latency after the deploy, what now?")
    edited = await eventually(
        lambda: [m for m in slack.workspace.bot_messages(INCIDENT, ts) if m.edited]
    )
    assert len(slack.workspace.bot_messages(INCIDENT, ts)) == 1
    assert "Roll back the last checkout deploy [S1]." in edited[0].text
    assert "checkout-latency › " in str(edited[0].blocks)  # sources still listed
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert len(slack.calls_to("chat.update")) == 1


async def test_llm_answer_citing_an_unknown_source_is_not_posted(
    start_bot: Callable[..., Any], ollama: FakeOllama, slack: FakeSlack
) -> None:
    ollama.reply = "Delete the database [S99]."
    bot = await bot_with_llm(start_bot, ollama)
    ts, _ = await ask(slack, bot, "checkout latency after the deploy, what now?")
    edited = await eventually(
        lambda: [m for m in slack.workspace.bot_messages(INCIDENT, ts) if m.edited]
    )
    assert "Delete the database" not in str(edited[0].blocks)
    assert "cited a source it was not given" in str(edited[0].blocks)


async def test_slow_ollama_does_not_delay_the_ack_or_the_cited_answer(
    start_bot: Callable[..., Any], ollama: FakeOllama, slack: FakeSlack
) -> None:
    ollama.delay_s = 60.0  # never answers during the test; the bot gives up after 1 s
    bot = await bot_with_llm(start_bot, ollama, ollama_timeout_s=1.0)
    ts, first = await ask(slack, bot, "checkout latency after the deploy, what now?")
    assert first.status == 200
    assert slack.calls_to("chat.update") == []  # acked before the model stage could end
    edited = await eventually(
        lambda: [m for m in slack.workspace.bot_messages(INCIDENT, ts) if m.edited]
    )
    assert "did not answer in time" in str(edited[0].blocks)
    # The cited answer was posted first, complete, while the model had not answered.
    methods = [c.method for c in slack.calls if c.method in ("chat.postMessage", "chat.update")]
    assert methods == ["chat.postMessage", "chat.update"]
    assert "checkout-latency › " in str(slack.calls_to("chat.postMessage")[0].body["blocks"])
    assert any(r.path == "/api/chat" for r in ollama.requests)


async def test_thread_token_cap_ends_with_a_clear_message(
    start_bot: Callable[..., Any], ollama: FakeOllama, slack: FakeSlack
) -> None:
    ollama.prompt_eval_count, ollama.eval_count = 900, 200  # 1,100 tokens per answer
    bot = await bot_with_llm(start_bot, ollama, thread_token_cap=1_000)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        (first, _) = await d.mention(INCIDENT, ALICE, "checkout latency, what now?")
        assert first.ts
        await eventually(lambda: any(m.edited for m in slack.workspace.bot_messages(INCIDENT)))
        await d.mention(INCIDENT, ALICE, "checkout latency still high?", thread_ts=first.ts)
    capped = await eventually(
        lambda: [m for m in slack.workspace.bot_messages(INCIDENT, first.ts)
                 if "token budget" in str(m.blocks)]
    )  # fmt: skip
    assert "1,000-token budget" in str(capped[0].blocks)
    chats = [r for r in ollama.requests if r.path == "/api/chat"]
    assert len(chats) == 1  # the capped thread never called the model again


async def test_the_model_never_sees_a_secret_from_the_question(
    start_bot: Callable[..., Any], ollama: FakeOllama, slack: FakeSlack
) -> None:
    """OPSMEMORY_OLLAMA_HOST may be another machine: the prompt carries redacted text only."""
    bot = await bot_with_llm(start_bot, ollama)
    ts, _ = await ask(
        slack, bot, "checkout latency after the deploy, token xoxb-123456789012-abcdefghijkl?"
    )
    await eventually(lambda: [m for m in slack.workspace.bot_messages(INCIDENT, ts) if m.edited])
    prompts = json.dumps([r.body for r in ollama.requests if r.path == "/api/chat"])
    assert "<SLACK_TOKEN>" in prompts
    assert "xoxb-123456789012" not in prompts
