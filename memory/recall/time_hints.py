"""Periods a question names ("on April 10, 2022", "in May", "2023-11-02", "yesterday"), so recall
can prefer notes written then. Only explicit dates and today/yesterday are read: anything vaguer
("last spring") is left to the words themselves.

Periods are UTC day ranges: a named day also covers the day either side (time zones, and notes
written just after midnight about the evening before).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" + (
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_ISO = re.compile(r"\b" + _YEAR + r"-(\d\d)-(\d\d)\b")
_MONTH_DAY_YEAR = re.compile(r"\b" + _MONTH + r"\.?\s+" + _DAY + r"(?:,?\s+" + _YEAR + r")?\b")
_DAY_MONTH_YEAR = re.compile(
    r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"\.?(?:,?\s+" + _YEAR + r")?\b"
)
_MONTH_YEAR = re.compile(r"\b" + _MONTH + r"\.?,?\s+(?:of\s+)?" + _YEAR + r"\b")
_IN_MONTH = re.compile(r"\b(?:in|during|since|of|from)\s+" + _MONTH + r"\b")
_YEAR_ALONE = re.compile(r"\b(?:in|during|since|of|from)\s+" + _YEAR + r"\b")
_RELATIVE = {"today": 0, "yesterday": 1}
DAY_SLACK = timedelta(days=1)


@dataclass(frozen=True)
class Period:
    """[start, end) in UTC; `month` alone (no year) matches that month of any year."""

    start: datetime | None = None
    end: datetime | None = None
    month: int | None = None

    def contains(self, at: datetime) -> bool:
        if self.month is not None:
            return at.month == self.month
        return self.start is not None and self.end is not None and self.start <= at < self.end


def periods_in(question: str, now: datetime) -> list[Period]:
    """Every period the question names explicitly; [] when it names none."""
    text = question.lower()
    found: list[Period] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        if any(m.start() < b and a < m.end() for a, b in taken):
            return False
        taken.append(m.span())
        return True

    for m in _ISO.finditer(text):
        if free(m):
            found += _day(int(m[1]), int(m[2]), int(m[3]))
    for m in _MONTH_DAY_YEAR.finditer(text):
        if m[1] == "may" and not m[3] and not _after_preposition(text, m.start()):
            continue  # "we may 2x the pool" is not a date
        if free(m):
            found += _day(int(m[3]) if m[3] else now.year, _month(m[1]), int(m[2]))
    for m in _DAY_MONTH_YEAR.finditer(text):
        if m[2] == "may" and not m[3] and not _after_preposition(text, m.start()):
            continue  # "2 may fail over" is not a date
        if free(m):
            found += _day(int(m[3]) if m[3] else now.year, _month(m[2]), int(m[1]))
    for m in _MONTH_YEAR.finditer(text):
        if free(m):
            found += _month_of(int(m[2]), _month(m[1]))
    for m in _IN_MONTH.finditer(text):
        if free(m):
            found.append(Period(month=_month(m[1])))
    for m in _YEAR_ALONE.finditer(text):
        if free(m):
            year = int(m[1])
            found.append(Period(_utc(date(year, 1, 1)), _utc(date(year + 1, 1, 1))))
    for word, days_ago in _RELATIVE.items():
        if re.search(rf"\b{word}\b", text):
            day = (now.astimezone(UTC) - timedelta(days=days_ago)).date()
            found.append(Period(_utc(day) - DAY_SLACK, _utc(day) + timedelta(days=1) + DAY_SLACK))
    return found


def _after_preposition(text: str, at: int) -> bool:
    return re.search(r"\b(?:on|in|since|by|from|until|before|after)\s+$", text[:at]) is not None


def _month(name: str) -> int:
    return next(i + 1 for i, full in enumerate(MONTHS) if full.startswith(name[:3]))


def _day(year: int, month: int, day: int) -> list[Period]:
    try:
        start = _utc(date(year, month, day))
    except ValueError:  # "February 30": not a date, so no period
        return []
    return [Period(start - DAY_SLACK, start + timedelta(days=1) + DAY_SLACK)]


def _month_of(year: int, month: int) -> list[Period]:
    start = _utc(date(year, month, 1))
    end = _utc(date(year + month // 12, month % 12 + 1, 1))
    return [Period(start, end)]


def _utc(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)
