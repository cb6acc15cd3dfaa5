"""Why something happened, as the incident's messages said it, in the order said.

Mid-incident, "why did the consumers keep rebalancing?" is often answered in chat before
anyone writes a "root cause:" line: one person reports the symptom ("consumers are rebalancing every ~40s"),
and a reply a few messages on explains it ("that'd do it - PDF render takes ~6s per batch … so
the broker kicks them out"). The explanation rarely repeats the symptom's words, so search
and the relevance floor miss it; read in the order said, it follows the report it explains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from memory.episodes.statements import asks, without_questions
from memory.recall.answer_type import explains
from memory.recall.floor import said_of

if TYPE_CHECKING:
    from memory.store.db import Row

#: Statements that carry their own reasons: what was decided, found or corrected.
_REASONED_KINDS = frozenset({"decision", "root_cause", "correction"})

#: How many messages after a report its explanation may come.
REACH = 5

#: How chat says why, beside the words an explanation is written in (`answer_type.explains`):
#: "turns out", "that'd do it", "… so the broker kicks them out" ("so the fix is …" and
#: "ok so we rolled back" explain nothing).
_CHAT_CAUSE = re.compile(
    r"\b(?:turns out|that(?:'?d| would) (?:do|explain) it|that explains"
    r"|so the (?!fix|plan|question|next|idea|goal|workaround)\w)",
    re.I,
)


#: The contrast, negation or counterfactual a line that rules something out or accounts for it
#: turns on ("… cached at the edge, not it", "it wasn't the deploy", "the lag only crossed 50k
#: at 15:08", "an alert on growth would have fired earlier").
_RULES_OUT = re.compile(
    r"\b(?:not(?!\s+(?:sure|yet|clear|certain)\b)|never|no longer|instead|but|isn'?t|wasn'?t"
    r"|aren'?t|weren'?t|doesn'?t|didn'?t"
    r"|can'?t|cannot|won'?t|ruled out|only|would(?:'ve| have))\b",
    re.I,
)


def reasons(text: str) -> bool:
    """Whether `text` explains or rules out: an answer to a why-question once it says what is
    asked about ("checkout 503s since 10:02" is only the report)."""
    return explains_in_chat(text) or _RULES_OUT.search(text) is not None


def explains_in_chat(text: str) -> bool:
    """Whether `text` says why, in the words an explanation is written or chatted in."""
    return explains(text) or _CHAT_CAUSE.search(text) is not None


def _explains(row: Row) -> bool:
    """A root cause, or a message (no status line, no question) that says why."""
    if row["kind"] == "root_cause":
        return True
    text = str(row["text"])
    return row["kind"] != "status" and not asks(text) and explains_in_chat(without_questions(text))


def states(topic: AbstractSet[str], text: str) -> bool:
    """Whether `text` states what is asked about: at least half of the `topic` stems, and all
    of one or two ("why did the lag drain?" is not about a report of the lag alone)."""
    return _enough(len(said_of(frozenset(topic), without_questions(text))), len(topic))


def _enough(said: int, asked: int) -> bool:
    return said == asked if asked <= 2 else 2 * said >= asked


def explanation_of(rows: Sequence[Row], topic: AbstractSet[str]) -> list[Row]:
    """The report in `rows` (oldest first) that `states` most of the `topic` stems (the
    earliest of equals) and is explained, with what explains it: itself, or of the `REACH`
    messages after it a root cause, else the first that says why ([explanation, report]); []
    when none is."""
    if not topic:
        return []
    asked = frozenset(topic)
    said = [len(said_of(asked, without_questions(str(row["text"])))) for row in rows]
    reports = sorted(
        (at for at, n in enumerate(said) if _enough(n, len(asked))), key=lambda at: (-said[at], at)
    )
    for at in reports:
        # "checked: the live-blog polls are cached at the edge, not it", or the decision
        # "keep v3.8.0 … rather than rolling back", answers itself
        if (
            _explains(rows[at])
            or reasons(str(rows[at]["text"]))
            or rows[at]["kind"] in _REASONED_KINDS
        ):
            return [rows[at]]
        # Soon after it: a root cause labelled there, else the first reply that says why.
        window = rows[at + 1 : at + 1 + REACH]
        cause = next((r for r in window if r["kind"] == "root_cause"), None)
        if cause is None:
            cause = next((r for r in window if _explains(r)), None)
        if cause is not None:
            return [cause, rows[at]]
    return []
