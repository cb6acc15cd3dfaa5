"""Which action items are still open: "any open action items from the etcd incident?" wants
the items nobody has said are done ("AI-2 done, added to the wiki"), all of them, not the
newest two statements of any kind of action."""

from __future__ import annotations

import re

from memory.episodes.done import done_keys

__all__ = ["MOST", "asks_open_items", "done_keys"]


#: How many items a question for the list of open ones is answered with.
MOST = 5

_ASKS = re.compile(
    r"\b(?:open|outstanding|pending|remaining|unfinished|left)\b.{0,20}?"
    r"\b(?:action|follow|to-?dos?|items?|tasks?)\b"
    r"|\b(?:action|follow|to-?dos?|items?|tasks?)\b[^?]{0,20}\b(?:open|left|outstanding|pending)\b",
    re.I,
)


def asks_open_items(question: str) -> bool:
    """Whether the question asks for the action items still open."""
    return bool(_ASKS.search(question))
