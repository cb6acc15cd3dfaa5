"""The asker's own action items: "what do I owe here?", "anything on me?", "my action items?"
want the items of this incident that name the asker as owner (by the name Slack shows, as their
mentions are stored: "@kim can you add a TTL … by friday"), not any statement that shares a
word with the question."""

from __future__ import annotations

import re

from memory.episodes.statements import classify, strip_label

_ASKS = re.compile(
    r"\bwhat (?:do|did) i (?:owe|own|have (?:to do|open|left))\b"
    r"|\bwhat(?:'s|’s|s| is) (?:on|left for|assigned to|for) me\b"
    r"|\b(?:anything|something|stuff|items?) (?:on|for|assigned to) me\b"
    r"|\bwhat (?:am|was) i (?:on the hook for|supposed to do|assigned|owning|down for)\b"
    r"|\b(?:am i|was i) (?:on the hook|assigned|down) for\b"
    r"|\bdo i (?:own|owe|have) (?:any|anything)\b"
    r"|\bmy (?:open |remaining |outstanding )?(?:action items?|actions|todos?|to-dos?|follow[- ]?ups?"
    r"|tasks|items)\b",
    re.I,
)


# An item opening with a person and what they are to do, after its key if it has one
# ("AI-7: @kim to rotate the password", "lena to set maxmemory-policy").
_NAMED_FIRST = re.compile(
    r"(?:(?:[a-z]{1,10}-\d{1,6}|#\d{1,7})\s*[:\-–—]?\s*)?@?([\w.-]+)\s*(?::|\bto\b|\bwill\b|\bowns\b)",
    re.I,
)


_SIGNED = re.compile(r"(?:[—–-]+|\()\s*@([\w.-]+)\s*\)?\s*$")


def asks_own_items(question: str) -> bool:
    """Whether the question asks for the asker's own action items."""
    return bool(_ASKS.search(question))


def owned_by(text: str, author: str, name: str) -> bool:
    """Whether the action item `text`, said by `author`, is owned by `name` ("@kim can you …
    by friday", "kim to rotate the key", "I'll take it" said by kim)."""
    if not name:
        return False
    owner = classify(text, author=author).owner
    if owner is not None:
        return _plain(owner) == _plain(name)
    # "action item: lena to set maxmemory-policy …": an item opening with the asker's own
    # name and what they are to do (any other first word, "switch to …", names nobody; the
    # name is compared, never guessed).
    opening = _NAMED_FIRST.match(strip_label(text))
    if opening is not None and _plain(opening.group(1)) == _plain(name):
        return True
    # "alert when any cert expires in < 14d — @ben": a list item signed with its owner, stored
    # without the list marker that made it one.
    signed = _SIGNED.search(text)
    return signed is not None and _plain(signed.group(1)) == _plain(name)


def _plain(name: str) -> str:
    return " ".join(name.lstrip("@").lower().split())
