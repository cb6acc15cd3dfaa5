"""Which action items a message says are done ("AI-2 done, added to the wiki"), and whether a
message reports doing what an item said to do ("limit raised to 200Mi" after "raise the
limit to 200Mi"): read by the roll-up, which marks the item done, and by recall, which leaves
closed items out of open ones and shows what was done under the decision it carries out."""

from __future__ import annotations

import re

from memory.episodes.statements import strip_label
from memory.text import STOP_WORDS, item_references, stem, stems

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


# Past forms that do not end in -ed; a report says what was done in them ("wrote", "rebuilt").
_IRREGULAR_PAST = {
    "do": ("did", "done"),
    "write": ("wrote", "written"),
    "take": ("took", "taken"),
    "make": ("made",),
    "run": ("ran",),
    "rerun": ("reran",),
    "build": ("built",),
    "rebuild": ("rebuilt",),
    "send": ("sent",),
    "put": ("put",),
    "set": ("set",),
    "reset": ("reset",),
    "shut": ("shut",),
    "cut": ("cut",),
    "give": ("gave", "given"),
    "drain": ("drained",),
    "spin": ("spun",),
    "bring": ("brought",),
    "pin": ("pinned",),
}
# Leads an item without saying what to do: "TODO @dev:", "we should", "let's", "please".
_ITEM_OPENING = re.compile(
    r"^(?:\W*(?:todo|fixme|ask|next|then|so|ok(?:ay)?|please|pls|we|let'?s|let us|i|you|"
    r"@[\w.-]+|[a-z]+(?=\s+(?:to|will|should|must|can|needs? to)\s)|will|should|need to|needs to|must|can|to|going to|gonna|'ll)\b[^\w@]*)*",
    re.I,
)
# A report that is not one: a question, a plan, a condition, a negation ("not cordoned yet"),
# a hypothetical ("restarted pods would lose state") or another time ("rolled back last week").
_NOT_DONE = re.compile(
    r"\?\s*$|n[’']t\b|\b(?:(?:do|did|have|has|had|was|were|is|are|ca|wo|could|should)nt"
    r"|not|never|yet|will|i'?ll|going to|gonna|once|when|if|should|need to"
    r"|would|could|might|last (?:week|time|month)"
    r"|planning|plan to|about to|trying|try to|instead|fail(?:ed|s|ing)?)\b",
    re.I,
)
# Says it is done however it goes on: "done, cordoned …", "✅ raised …".
_DONE_OPENING = re.compile(r"^\W*(?:done|finished|completed)\b|^\W*[✅✔☑]", re.I)


def _verbs(item: str) -> set[str]:
    """The stems of what an item says to do: its first word and each one after "and" or
    "then" ("cordon the 3 nodes and scale batch-etl to 0": cordon, scale)."""
    what = _ITEM_OPENING.sub("", strip_label(item), count=1)
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", what)
    picked = [w for i, w in enumerate(words) if i == 0 or words[i - 1].lower() in ("and", "then")]
    return {stem(w.lower()) for w in picked if w.lower() not in STOP_WORDS}


def _said_in_the_past(report: str, verbs: set[str]) -> bool:
    for word in re.findall(r"[A-Za-z]+", report.lower()):
        if stem(word) in verbs and word.endswith("ed"):
            return True
        if any(word in _IRREGULAR_PAST.get(v, ()) for v in verbs):
            return True
    return False


def carries_out(item: str, report: str) -> bool:
    """Whether a later message reports doing what `item` (a decision, an action) said to do:
    it says one of the item's verbs in the past ("cordon the 3 nodes" → "done, cordoned
    ip-10-2-3-4, ip-10-2-7-9"; "raise the limit to 200Mi" → "limit raised to 200Mi") and
    shares another subject word with it, or opens with "done". A question, a plan,
    a condition or a negation reports nothing ("not cordoned yet", "once raised, ping me")."""
    text = strip_label(report)
    verbs = _verbs(item)
    if not verbs or _NOT_DONE.search(text) or not _said_in_the_past(text, verbs):
        return False
    if _DONE_OPENING.match(text):
        return True
    return bool((stems(item) & stems(text)) - verbs)


# How a report opens that a "done" mark already says: "done, cordoned …", "✅ raised …".
_SAYS_DONE = re.compile(r"^\W*(?:(?:done|finished|completed)\b\W*|[✅✔☑]\s*)", re.I)


def what_was_done(report: str) -> str:
    """A report of work done without the word that says it is ("done, cordoned ip-10-2-3-4"
    -> "cordoned ip-10-2-3-4"), for showing after a mark that says so already."""
    return _SAYS_DONE.sub("", strip_label(report), count=1) or report
