"""What the incident did to the people it served, as its own messages say.

"What's the customer impact?" is what a manager or the status page needs from every incident
channel, and memory's words rarely meet it: the answer says "~30% of public API requests got
502", "1.2k checkouts failed", "impact: EU users only". So a question that names nothing but
the impact is answered by the incident's newest message that states one: an "impact:" label
first, else a share or a count of what was served.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory.episodes.statements import asks, without_questions
from memory.recall.earlier import OUTAGE_WORDS, about_an_earlier_incident, topic_words
from memory.text import question_topic, stems

if TYPE_CHECKING:
    from memory.store.db import Row

_ASKS_IMPACT = re.compile(
    r"\b(?:impact(?:ed)?|affected|blast radius|customer[- ]facing|user[- ]facing)\b", re.I
)
#: Words of such a question that name no subject of its own: on whom, and how much so far.
_ON_WHOM = stems(
    "impact impacted affected blast radius facing customer customers user users client clients "
    "business end far now current currently overall total bad big exact exactly estimate "
    "estimated real actual"
)
_LABELLED = re.compile(
    r"(?:^|\n|[.;] )[*_` •\-]{0,12}+(?:customer |user )?impact ?[:\-–—]", re.I | re.M
)
#: A share or a count of what was served ("~30% of requests", "1.2k checkouts", "41 customers").
_SERVED = (
    r"(?:customers?|users?|clients?|merchants?|tenants?|accounts?|orders?|checkouts?|payments?"
    r"|requests?|calls?|searches|bookings?|transactions?|sessions?|logins?)"
)
_FIGURE = re.compile(
    rf"(?<![\d.,])\d++(?:\.\d++)?+ ?% (?:of )?(?:[a-z0-9]++ ){{0,3}}?{_SERVED}\b"
    rf"|(?<![\w.,])\d[\d,.]*+ ?k? (?:[a-z0-9]++ )?{_SERVED}\b",
    re.I,
)


def asks_impact(question: str) -> bool:
    """Whether the question asks for this incident's impact and names nothing else ("what's
    the customer impact?", "who is affected?"; not "is the payments API affected?", not "what
    was the impact last time?")."""
    if not _ASKS_IMPACT.search(question) or about_an_earlier_incident(question):
        return False
    return not (topic_words(question_topic(question)) - OUTAGE_WORDS - _ON_WHOM)


def says_impact(text: str) -> bool:
    """Whether `text` states an impact, outside what it asks (read with its spaces collapsed:
    the patterns then take one space where chat types several)."""
    stated = _one_space(without_questions(text))
    return bool(_LABELLED.search(stated) or _FIGURE.search(stated))


def newest_impact(rows: Sequence[Row]) -> Row | None:
    """Of `rows` (newest first), the newest that labels an impact, else the newest that states
    one as a figure; never one that only asks."""
    stated = [r for r in rows if says_impact(str(r["text"])) and not _only_asks(str(r["text"]))]
    labelled = [
        r for r in stated if _LABELLED.search(_one_space(without_questions(str(r["text"]))))
    ]
    found = labelled or stated
    return found[0] if found else None


def _one_space(text: str) -> str:
    """`text` with each run of white space but line breaks as one space."""
    return _SPACES.sub(" ", text)


_SPACES = re.compile(r"[^\S\n]++")


def _only_asks(text: str) -> bool:
    return asks(text) and not without_questions(text).strip()
