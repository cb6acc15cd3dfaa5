"""Questions about an earlier incident's statements: "what did we decide last time?".

Such a question names a kind of statement (a decision, a root cause, an action item, a
mitigation) and points at an earlier incident rather than at any words the statement holds, so
search has nothing to match. `asked_kinds` reads the kinds from the question's wording ("what
did we do?" asks for what was done and decided) and
`about_an_earlier_incident` whether it points back; recall then shows the newest statements of
that kind from the latest earlier incident the asker may see whose statements share the
question's topic words (the words left when the kind and the pointer back are taken out), or
simply the latest when the question names no topic.
"""

from __future__ import annotations

import re

from memory.recall.answer_type import wanted
from memory.text import stems

_KINDS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("decision",), re.compile(r"\b(?:decid\w*|decisions?|agreed|settled on)\b", re.I)),
    (("root_cause",), re.compile(r"\b(?:root[ -]?causes?|what caused|the cause)\b", re.I)),
    (("action",), re.compile(r"\b(?:action items?|follow[- ]?ups?|to-?dos?)\b", re.I)),
    (("mitigation",), re.compile(r"\b(?:mitigat\w*|workarounds?)\b", re.I)),
    # What was done about it: the mitigations, and the decisions that chose them.
    (
        ("mitigation", "decision"),
        re.compile(
            r"\bwhat (?:did|do) (?:we|you|they) (?:do|try|change)\b"
            r"|\bhow (?:did|do) (?:we|you|they) (?:fix|resolve|solve|handle|stop|recover)\b"
            r"|\bwhat (?:fixed|solved|resolved|worked|helped)\b",
            re.I,
        ),
    ),
)
_EARLIER = re.compile(
    r"\blast time\b|\btime before\b|\bbefore this (?:incident|one|outage)\b"
    r"|\b(?:previous|past|earlier|prior|last|other|older) (?:incidents?|outages?|times?)\b",
    re.I,
)


def asked_kinds(question: str) -> tuple[str, ...]:
    """The note kinds a question asks for, if its wording names any (else empty)."""
    return next((kinds for kinds, pattern in _KINDS if pattern.search(question)), ())


def about_an_earlier_incident(question: str) -> bool:
    """Whether the question points at an earlier incident ("last time", "the previous outage")."""
    return bool(_EARLIER.search(question))


# What names the kind or points back says nothing about the subject of the statement asked for.
_FRAME = stems(
    "decide decided decides deciding decision decisions agreed agree settled root cause causes "
    "caused action actions item items follow up followup todo todos mitigate mitigated "
    "mitigation mitigations workaround workarounds fix fixed resolve resolved solve solved "
    "handle handled stop recover worked helped try change last time times before previous past "
    "earlier prior other older incident incidents outage outages one ones did do we our us"
)


def topic_words(question: str) -> set[str]:
    """The question's subject words: its stems without those that name the kind or point back."""
    return {w for w in stems(question) if not w.isdigit()} - _FRAME


def asks_what_happened(question: str) -> bool:
    """Whether the question asks what the team said or did rather than how to do something:
    who owns or did it, when it happened, or a kind of statement ("what did we decide / do?",
    "the root cause"). Runbooks describe procedures; they do not know any of that."""
    return wanted(question) in ("person", "time") or bool(asked_kinds(question))
