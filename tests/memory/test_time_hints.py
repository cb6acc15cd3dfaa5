"""Periods a question names: explicit dates and today/yesterday, nothing vaguer (issue 4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.recall.time_hints import periods_in

NOW = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)


def at(y: int, m: int, d: int, h: int = 12) -> datetime:
    return datetime(y, m, d, h, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "inside", "outside"),
    [
        ("How was John feeling on April 10, 2022?", at(2022, 4, 10), at(2022, 4, 14)),
        ("what changed on 10 April 2022", at(2022, 4, 11), at(2023, 4, 10)),
        ("rollback on 2026-11-03?", at(2026, 11, 3, 23), at(2026, 11, 6)),
        ("the September 2023 outage", at(2023, 9, 30), at(2023, 10, 1, 1)),
        ("which spot did she visit in May?", at(2021, 5, 2), at(2021, 6, 2)),
        ("what broke in 2024", at(2024, 12, 31), at(2025, 1, 1, 1)),
        ("what did we decide yesterday", at(2026, 11, 29), at(2026, 11, 20)),
        ("deploy on Mar 5", at(2026, 3, 5), at(2025, 3, 5)),
        ("the outage on 3 May", at(2026, 5, 3), at(2026, 6, 3)),
    ],
)
def test_named_periods_contain_their_days_and_not_others(
    question: str, inside: datetime, outside: datetime
) -> None:
    periods = periods_in(question, NOW)
    assert any(p.contains(inside) for p in periods)
    assert not any(p.contains(outside) for p in periods)


@pytest.mark.parametrize(
    "question",
    [
        "we may 2x the pool size",
        "2 may fail over before the rest",
        "February 30, 2022 deploy",  # not a date
        "why is p99 at 4s",
        "scale to 2023 pods",
    ],
)
def test_questions_without_a_real_date_name_no_period(question: str) -> None:
    assert periods_in(question, NOW) == []
