"""Clock times a question names ("what changed at 13:50?", "what did we do around 9:35"), and
whether a statement says one of them.

Incident chat stamps what it reports with the time it happened ("fluent-bit v3 rolled out at
13:50"). Search reads "13:50" as two numbers shared with every other time said, so a question
that names a time is answered by the statements in the incident that say it.
"""

from __future__ import annotations

import re

# "13:50", "9:35", "09:35am", "~14:02": an hour and its minutes (never a ratio "3:1" nor a
# port "host:8080", which have no two-digit minutes after a one- or two-digit hour).
_CLOCK = re.compile(r"(?<![\w:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")


def times_in(text: str) -> set[tuple[int, int]]:
    """The clock times `text` says, as (hour, minute): "09:35" and "9:35" are one time."""
    return {(int(h), int(m)) for h, m in _CLOCK.findall(text)}


def says_time(text: str, times: set[tuple[int, int]]) -> bool:
    """Whether `text` says one of `times`."""
    return bool(times) and not times.isdisjoint(times_in(text))
