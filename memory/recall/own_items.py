"""The asker's own action items: "what do I owe here?", "anything on me?", "my action items?"
want the items of this incident that name the asker as owner (by the name Slack shows, as their
mentions are stored: "@kim can you add a TTL … by friday"), not any statement that shares a
word with the question."""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from memory.episodes.statements import classify, signed_by, strip_label

_ASKS = re.compile(
    r"\bwhat (?:do|did) i owe\b"
    r"|\bwhat(?:'s|’s|s| is) (?:on|left for|assigned to) me\b"
    r"|\b(?:anything|items?) (?:on|assigned to) me\b(?!\s+(?:to|and)\b)"
    r"|\bam i on the hook\b|\bdo i (?:own|owe) (?:any|anything)\b"
    r"|^\W*(?:what|which|any|list|show)\b[^?]{0,20}\bmy (?:open |remaining |outstanding )?"
    r"(?:action items?|to-?dos?|follow[- ]?ups|ais)\b",
    re.I,
)


# An item opening with a person and what they are to do, after its key if it has one
# ("AI-7: @kim to rotate the password", "lena to set maxmemory-policy").
_NAMED_FIRST = re.compile(
    r"(?:(?:[a-z]{1,10}-\d{1,6}|#\d{1,7})\s*[:\-–—]?\s*)?@?([\w.-]+)\s*(?::|\bto\b|\bwill\b|\bowns\b)",
    re.I,
)


def asks_own_items(question: str) -> bool:
    """Whether the question asks for the asker's own action items."""
    return bool(_ASKS.search(question))


#: An item's key where a list of items said in one message starts the next one ("AI-1 revert
#: the heap (cy), AI-2 alert on node loss (bo)", "• AI-1 …\n• AI-2 …", "1. AI-1 …"): at the
#: start, or after a separator, a list marker may come first ("node-1" and "db-2" are hosts).
_ITEM_KEY = re.compile(
    r"(?:^|(?<=[,;.|/)\n:]))[ \t]*+(?:(?:[-*•]|\d{1,2}[.)])[ \t]++)?"
    r"(?P<key>(?-i:[A-Z]{1,10})-\d{1,6}|ai-\d{1,6}|#\d{1,7})(?![\w-])",
    re.I,
)
SIGNATURE_CHARS = 120
#: Items one message lists at most, read one at a time (a pasted blob is read as one).
MOST_ITEMS = 20
#: Where one item signed in parentheses ends and the next begins ("… worker (sam), alert …",
#: "… (felix)\n• add …"): the split keeps each item's signature.
_SIGNED_ITEM_END = re.compile(r"(?<=\))[ \t]*+(?:[,;]|\band\b|\n)[ \t\n]*+", re.I)
#: An item signed with its owner in parentheses as it ends ("… in chef (cy)", "(owner: cy)").
_SIGNED_IN_PARENS = re.compile(r"\( ?(?:owner ?[:=]? ?|@)?([\w.-]++) ?\)\W*+$", re.I)


def owned_by(text: str, author: str, name: str, *, done: AbstractSet[str] = frozenset()) -> bool:
    """Whether the action item `text`, said by `author`, is owned by `name` ("@kim can you …
    by friday", "kim to rotate the key", "I'll take it" said by kim). A message listing
    several items by key is read one item at a time, leaving out those whose key is `done`
    (lower case, as `item_references` reads keys)."""
    if not name:
        return False
    keys = list(_ITEM_KEY.finditer(text))
    if len(keys) > 1:
        starts = [0, *(m.start() for m in keys[1:])]
        ends = [*(m.start() for m in keys[1:]), len(text)]
        return any(
            _owns_item(text[a:b], author, name)
            for key, a, b in zip(keys, starts, ends, strict=True)
            if key.group("key").lower() not in done  # the item's own key, not one it mentions
        )
    signed = [
        item
        for item in _SIGNED_ITEM_END.split(text, maxsplit=MOST_ITEMS)
        if _SIGNED_IN_PARENS.search(" ".join(item[-SIGNATURE_CHARS:].split()).rstrip(" ,;"))
    ]
    if len(signed) > 1:
        # "follow-ups: move PDF rendering out (sam), alert on rebalances (felix), …": items
        # without keys, each signed by its owner, read one at a time.
        return any(_owns_item(item, author, name) for item in signed)
    return _owns_item(text, author, name)


def _owns_item(text: str, author: str, name: str) -> bool:
    """`owned_by` of one item."""
    # (its end only: what signs an item closes it, and a long message is not read whole)
    signed_in_parens = _SIGNED_IN_PARENS.search(
        " ".join(text[-SIGNATURE_CHARS:].split()).rstrip(" ,;")
    )
    if signed_in_parens is not None and _plain(signed_in_parens.group(1)) == _plain(name):
        return True
    if " " in name.strip():  # "@Kim Lee can you … by friday", "… — @Kim Lee": said whole
        said = " ".join(strip_label(text).lower().split())
        whole = f"@{_plain(name)}"
        if said.startswith(whole) or said.endswith(whole):
            return True
    owner = classify(text, author=author).owner
    if owner is not None:
        return _is(owner, name, text)
    # "action item: lena to set maxmemory-policy …": an item opening with the asker's own
    # name and what they are to do (any other first word, "switch to …", names nobody; the
    # name is compared, never guessed).
    opening = _NAMED_FIRST.match(strip_label(text))
    if opening is not None and _plain(opening.group(1)) == _plain(name):
        return True
    # "alert when any cert expires in < 14d — @ben": a list item signed with its owner, stored
    # without the list marker that made it one.
    signed = signed_by(text)
    return signed is not None and _plain(signed) == _plain(name)


def _is(owner: str, name: str, text: str) -> bool:
    """Whether the owner read from `text` is the person shown as `name`. A name of two words
    ("Kim Lee", a real name where no display name is set) is read as its first ("Kim"): it is
    theirs when the text mentions them whole, and never a "Kim"'s then."""
    if " " in name.strip():
        first = name.split()[0]
        return _plain(owner) == _plain(first) and f"@{_plain(name)}" in _plain(text)
    mentioned_longer = re.search(rf"@{re.escape(name)}\s+[A-Z]", text)
    return _plain(owner) == _plain(name) and mentioned_longer is None


def _plain(name: str) -> str:
    return " ".join(name.lstrip("@").lower().split())
