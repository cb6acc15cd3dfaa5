"""Questions about an earlier incident's statements: "what did we decide last time?".

Such a question names a kind of statement (a decision, a root cause, an action item, a
mitigation) and points at an earlier incident rather than at any words the statement holds, so
search has nothing to match. `asked_kind` reads the kind from the question's wording and
`about_an_earlier_incident` whether it points back; recall then shows the newest statements of
that kind from the latest earlier incident the asker may see whose statements share the
question's topic words (the words left when the kind and the pointer back are taken out), or
simply the latest when the question names no topic.
"""

from __future__ import annotations

import re

from memory.text import stems

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("decision", re.compile(r"\b(?:decid\w*|decisions?|agreed|settled on)\b", re.I)),
    ("root_cause", re.compile(r"\b(?:root[ -]?causes?|what caused|the cause)\b", re.I)),
    ("action", re.compile(r"\b(?:action items?|follow[- ]?ups?|to-?dos?)\b", re.I)),
    ("mitigation", re.compile(r"\b(?:mitigat\w*|workarounds?)\b", re.I)),
)
_EARLIER = re.compile(
    r"\blast time\b|\btime before\b|\bbefore this (?:incident|one|outage)\b"
    r"|\b(?:previous|past|earlier|prior|last|other|older) (?:incidents?|outages?|times?)\b",
    re.I,
)


def asked_kind(question: str) -> str | None:
    """The note kind a question asks for, if its wording names one."""
    return next((kind for kind, pattern in _KINDS if pattern.search(question)), None)


def about_an_earlier_incident(question: str) -> bool:
    """Whether the question points at an earlier incident ("last time", "the previous outage")."""
    return bool(_EARLIER.search(question))


# What names the kind or points back says nothing about the subject of the statement asked for.
_FRAME = stems(
    "decide decided decides deciding decision decisions agreed agree settled root cause causes "
    "caused action actions item items follow up followup todo todos mitigate mitigated "
    "mitigation mitigations workaround workarounds last time times before previous past "
    "earlier prior other older incident incidents outage outages one ones did do we our us"
)


def topic_words(question: str) -> set[str]:
    """The question's subject words: its stems without those that name the kind or point back."""
    return {w for w in stems(question) if not w.isdigit()} - _FRAME
