"""Citation checks and history compaction for the LLM step (issue 5, item 9)."""

from __future__ import annotations

from bot.answer.compose import Answer, Source
from bot.answer.llm import compact_history, unknown_citations


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
