"""Which action items are still open: "any open action items from the etcd incident?" wants
the items nobody has said are done ("AI-2 done, added to the wiki"), all of them, not the
newest two statements of any kind of action."""

from __future__ import annotations

import re

from memory.text import item_references

#: How many items a question for the list of open ones is answered with.
MOST = 5

_ASKS = re.compile(
    r"\b(?:open|outstanding|pending|remaining|unfinished|left)\b.{0,20}?"
    r"\b(?:action|follow|to-?dos?|items?|tasks?)\b"
    r"|\b(?:action|follow|to-?dos?|items?|tasks?)\b[^?]{0,20}\b(?:open|left|outstanding|pending)\b",
    re.I,
)
# "AI-2 done", "AI-4 is done: …", "AI-2 is live", "the lock (AI-1) went live", "#2219 merged"
_DONE = re.compile(
    r"\b(?:is\s+|are\s+|now\s+|went\s+|has\s+been\s+|was\s+)*(?:done|completed?|finished|closed"
    r"|shipped|merged|live|landed|resolved|fixed)\b",
    re.I,
)


def asks_open_items(question: str) -> bool:
    """Whether the question asks for the action items still open."""
    return bool(_ASKS.search(question))


def done_keys(text: str) -> set[str]:
    """The items a message says are done ("AI-2 done", "AI-4 is done: …"): each key followed,
    within a few words, by a word that says so."""
    keys = set()
    for key in item_references(text, any_case=True):
        at = text.lower().find(key)
        after = text[at + len(key) : at + len(key) + 30]
        if at >= 0 and _DONE.match(re.sub(r"^[\s):,\-–—]*", "", after)):
            keys.add(key)
    return keys
