"""Which action items a message says are done ("AI-2 done, added to the wiki"): read by the
roll-up, which marks the item done, and by recall, which leaves closed items out of open ones."""

from __future__ import annotations

import re

from memory.text import item_references

# "AI-2 done", "AI-4 is done: …", "AI-2 is live", "the lock (AI-1) went live", "#2219 merged",
# "AI-1 and AI-2 are done", "AI-9 (done)", "AI-1 ✅" — not "AI-2 is done when the dashboard is".
_DONE = re.compile(
    r"(?:\s*(?:,|and|&|/)\s*(?:[A-Za-z]{1,10}-\d{1,6}|#\d{1,7}))*[\s):,\-–—(]*"
    r"(?:(?:is|are|now|went|has been|have been|was|were)\s+)*"
    r"(?:(?:done|completed?|finished|closed|shipped|merged|live|landed|resolved|fixed)\b"
    r"(?!\s+(?:when|once|if|after|before|by|until)\b)|[✅✔☑])",
    re.I,
)
# "ping me when AI-2 is merged", "once AI-1 and AI-2 land": a condition, not a report.
_CONDITION = re.compile(
    r"\b(?:when|once|if|until|till|unless|whether|as soon as|assuming)\W+"
    r"(?:(?:[A-Za-z]{1,10}-\d{1,6}|#\d{1,7})\s*(?:,|and|&|/)\s*)*$",
    re.I,
)
# The item's own line: its key first, then its label mark ("AI-4: Complete the runbook").
_ITEM_LINE = re.compile(r"^\W*(?:[A-Za-z]{1,10}-\d{1,6}|#\d{1,7})\s*[:\-–—]", re.I)


def done_keys(text: str) -> set[str]:
    """The items a message says are done ("AI-2 done", "AI-4 is done: …", "AI-1 and AI-2 are
    done"): each mention of a key followed by a word that says so. A question says nothing is
    ("is AI-2 done?"), nor does a condition ("ping me when AI-2 is merged"), and an item's own
    line does not close it ("AI-4: Complete the runbook")."""
    if text.rstrip().endswith("?"):
        return set()
    own = _ITEM_LINE.match(text)
    lowered = text.lower()
    return {
        key
        for key in item_references(text, any_case=True)
        for mention in re.finditer(re.escape(key), lowered)
        if not (own and mention.start() < own.end())
        and not _CONDITION.search(text, 0, mention.start())
        and _DONE.match(text, mention.end())
    }
