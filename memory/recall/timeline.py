"""When the incident began and when it was fixed, as its own messages say.

"When did it start?" and "when was it fixed?" are asked in every incident channel (for the status
page, the exec update, the timeline). No statement says "start": the report says "502s since
06:02", the fix says "apply done 06:41, all targets healthy". So a question that names nothing
but the incident's start or end is answered from the incident's messages in the order said: the
first that states a clock time with a word of beginning (else the first that states one at
all), and the first after it that states one with a word of recovery.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from memory.episodes.statements import without_questions
from memory.recall.answer_type import wanted
from memory.recall.clock_times import times_in
from memory.recall.earlier import OUTAGE_WORDS, about_an_earlier_incident, topic_words
from memory.text import question_topic, stems

if TYPE_CHECKING:
    from memory.store.db import Row

End = Literal["start", "end"]

_START = stems("start started starts starting begin began begun beginning kick kicked first")
_END = stems(
    "fix fixed fixes resolve resolved mitigate mitigated recover recovered end ended over "
    "stop stopped restore restored back normal"
)
#: A clock time said as when something began ("since 06:02", "started 09:14", "from 13:50";
#: not "rolled back from v42 at 10:20").
_BEGAN = re.compile(
    r"\b(?:since|from|as of)\s+(?:about\s+|around\s+|~\s?)?\d{1,2}:\d{2}\b"
    r"|\b(?:start(?:ed|ing)?|began|begun|beginning|kicked off)\b[^.\n?]{0,30}?\b\d{1,2}:\d{2}\b",
    re.I,
)
#: A state of recovery said with its time ("apply done 06:41. all 12 targets healthy"): a step
#: done ("rollback done, still 30% 5xx") says nothing of the outage by itself.
_RECOVERED = re.compile(
    r"\b(?:resolved|mitigated|fixed|recovered|restored|healthy|back to|back under|back below"
    r"|green|stable|normal|baseline|gone)\b",
    re.I,
)
#: What takes a recovery back: "not back to normal yet", "isn't stable", "still 30% 5xx",
#: "still failing" ("resolved at 06:41, still monitoring" and "not sure why yet" take nothing
#: back).
_NOT_YET = re.compile(
    r"\b(?:not|no longer|never|isn'?t|aren'?t|wasn'?t|weren'?t)\s++(?:\w++\s++){0,2}?"
    r"(?:resolved|mitigated|fixed|recovered|restored|healthy|back|green|stable|normal|gone)\b"
    r"|\bstill\s++(?:at\s++)?(?:~?\d|not\b|(?:\w++\s++)?(?:failing|erroring|degraded|down"
    r"|broken|slow|seeing|timing|throwing|returning|high|elevated|red))",
    re.I,
)
#: "timeline?", "what's the timeline so far?": when it began and when it recovered.
_TIMELINE = re.compile(
    r"^\W*(?:(?:so|ok(?:ay)?|hey)\W+)?(?:what(?:'s|’s|s| is)\s+(?:the|our)\s+)?timeline"
    r"(?:\s+(?:so\s+far|here|please|pls))?\W*$",
    re.I,
)
#: "When was it over?": the end, said with a word no topic keeps (not "over the limit").
_OVER = re.compile(
    r"\b(?:it|all|that|this|outage|incident)\s+(?:was\s+|is\s+)?over\b(?!\s+\w)", re.I
)
#: A question about when it will be fixed asks for an estimate nobody has said yet.
_FUTURE = re.compile(r"\b(?:will|going to|gonna|eta|expected?|expecting|by when)\b", re.I)


def asks_when(question: str) -> tuple[End, ...]:
    """Which ends of the incident a question asks the time of ("when did it start and when was
    it fixed?" -> ("start", "end")); () when it names anything else ("when did the cron job
    start?" is about the job) or points at an earlier incident."""
    if _TIMELINE.match(question):
        return ("start", "end")  # "timeline?", "what's the timeline so far?"
    if wanted(question) != "time" or about_an_earlier_incident(question):
        return ()
    if _FUTURE.search(question):
        return ()
    topic = topic_words(question_topic(question)) - OUTAGE_WORDS
    over = _OVER.search(question) is not None
    if (not topic and not over) or topic - (_START | _END):
        return ()
    asked: list[End] = []
    if topic & _START:
        asked.append("start")
    if topic & _END or over:
        asked.append("end")
    return tuple(asked)


def says_recovered(text: str) -> bool:
    """Whether `text` states, with a clock time, that things recovered."""
    stated = without_questions(text)
    return (
        bool(times_in(stated))
        and _RECOVERED.search(stated) is not None
        and _NOT_YET.search(stated) is None
    )


def start_and_end(rows: Sequence[Row], asked: Sequence[End]) -> list[Row]:
    """The messages that say when the incident began and when it recovered, of `rows` (oldest
    first), as `asked`: a question or a line without a clock time says neither."""
    stated = [(r, without_questions(str(r["text"]))) for r in rows]
    timed = [(r, text) for r, text in stated if times_in(text)]
    began = next((i for i, (_, text) in enumerate(timed) if _BEGAN.search(text)), None)
    if began is None and timed:
        began = 0
    out: list[Row] = []
    if "start" in asked and began is not None:
        out.append(timed[began][0])
    if "end" in asked:
        after = timed[(began or 0) + 1 :] if began is not None else timed
        ended = next((r for r, text in after if says_recovered(text)), None)
        if ended is not None:
            out.append(ended)
    return out
