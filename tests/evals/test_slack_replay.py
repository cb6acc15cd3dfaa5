"""The Slack replay eval reads an answer the way a person does: the memory items it shows."""

from __future__ import annotations

from bot.answer import render
from bot.answer.compose import Answer, SimilarIncident, Source
from evals.slack_replay import Asked, SlackReport, memory_items


def _answer() -> Answer:
    return Answer(
        "Memory says [S2] …",
        sources=(
            Source("S1", "runbook", "db-pool › Steps", "raise the pool", "https://rb.example/db"),
            Source("S2", "incident", "decision · Ann", "roll back", "https://x.slack.com/p1"),
            Source("S3", "episode", "roll-up · inc-1", "what happened"),
        ),
        similar=(SimilarIncident("inc-1", "db down", "why", url="https://x.slack.com/p9"),),
    )


def test_memory_items_are_the_rendered_memory_bullets_in_order() -> None:
    items = memory_items(render.answer(_answer()))
    # The runbook link is not memory; a roll-up without a link is still an item shown.
    assert items == ["https://x.slack.com/p1", None, "https://x.slack.com/p9"]


def test_an_item_without_evidence_counts_against_precision_and_its_place() -> None:
    def asked(shown: tuple[str, ...]) -> Asked:
        return Asked(0, "same", frozenset({"D1:2"}), shown, False, 10.0)

    report = SlackReport([asked(("", "D1:2")), asked(("D1:2",))])
    m = report.metrics()
    assert m["recall@1"] == 0.5 and m["recall@5"] == 1.0
    assert m["precision"] == (0.5 + 1.0) / 2


def test_paired_figures_compare_the_same_questions_asked_both_ways() -> None:
    def asked(question: str, where: str, shown: tuple[str, ...]) -> Asked:
        return Asked(0, where, frozenset({"D1:2"}), shown, False, 10.0, question=question)

    # The headline halves hold different questions: an easy one same, a hard one cross.
    report = SlackReport(
        [asked("easy", "same", ("D1:2",)), asked("hard", "cross", ())],
        again=[asked("easy", "cross", ("D1:2",)), asked("hard", "same", ())],
    )
    assert report.metrics("same")["recall@5"] - report.metrics("cross")["recall@5"] == 1.0
    paired = report.as_json()["paired"]
    # Asked both ways, where it is asked makes no difference at all.
    assert paired["same"]["recall@5"] == paired["cross"]["recall@5"] == 0.5
    assert paired["gap_recall@5"] == 0.0
    assert "paired" not in SlackReport([asked("easy", "same", ("D1:2",))]).as_json()
