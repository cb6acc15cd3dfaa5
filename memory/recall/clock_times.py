"""Clock times a question names ("what changed at 13:50?", "what did we do around 9:35"), and
whether a statement says one of them.

Incident chat stamps what it reports with the time it happened ("fluent-bit v3 rolled out at
13:50"). Search reads "13:50" as two numbers shared with every other time said, so a question
that names a time is answered by the statements in the incident that say it.
"""

from __future__ import annotations

import re

# "13:50", "9:35", "1:50pm", "13:50:12" (a log line's), "2024-05-01T12:30": an hour and its
# minutes (never a ratio "3:1", a port "10.0.0.1:53" nor "host:8080").
_CLOCK = re.compile(
    r"(?:(?<=\dT)|(?<![\w:.]))([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d(?:[.,]\d+)?)?(?![\d:])"
    r"(?:\s*([ap])\.?m\b)?",
    re.I,
)
NOON = 12


def times_in(text: str) -> set[tuple[int, int]]:
    """The clock times `text` says, as (hour, minute) on the 24-hour clock: "09:35" and "9:35"
    are one time, "1:50pm" is 13:50."""
    found = set()
    for hour, minute, half in _CLOCK.findall(text):
        h = int(hour) % NOON + (NOON if half.lower() == "p" else 0) if half else int(hour)
        found.add((h, int(minute)))
    return found


def says_time(text: str, times: set[tuple[int, int]]) -> bool:
    """Whether `text` says one of `times`."""
    return bool(times) and not times.isdisjoint(times_in(text))
