"""What kind of answer a question wants, and whether a note holds one.

"Who owns it?" is answered by a note naming a person (or saying "I'll take it"); "when did it
start?" by one with a time or date; "how long was it down?" by one with a span; "how many / what limit?" by one with a number; "why did
it fail?" by one that explains (because, so, but not, instead); "what error did it throw?" by
one that quotes what was seen (a code span, an exception name, a status line). These are
the classic answer types of question answering, read from the question's wh-word, and checked
on a note with plain patterns; recall gives notes that hold the wanted type a small boost.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Literal

from memory.text import LINK_QUESTION, asks_for_a_link

AnswerType = Literal["person", "link", "duration", "time", "quantity", "reason", "verbatim"]

#: A past verb within the rest of the clause ("until it was fixed", "before we noticed").
_PAST_AFTER = (
    r"[^?.\n]{0,80}?\b(?:\w+ed|was|were|did|had|took|got|came|went|saw|knew|found|began"
    r"|caught|paged|woke)\b"
)

_WANTS: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (
        "person",
        re.compile(r"^\s*(?:and\s+)?(?:who|whom|whose)\b|\bwho (?:is|was|owns|did)\b", re.I),
    ),
    # "link to the lag dashboard?", "what's the bridge link?": a message with an address in it
    # (`text.asks_for_a_link`, which leaves out network links).
    ("link", LINK_QUESTION),
    # "How long were writes down?": a span ("about 9 min", "10:13-10:22", "took 1:30"), or the
    # two clock times it is read from ("paged at 02:09" after "started at 01:55").
    # "How long until the cert expires?" / "how long ago …?" ask when, not for how long; "how
    # long until it was mitigated?" / "how long before we noticed?" ask for a span all the same.
    (
        "duration",
        re.compile(
            rf"\bhow long\b(?!\s+ago\b)(?!\s+(?:until|till|til|before)\b(?!{_PAST_AFTER}))",
            re.I,
        ),
    ),
    (
        "time",
        re.compile(
            r"^\s*(?:and\s+)?(?:when|wen)\b|\bwhat time\b|\bhow soon\b|\bwhat (?:day|date)\b"
            r"|\bhow long (?:ago|(?:until|till|til|before)\b)"
            r"|\b(?:until|by|since) when\b|\bin what order\b|\bhow far apart\b"
            r"|\b(?:which|what) (?:\w+ )?(?:came|happened|went|landed) (?:first|last)\b"
            r"|\bwhich did (?:we|they|you) \w+ first\b",
            re.I,
        ),
    ),
    (
        "quantity",
        re.compile(
            r"\bhow (?:many|much|big|large|high|low|far)\b|\bwhat (?:is|was|were) the "
            r"(?:\w+ )?(?:limit|size|rate|number|count|value|percentage|threshold)\b",
            re.I,
        ),
    ),
    (
        "reason",
        re.compile(
            r"^\s*(?:and\s+)?why\b|\bhow come\b|\bwhat (?:caused|made|broke)\b|\bwhy (?:did|do|does|"
            r"didn|don|doesn|was|were|wasn|weren|is|isn|are|aren|could|couldn|would|wouldn|not)\b",
            re.I,
        ),
    ),
    (
        # What something said word for word: an error, a log line, a command's output.
        "verbatim",
        re.compile(
            r"\b(?:what|which) (?:\w+ )?(?:exception|error|errors|warning|message|log line|"
            r"response|responses|output|status code|stack ?trace)\b"
            r"|\bwhat did (?:\S+ ){1,5}?(?:log|print|show|throw|return|say|report|output)\b"
            r"|\b(?:what|which) (?:exact )?(?:commands?|cmds?|flags?|query|queries|scripts?)\b",
            re.I,
        ),
    ),
)

_TIME = re.compile(
    r"\b\d{1,2}:\d{2}\b|\butc\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w* \d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:yesterday|today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)\b|\b\d+ ?(?:min(?:ute)?s?|hours?|h|days?|weeks?)\b",
    re.I,
)
_UNIT = r"(?:secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?)"
_SPAN = re.compile(
    rf"\b\d+(?:\.\d+)?\s?(?:{_UNIT}|m|h)\b"
    rf"|\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty"
    rf"|sixty|a few|several|half an?) {_UNIT}\b"
    r"|\b\d{1,2}:\d{2}\s?(?:-|–|—|to|until|till)\s?\d{1,2}:\d{2}\b"
    r"|\b(?:took|takes|lasted)\s(?:about\s|around\s|~\s?)?\d{1,2}:\d{2}\b",
    re.I,
)
_SPAN_IN_UNITS = re.compile(
    _SPAN.pattern.replace("|m|h)", "|h)", 1) + r"|(?<![\d.])\d{1,2}(?-i:m)\b", re.I
)
_NUMBER = re.compile(r"\d")
_LINK = re.compile(r"\bhttps?://\S|\bwww\.\w", re.I)
# Discourse markers of an explanation: cause ("because", "due to", "->"), consequence ("so",
# "which means") and the contrast or negation an explanation of a failure turns on ("but",
# "not", "instead", "only").
_REASON = re.compile(
    r"\b(?:because|since|so|due to|caus(?:e|ed|es|ing)|means?|meaning|turns? out|reason|"
    r"that'?s why|which is why|only|never|can'?t|cannot|isn'?t|doesn'?t|didn'?t|won'?t|wasn'?t|"
    r"not|no longer|instead|but)\b|->|\u2192",
    re.I,
)
# Text quoted as it was seen: a code span, a quoted string, an exception or error class
# name, or an HTTP status line.
_VERBATIM = re.compile(
    r"`[^`]+`|\"[^\"]{4,}\"|\b[A-Z]\w*(?:Exception|Error|Warning)\b|\bHTTP/\d(?:\.\d)? \d{3}\b"
)
_FIRST_PERSON = re.compile(r"\b(?:i'?ll|i will|i'?m (?:taking|on)|mine|i can take|i own)\b", re.I)


def wanted(question: str) -> AnswerType | None:
    """The answer type a question asks for, if its wording says."""
    for kind, pattern in _WANTS:
        if kind == "link":
            if asks_for_a_link(question):
                return kind
        elif pattern.search(question):
            return kind
    return None


def says_how_long(text: str) -> bool:
    """`says_a_span` without what only looks like minutes ("2.1M behind", "512m heap"; "45m"
    and "2h" still are): what an incident's statement of how long it lasted says."""
    return bool(_SPAN_IN_UNITS.search(text))


def says_a_span(text: str) -> bool:
    """Whether `text` says how long something took ("about 9 min", "10:13-10:22"), which a
    clock time alone ("deployed 09:55") does not."""
    return bool(_SPAN.search(text))


#: Words that say why, as an explanation is worded ("because recovery is disabled", "due to
#: the NVMe failure"); the contrast words of `_REASON` ("not", "but") also describe.
_EXPLAINS = re.compile(
    r"\b(?:because|due to|caused by|as a result of|that'?s why|which is why|the reason)\b"
    r"|->|\u2192",
    re.I,
)


def explains(text: str) -> bool:
    """Whether `text` says why something happened, in so many words."""
    return _EXPLAINS.search(text) is not None


def holds(kind: AnswerType, text: str, people: Iterable[str]) -> bool:
    """Whether `text` contains an answer of that type (`people`: names that may answer who)."""
    if kind == "duration":  # a span said, or the clock times it is read from
        return says_a_span(text) or bool(_TIME.search(text))
    if kind == "time":
        return bool(_TIME.search(text))
    if kind == "quantity":
        return bool(_NUMBER.search(text))
    if kind == "reason":
        return bool(_REASON.search(text))
    if kind == "link":
        return bool(_LINK.search(text))
    if kind == "verbatim":
        return bool(_VERBATIM.search(text))
    if _FIRST_PERSON.search(text):
        return True
    lowered = text.lower()
    return any(_name(name).search(lowered) for name in people if name)


@functools.lru_cache(maxsize=4096)
def _name(name: str) -> re.Pattern[str]:
    """A person's name as a whole word, compiled once (recall asks it of every candidate)."""
    return re.compile(rf"\b{re.escape(name)}\b")
