"""Readers of chat stay linear on long messages: a pasted 40k-character line must not stall the
bot (each is timed against a budget far above what a linear pass takes)."""

from __future__ import annotations

import time

from memory.episodes.statements import classify
from memory.episodes.summary import severity_said
from memory.recall.earlier import asked_kinds

BUDGET_S = 1.0  # a linear pass over these inputs takes a few milliseconds


def _took(call: object, text: str) -> float:
    started = time.perf_counter()
    call(text)  # type: ignore[operator]
    return time.perf_counter() - started


def test_long_runs_of_one_character_are_read_in_linear_time() -> None:
    assert _took(asked_kinds, "rc" + "?" * 39_000 + "x") < BUDGET_S
    assert _took(classify, "AI-2" + " " * 50_000 + "x") < BUDGET_S
    assert _took(severity_said, "sev1 " * 8_000) < BUDGET_S


def test_impact_and_owner_readers_stay_linear_on_pasted_blobs() -> None:
    from memory.recall.current import reports_a_reading
    from memory.recall.impact import says_impact
    from memory.recall.own_items import owned_by

    for blob in ("\n-" * 20_000, "1" * 40_000):
        assert _took(says_impact, blob) < BUDGET_S
    assert _took(reports_a_reading, "1," * 20_000) < BUDGET_S
    assert _took(lambda t: owned_by(t, "ana", "kim"), "(owner" + " " * 40_000 + "x") < BUDGET_S
    assert _took(lambda t: owned_by(t, "ana", "kim"), "(-)" * 13_333 + "x") < BUDGET_S


def test_the_link_reading_timeline_and_explanation_readers_stay_linear() -> None:
    from memory.recall.answer_type import wanted
    from memory.recall.current import gives_value, reports_a_reading
    from memory.recall.earlier import asks_what_to_tell
    from memory.recall.explanations import explains_in_chat
    from memory.recall.own_items import owned_by
    from memory.recall.timeline import asks_when

    for blob in ("link " * 10_000, "on the " * 7_000 + "x", "(" * 40_000):
        assert _took(wanted, blob) < BUDGET_S
    assert _took(reports_a_reading, "1 " * 20_000 + "behind") < BUDGET_S
    assert _took(lambda t: gives_value(t, {"lag"}), "lag draining " * 4_000) < BUDGET_S
    assert _took(asks_when, "when was it " * 4_000 + "over?") < BUDGET_S
    assert _took(asks_what_to_tell, "what do I tell customers? are " + "x " * 20_000) < BUDGET_S
    assert _took(explains_in_chat, "so the " * 7_000) < BUDGET_S
    assert _took(lambda t: owned_by(t, "ana", "kim"), "(a), " * 10_000) < BUDGET_S
