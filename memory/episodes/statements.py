"""What a thread message states: a decision, an action with its owner, a root cause, a
mitigation, a status change, a correction of something said before, or plain talk.

Deterministic cue patterns (no model), so a captured message becomes recall evidence of the
right kind as it arrives, and roll-ups pick their lines from the same reading. A leading
`decision:`-style label is recognised and stripped from the shown text, so a note saved as
"Decision: decision: …" never happens. The cues are general incident-chat phrasing, not words
of any one conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from memory.text import item_references

StatementKind = Literal[
    "root_cause", "decision", "action", "mitigation", "status", "correction", "note"
]

# "Decision: …", "RCA - …", "*Action item*: …", "AI-3: …" at the very start of a message.
_LABELS: tuple[tuple[StatementKind, str], ...] = (
    # "rc:" with its colon: "rc-2 is out" names a release candidate
    ("root_cause", r"root[ -]?cause|rca|rc(?![*_`]*\s*[\-–—])|cause"),
    # ("plan-b: …" names a plan, it labels none)
    ("decision", r"decision|decided|agreed|plan(?![\-–—])"),
    ("action", r"action(?:[ -]?items?)?|todo|follow[ -]?up|owner"),
    ("mitigation", r"mitigation|workaround|fix"),
    ("status", r"status(?:[ -]?update)?|update|resolved|mitigated"),
    ("correction", r"correction|scratch that|update to the above"),
)
_LABEL_WORDS = "|".join(f"(?:{p})" for _, p in _LABELS)
_LABEL = re.compile(rf"^\s*[*_`]*(?P<label>{_LABEL_WORDS})[*_`]*\s*[:\-–—]\s*", re.I)

# "AI-3: …" at the very start names an action item: it is one, whatever cue its words hold
# ("pins the root CA instead of the intermediate" describes the fix, it corrects nothing). The
# id stays in the text: later messages refer to the item by it.
# A bare "AI:" (no number) opens one only with a colon and when it asks nothing ("AI: do we
# have a runbook?" is a question; "AI-assisted triage…" is no label at all).
# "AI @dev add a statement timeout" (terse chat: the owner's mention in place of the colon).
_ITEM_ID = re.compile(
    r"^\s*[*_`]*ai(?:[ -]?\d+[*_`]*\s*[:\-–—](?!>)|[*_`]*\s*:(?!.*\?\s*$)"
    r"|\s+(?=(?:@[\w.-]+|<@[A-Z0-9]+>)[:,]?\s+\w)(?!.*\?\s*$))",
    re.I,
)

_BARE_ITEM = re.compile(r"^\s*[*_`]*ai[*_`]*(?:\s*:\s*|\s+(?=@|<@))", re.I)

# An item's key and a person, as a handover names them ("AI-3", "#2219"; "Tom", "@sam", "<@U1>").
_KEY = r"(?:(?-i:[A-Z]{1,10})-\d{1,6}|ai-\d{1,6}|#\d{1,7})"
_MENTION = r"(?:@(?!(?:here|channel|everyone)\b)[\w.-]+|<@[A-Z0-9]+>)"
# Giving a named item to a named person. The receiving name is the group it matched. Only
# wordings that say so: "failing over to Frankfurt", "moves to Resolved", "Tom now has AI-1
# context" and "Nobody is taking AI-2" give nothing to anyone.
_NOT_A_TAKER = (
    r"(?!(?:it|this|that|nobody|noone|no|someone|somebody|everyone|anyone|whoever|he|she|we"
    r"|they|you|who|what|which|the|a|an|be|do|get|make|see|him|her|them|us|my|our|your|their"
    r"|his|another|one|all|any|both|next|tomorrow|tonight|(?:sev|p)\d)\b)"
)
# A name as a handover wording gives it ("hand AI-3 to ___", "tom is taking AI-3"); one typed
# in lower case names a person only for an action item (`_handover`).
_PERSON = rf"(?:{_MENTION}|\bme\b|{_NOT_A_TAKER}[a-z][\w.-]*)"
# The key ends what is taken: "deploy is taking AI-3 down" gives AI-3 to no one.
_KEY_ENDS = r"(?=\s*(?:[.,;:!)]|$|\s+(?:over|now|from|today|tonight|then|for)\b))"
# What is handed over that is no action item: a role or a shift ("handing the pager over to
# @mia", "the incident over to @mia as IC"), or data to look at ("the logs to @sre-team").
_NOT_AN_ITEM = (
    r"(?!(?:pager|incident|ic|incident command|comms|shift|on-?call|rotation|bridge|call|conn"
    r"|logs?|dumps?|heap dump|traces?|data|traffic|keys)\b)"
)
_HANDOVER = (
    rf"\b(?:hand|pass)(?:s|es|ed|ing)?\s+(?:off|over|along)\s+{_KEY}\s+to\s+(?P<to>{_PERSON})"
    rf"|\b(?:hand|pass)(?:s|es|ed|ing)?\s+{_KEY}\s+(?:(?:off|over|along)\s+)?to\s+"
    rf"(?P<to2>{_PERSON})"
    rf"|\bownership of\s+{_KEY}\s+(?:moves|goes|passes)\s+to\s+(?P<to3>{_PERSON})"
    rf"|\b{_KEY}[:,]?\s+(?:is\s+|was\s+)?(?:reassigned|handed(?:\s+(?:off|over))?|(?:passed"
    rf"|handing|passing)\s+(?:it\s+)?(?:off|over|along))\s+to\s+(?P<to4>{_PERSON})"
    rf"|\b(?:give|gives|giving|gave|(?:re)?assign(?:s|ed|ing)?)\s+{_KEY}\s+to\s+"
    rf"(?P<to5>{_PERSON})"
    rf"|^\W*(?P<taker>{_PERSON})\s+is\s+(?:now\s+)?(?:taking|picking\s+up)"
    rf"(?:\s+over)?\s+{_KEY}{_KEY_ENDS}"
    rf"|(?:^|:\s*)(?P<taker2>{_PERSON})\s+has\s+{_KEY}\s+now\b"
    rf"|(?P<asked>{_MENTION})\s+(?:please\s+|pls\s+)?(?:take|grab|pick\s+up|own)\s+{_KEY}"
    rf"|\b{_KEY}\s*(?:->|→|=>)\s*(?P<arrow>{_MENTION})"
    # An item named by what it is, given to someone mentioned: "handing the forecast alert over
    # to @mia", "passing off the postmortem to @kim" (a place is never mentioned).
    rf"|\b(?:hand|pass)(?:s|es|ed|ing)?\s+(?:(?:off|over)\s+)?(?:the|my|our)\s+{_NOT_AN_ITEM}"
    rf"(?:[\w.-]+\s+){{0,4}}?(?:(?:off|over|along)\s+)?to\s+(?P<named>{_MENTION})(?![\w.-]|['’]s\b)"
)
_HANDED_TO = re.compile(_HANDOVER, re.I)
_ACTION_ITEM_KEY = re.compile(r"\bai-\d{1,6}\b", re.I)
#: Wordings that only ever give to a person: "handing off OPS-12 to maya", "ownership of INC-7
#: moves to priya", "OPS-3 was reassigned to dev" (not "passed to ci", "staging has #4512 now").
_TO_A_PERSON = re.compile(r"\b(?:hand(?:s|ed|ing)?|ownership|reassigned)\b", re.I)


def _handover(text: str) -> re.Match[str] | None:
    """The first wording in `text` that gives an item to a person. A receiver typed in lower
    case counts only for an action item ("handing off ai-3 to tom"): a PR, ticket or change
    moves to places ("staging has #4512 now", "passed #4512 to ci", "canary is picking up
    PR-4512"), an action item to people."""
    for match in _HANDED_TO.finditer(text):
        name = next(n for n in match.groupdict().values() if n)
        if name[0] in "@<" or name[0].isupper() or name.lower() == "me":
            return match
        if _ACTION_ITEM_KEY.search(match.group(0)) or _TO_A_PERSON.search(match.group(0)):
            return match
    return None


# Taking back what one just said, then saying what is right: "nvm not 5min, 30s", "oops, it's
# v39", "make that 30s", "I meant the eu bucket" (not "nvm, found it": nothing said is wrong).
_TAKE_BACK = (
    r"^\W*(?:(?:(?:nvm|never ?mind|my bad|oops|whoops|sorry|typo)\b[\s,.!:;\-–—]*)+"
    r"(?:not\b(?!\s+(?:me|sure|yet|now|really|much|a|an)\b)|it'?s\b|its\b|should be\b|(?:i )?meant\b|make that\b|\w\S* not\b)"
    r"|make that\s+[\w.-]*\d|(?:i meant|meant to say)\s+(?!to\b)\S)"
)


# Cues anywhere in the text, strongest first; the first kind that matches wins.
class _InsteadOf:
    """ "roll back to v40 instead of v41" corrects; "eviction policy is allkeys-lru instead of
    volatile-lru" and "it purges * instead of the changed paths" say what something is or does
    and correct nobody. Read on the clause before "instead of" only (linear in the text)."""

    _AT = re.compile(r"\binstead of\b", re.I)
    _CLAUSE = re.compile(r"[.;:!?,]")
    _DESCRIBES = re.compile(
        r"\b(?:is|are|was|were|isn'?t|wasn'?t|aren'?t|weren'?t|been|being)\b"
        r"|\b(?:it|this|that|which|he|she)\s+(?!was\b)\w+(?:s|ed)\b",
        re.I,
    )

    def search(self, text: str) -> re.Match[str] | None:
        found = self._AT.search(text)
        if found is None:
            return None
        clause = self._CLAUSE.split(text[: found.start()])[-1]
        return None if self._DESCRIBES.search(clause) else found


class _Cue(Protocol):
    def search(self, text: str, /) -> re.Match[str] | None: ...


_CUES: tuple[tuple[StatementKind, _Cue], ...] = (
    (
        "correction",
        re.compile(
            r"\bscratch that\b|\bcorrection\b|\bi was wrong\b|\bignore (?:that|my last)\b"
            # "nvm not 5min, 30s", "my bad, it's the eu bucket", "make that 30s", "I meant v39"
            rf"|{_TAKE_BACK}"
            r"|\bnot .{1,40} after all\b|\bactually (?:it'?s|it is|it was|the|we)\b"
            r"|\b(?:takes?|taking|took) (?:it |this |that )?over\b|\bover from\b"
            # "Sure, I'll take the renewal job fix over": a named piece of work, said by the
            # one who takes it (the clause ends there: "take the dashboards over to ops" gives)
            # ("let me take a second look over", "I'll take a pass over now" take nothing)
            r"|\b(?:i'?ll|i will|i can|let me) take (?:the |that |this )?"
            r"(?!(?:a|an|another|one|some|any|more|few)\b)(?:[\w-]+ ){0,3}"
            r"(?!(?:look|pass|glance|peek|once|load)\b)[\w-]+ over"
            r"(?=\s*(?:[.,;!]|$|\s+(?:now|then|from|too|for you|if)\b))"
            # "I'll take AI-1 myself", "sure, I'll take AI-3 over": an item someone else owned
            # (a key in capitals, or an action item's in any case: "taking node-4 from the
            # pool" hands nothing over)
            r"|\b(?:takes?|taking|took) (?:(?-i:[A-Z]{1,10})-\d{1,6}|ai-\d{1,6}|#\d{1,7})"
            r" (?:over|from|myself)\b"
            # "yep, AI-1 is mine now", "I can take #2219" (asked to): the same ("I'll take AI-2
            # today" names its first owner)
            r"|(?<![\w#])(?:(?-i:[A-Z]{1,10})-\d{1,6}|ai-\d{1,6}|#\d{1,7})"
            r" is (?:now (?:mine|on me)|(?:mine|on me) now)\b"
            # (the key ends the clause: "let me grab INC-1234 details" takes nothing over)
            r"|\b(?:i can|let me) (?:take|own|pick up|grab)"
            r" (?:(?-i:[A-Z]{1,10})-\d{1,6}|ai-\d{1,6}|#\d{1,7})"
            r"(?=\s*(?:[.,;!]|$|\s+(?:over|now|then|from|myself|too|for you|if)\b))"
            r"|\bnew owner\b|\breassign(?:ed|ing)?\b|\bno longer\b"
            r"|\bchanged? (?:the )?plan\b|\bupdate to the above\b|\brevised\b"
            # "Actually, Tomasz will own the ticket": a message that opens by taking back
            r"|^\s*(?:(?:ok|okay|hmm|wait|sorry|no)[,.!]?\s+)?actually\b",
            re.I,
        ),
    ),
    # "We decided to move it instead of restarting": a decision that names what it ruled out.
    # Without a decision's words, "instead of" corrects ("roll back to v40 instead of v41").
    (
        "decision",
        re.compile(
            r"^(?=.*\binstead of\b).*\b(?:we(?:'ve| have)? decided|decided to|decision)\b",
            re.I | re.S,
        ),
    ),
    ("correction", _InsteadOf()),
    (
        "root_cause",
        re.compile(
            r"\broot[ -]?cause\b|\bcaused by\b|\bthe cause (?:is|was)\b|\bculprit\b"
            r"|\btriggered by\b|\bturns? out\b|\bturned out\b|\bthat'?s why\b|\brca\b",
            re.I,
        ),
    ),
    (
        "action",
        re.compile(
            # ("action items from the postmortem" announces a list: it is no item itself)
            r"\b(?:action[ -]?items?|follow[ -]?ups?)\b"
            r"(?!\s+(?:for|from|of)\s+(?:the|this|that|today'?s|yesterday'?s|our)\s+(?:[\w-]+\s+){0,3}?"
            r"(?:incident|outage|postmortem|post-mortem|review|retro)\b)|\bai-\d+\b"
            r"|\b(?:i'?ll|i will) (?:own|take|file|write|add)\b"
            r"|\bowns?\b|\bowner\b|\bassigned to\b|\btodo\b|\bticket\b"
            r"|\bdue (?:date|by|on)\b",
            re.I,
        ),
    ),
    (
        "decision",
        re.compile(
            r"\bdecision\b|\bwe decided\b|\bdecided to\b|\bagreed\b|\bgoing with\b"
            r"|\blet'?s go with\b|\bwe(?:'ll| will) (?:roll|go|keep|ship|pause|freeze)\b"
            r"|\bplan is\b|\bcall(?:ing)? it\b|\bapproved\b",
            re.I,
        ),
    ),
    # "We consider the incident mitigated", "it's mitigated now": where it stands, not what
    # was done about it.
    (
        "status",
        re.compile(
            r"\b(?:incident|it|this|that|we(?:'re| are))(?:\s+(?:is|'s|now|as|being|been|fully))*"
            r"\s+(?:mitigated|resolved)\b(?!\s+(?:by|with|through)\b)",
            re.I,
        ),
    ),
    (
        "mitigation",
        re.compile(
            r"\bmitigat\w*|\brolled back\b|\brolling back\b|\brollback\b|\breverted\b"
            r"|\breverting\b|\bfail(?:ed)? ?(?:over|back)\b(?![\s-]*to[- ]back\b)"
            r"|\bscaled (?:out|up)\b|\brestarted\b"
            r"|\bworkaround\b|\bhot ?fix\b|\bpaused\b|\bdisabled\b|\bresized\b"
            # "timeout bumped to 60s on the gateway": a change said of the setting ("retention
            # was bumped to 14 days last Tuesday" tells what happened before, often the cause)
            r"|(?<!was )(?<!were )(?<!been )(?<!is )(?<!are )"
            r"\bbumped\s+(?:it\s+)?(?:up\s+)?(?:to|from|by)\b"
            r"|(?:^\s*|\b(?:we|i|they|just|have|'ve)\s+)patched\b"
            # "I have migrated master-1 to ds-03", "we drained node-4": a change said as done by
            # the team (a passive "was migrated at 09:40" tells what happened to it)
            # "bumped the cpu limit to 4": chat drops the "I" of a change reported as done,
            # for verbs that say a change was made ("Increased error rates", "moved to #inc-2",
            # "blocked on the db team" report a state)
            r"|^\s*(?:just\s+|now\s+|already\s+)?(?:bumped|drained|cordoned|evicted|rebooted"
            r"|bounced|redeployed|re-deployed|flushed|purged|killed|migrated|v-?motioned"
            r"|failed over|defragmented|defragged|compacted|suspended|re-?enabled|scaled"
            r"|rolled (?:out|forward))\b"
            r"|\b(?:we|i)(?:'ve| have)?\s+(?:just\s+|now\s+|already\s+)?(?:[a-z]+-)?"
            r"(?:moved|migrated|v-?motioned|relocated|drained|cordoned|evicted|rebooted|bounced"
            r"|failed over|switched|shifted|raised|increased|bumped|lowered|reduced|expanded"
            r"|extended|rotated|flushed|purged|killed|throttled|re-?enabled|redeployed|re-deployed"
            r"|rolled (?:out|forward)|freed|compacted|defragmented|defragged|suspended|blocked"
            r"|unblocked|scaled)\b"
            # "I set retention.ms on orders.v2 to 259200000": a setting given a number (not "I set
            # severity to SEV1", "set a timer for 15 min", "we set the incident to resolved")
            r"|\b(?:we|i)(?:'ve| have)?\s+(?:just\s+)?set\s+(?:the\s+)?(?:[\w.-]+\s+){1,4}?"
            r"(?:to|=)\s*\d"
            # "updated the secret with the new s3 key", "rotated the api token": a credential
            # changed, said as done ("updated the status page", "changed the dashboard config"
            # change nothing that serves)
            r"|^\s*(?:just\s+|now\s+|already\s+)?(?:updated|replaced|rotated|renewed|reissued)"
            r"\s+(?:the\s+|our\s+|its\s+)?(?:[\w.-]+\s+){0,2}?"
            r"(?:secrets?|keys?|creds|credentials|certs?|certificates?|tokens?|passwords?)\b"
            # "done `kubectl -n x patch …`": a command that changes something, said as run
            r"|\b(?:done|ran|applied)\b[,:]?\s*`\s*(?:(?:kubectl|oc)\s+(?:-{1,2}[\w-]+(?:[ =]\S+)?\s+)*"
            r"(?:patch|rollout|scale|delete|drain|cordon|uncordon|set|apply|annotate|label|edit)"
            r"|helm\s+(?:rollback|upgrade|uninstall))\b",
            re.I,
        ),
    ),
    (
        "status",
        re.compile(
            r"\bstatus(?: ?page)?\b|\bresolved\b|\brecovered\b|\ball clear\b|\bback to normal\b"
            r"|\bmonitoring\b|\bclosing (?:this|the incident)\b|\bdowngrad\w+ to sev\b"
            r"|\bsev ?[1-4]\b",
            re.I,
        ),
    ),
)

#: A day of the week, whole or as people shorten it (not "sat" of "saturation").
_WEEKDAY = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri"
    r"|sat|sun)"
)

#: "… after every rebuild. owner Ola", "… rolled back. ETA 10m": a short field after a full stop
#: finishes the sentence before it; it states nothing on its own.
_FIELD = re.compile(
    r"[*_`(]*(?:(?:owners?|owned by|assignee|assigned to)[*_`]*\s*[:=]?\s*(?:@?[A-Z]\w*|<@\w+>)"
    r"|(?:due(?! to\b)|eta|deadline)[*_`]*\s*[:=]?\s*(?:\S+\s*){1,3}"
    # "… add the alert. by friday": when it is due, said after the full stop
    r"|by\s+(?:eod|eow|cob|noon|midnight|tomorrow|tonight|(?:next|this)\s+\w+"
    rf"|end\s+of\s+(?:the\s+)?\w+|{_WEEKDAY}\b"
    r"|\d{1,2}(?::\d\d)?\s*(?:am|pm)?(?:\s+[a-z]{3,9})?|[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    rf"|q[1-4])(?:\s+(?:pls|please|latest|eod|{_WEEKDAY}\b))?)\W*",
    re.I,
)
# A list of fields is split on its separators and each part read alone: one regex over the whole
# list backtracks without bound on a long one.
_FIELD_SEPARATOR = re.compile(r"\s*[,;&]\s*(?:and\s+)?|\s+and\s+", re.I)
MAX_FIELD_PIECE = 200  # a longer piece is a sentence of its own, never a list of fields


def finishes_sentence(piece: str) -> bool:
    """Whether a piece after a full stop is a field of the sentence before it ("owner Ola"), or
    a list of them ("owner olu, due wed")."""
    if len(piece) > MAX_FIELD_PIECE:
        return False
    parts = [p for p in _FIELD_SEPARATOR.split(piece.strip()) if p]
    return bool(parts) and all(_FIELD.fullmatch(p) for p in parts)


#: "ping me when AI-1 is merged", "let me know once AI-2 lands", "keep us posted on AI-3".
# Only a line that opens with the request: "AI-5 add an alert, lmk if you want to pair" is
# an item.
_ASKS_TO_HEAR = re.compile(
    r"^\W*(?:(?:pls|please)\s+)?(?:(?:ping|tell|notify|dm|page)\s+(?:me|us)\b"
    r"|(?:let (?:me|us) know|lmk|keep (?:me|us) (?:posted|updated|in the loop)"
    r"|give (?:me|us) a heads[- ]?up)\b)",
    re.I,
)

_AGREES = r"(?:ok(?:ay)?|yes|yep|sure|agreed|approved|\+1|lgtm|sounds good|deal|fine|go)"
#: A reply made only of agreement ("agreed", "ok, approved!") says no decision, whatever cue it
#: holds; "rollback approved" says what was.
_AGREEMENT = re.compile(rf"^\W*{_AGREES}(?:\W+{_AGREES})*\W*$", re.I)

_OWNER = re.compile(
    rf"(?<![\w@.-]){_NOT_A_TAKER}(?P<name>@?[A-Z][\w.-]+|<@[A-Z0-9]+>)\s+(?:now\s+)?"
    r"(?:owns|will own|takes|has taken|is on)\b"
    r"|\b(?:owner\b|assigned to|owned by)\s*[:=]?\s*(?P<name2>@?[A-Z][\w.-]+|<@[A-Z0-9]+>)"
    r"|\b(?P<self>i'?ll|i will|i can|let me)\s+(?:own|take|file|write|add|pick up|grab)\b"
    # "Ngozi will open a ticket with StorCo": a person named first, then what they will do
    r"|^\s*(?!(?:it|this|that|these|those|we|they|he|she|you|i|there|someone|somebody|nobody"
    r"|everyone|anyone|which|what|who|nothing|something)\b)(?P<name3>@?[A-Z][\w.-]+|<@[A-Z0-9]+>)"
    r"\s+(?:will|is going to|'ll)\s+(?:own|take|open|file|write|add|fix|handle|follow up"
    r"|look into|chase|draft|update|schedule|run|drive|lead)\b"
    # "AI-1 alert on fsync p99 — @priya", "… (<@U123>)": a list item signed with its owner
    r"|(?:[—–-]+|\()\s*(?P<name4>@[\w.-]+|<@[A-Z0-9]+>)\s*\)?\s*$"
    # "TODO @dev: raise the limit", "@kim to write the postmortem", "AI-2: @joe add an alert":
    # an item that opens (past its label or key) with whom it is for
    r"|^\s*(?:(?:todo|action(?:[ -]?items?)?|follow[ -]?up|ai[ -]?\d{1,6}|#\d{1,7})"
    r"\s*+(?:[:\-–—]\s*+)?)?"
    r"(?P<name5>@(?!(?:here|channel|everyone)\b)[\w.-]+|<@[A-Z0-9]+>)(?=\s*[:\-–—]|\s+[a-z])",
    re.I,
)


#: "@chen can you add a circuit breaker? by thursday", "<@U1> pls write up the timeline by
#: EOD": work asked of a named person, with when it is due. Asked without a due date ("@chen
#: can you check the logs?") it is a request of the moment, no item to follow up.
_REQUEST = re.compile(
    rf"^\W*(?:(?:hey|hi|ok(?:ay)?|and|also)\W+)?(?P<who>{_MENTION})[,:]?\s+"
    r"(?:(?:can|could|would|will)\s+you\s+|(?:please|pls|plz)\s+)(?:(?:please|pls|plz)\s+)?"
    r"(?:also\s+)?[a-z]",
    re.I,
)
_DUE = re.compile(
    r"\b(?:by|due)\s+(?:eod|eow|cob|noon|tomorrow|tonight|(?:next|this)\s+(?:week|sprint"
    rf"|{_WEEKDAY})|end\s+of\s+(?:the\s+)?(?:day|week|sprint|month)|{_WEEKDAY}|q[1-4]"
    r"|\d{1,2}(?::\d\d)?\s*(?:am|pm)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"\.?\s+\d{1,2})\b",
    re.I,
)


#: "1. alert on archive_command failures > 5m — @olu", "• … (<@U1>)": a list item signed with
#: whose item it is. Only a list item: a message signed so is chat ("see thread above - @raj").
_SIGNED = re.compile(rf"(?:\s[—–-]+|[—–]+|\()\s*({_MENTION})\s*\)?\s*$")


def signed_by(text: str) -> str | None:
    """The person a message is signed with at its end ("… — @olu", "… (<@U1>)"), if any."""
    signed = _SIGNED.search(text)
    return signed.group(1) if signed else None


def _asks_work_of(text: str) -> bool:
    """Whether a message asks a named person for work with a due date (an action item): "by
    thursday", "by EOD", "by next week"; not "sort by saturation", "filter by this label"."""
    return bool(_REQUEST.match(text)) and bool(_DUE.search(text))


@dataclass(frozen=True)
class Statement:
    kind: StatementKind
    text: str  # the message without a leading label
    owner: str | None = None  # "Bob" or "<@U1>"; None when no owner is named


# How chat dresses a line up: a list marker ("• ", "- ", "2. ", "b) "), emphasis (*bold*,
# _italic_, ~struck~) and emoji shortcodes (":white_check_mark:"). None of it is what the line
# says: "• *Decision:* roll back" decides as "Decision: roll back" does.
_LIST_MARKER = re.compile(r"^\s*(?:[•◦▪‣·*\-–—]|\d{1,2}[.)]|[a-h][.)])\s+")
# A pair of markers around words ("*Status: mitigated*"), never one alone ("~/.kube", "p99 ~3s",
# "*.example.com") nor markers inside a word ("__init__.py", "_JAVA_OPTIONS").
# Emphasis spans at most a few hundred characters (bounded: an unclosed "*" per word is read in
# one pass, not once per later character).
_EMPHASIS = re.compile(r"(?<![\w*_~])([*_~])(?![*_~\s])(.{1,300}?)(?<![*_~\s])\1(?![\w*_~])")
# ":pray:" standing alone, never a clock time ("10:05:30") nor a logger ("ERROR:root:").
_EMOJI = re.compile(r"(?<![\w:]):[a-z][a-z0-9_+\-]{1,39}:(?![\w:])")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+\1", re.S)


def unmarked(text: str) -> str:
    """The words of a chat message without list markers, emphasis and emoji, line by line
    (code spans and fenced blocks kept as written): what it says, for reading its kind and
    quoting it in a roll-up."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if fenced or line.lstrip().startswith("```"):
            fenced ^= line.count("```") % 2 == 1
            out.append(line.rstrip())
            continue
        out.append(_unmarked_line(line))
    return "\n".join(x for x in out if x.strip())


def _unmarked_line(line: str) -> str:
    line = _LIST_MARKER.sub("", line, count=1)
    parts, at = [], 0
    for span in _CODE_SPAN.finditer(line):
        parts += [_plain(line[at : span.start()]), span.group(0)]
        at = span.end()
    parts.append(_plain(line[at:]))
    return " ".join("".join(parts).split())


def _plain(words: str) -> str:
    return _EMOJI.sub(" ", _EMPHASIS.sub(r"\2", words))


#: A list's heading: a short line naming what follows ("Postmortem follow-ups", "Next steps").
_HEADING = re.compile(
    r"^[^\w-]*(?:[\w-]+\s+){0,2}(?:action[ -]?items?|follow[ -]?ups?|to-?dos?|next steps)\W*$",
    re.I,
)


#: An unticked checklist box opening a line ("[ ] write the postmortem", "- [ ] …").
_OPEN_BOX = re.compile(r"^\s*\[ ?\]\s+")


def classify(text: str, *, author: str | None = None) -> Statement:
    """The statement a message makes; its label (if any) decides, else the strongest cue. Read
    without list markers, emphasis and emoji (`unmarked`)."""
    flat = unmarked(text) or text.strip()
    kind: StatementKind | None = None
    label = _LABEL.match(flat)
    if label and not flat[label.end() :].strip():
        kind = "note"  # "Action items:" heads a list; it is no item itself
    elif label:
        said = label.group("label").lower()
        kind = next(k for k, p in _LABELS if re.fullmatch(p, said, re.I))
        flat = flat[label.end() :].strip() or flat
    if kind is None and _HEADING.match(flat):
        kind = "note"  # "*Postmortem follow-ups*" heads a list; it is no item itself
    if kind is None and (box := _OPEN_BOX.match(flat)):
        kind = "action"  # "[ ] @kim write the postmortem": a to-do not yet ticked
        flat = flat[box.end() :].strip() or flat
    if kind is None and _ITEM_ID.match(flat):
        kind = "action"
        if bare := _bare_item(flat):  # "AI: …" has no number to keep: the label goes
            flat = flat[bare.end() :].strip() or flat
    if kind is None and _asks_work_of(flat):
        kind = "action"  # "@chen can you add a circuit breaker? by thursday": owed by chen
    if kind is None and flat.rstrip("*_` ").endswith("?"):
        kind = "note"  # a question asks; it does not state
    if kind is None and _handover(flat):
        # "handing off AI-3 to Tom", "ownership of AI-1 moves to Sam", "Ana is taking AI-2",
        # "@sam please take AI-1", "hand off AI-1 to me": an item given to someone corrects
        # who owned it
        kind = "correction"
    if kind is None:
        # "did the rollback help? fsync p99 now 12ms. yes": what it asks is no cue of what it
        # states (the answer to it, here, a plain report).
        stated = without_questions(flat)
        kind = _cue_kind(stated)
        later = _later_label(flat) or _later_label(unmarked(_emoji_as_break(text)))
        if later is not None and _cue_kind(without_questions(later[1])) == "note":
            # "Lag is back under 1k. Status: mitigated.": what comes before the label states
            # nothing itself, so the label says what the message states ("scratch that, not
            # v41. Fix: roll back to v40" stays a correction).
            kind = later[0]
        if kind == "decision" and _AGREEMENT.match(flat):
            kind = "note"  # "agreed", "ok, approved!": a reply that agrees, not what was decided
        if kind == "action" and _ASKS_TO_HEAR.search(flat) and not names_an_owner(flat):
            kind = "note"  # "ping me when AI-1 is merged" asks to hear of an item, is no new one
        if kind == "note" and _LIST_MARKER.match(text) and signed_by(flat):
            kind = "action"  # "1. alert on archive_command failures > 5m — @olu": olu's item
    assert kind is not None
    owner = _owner(flat, author) if kind in ("action", "correction") else None
    return Statement(kind, flat, owner)


_SENTENCE_BREAK = re.compile(r"(?<=[.!?\n])\s+")


#: A label opening a later sentence: its separator a colon or a spaced dash ("Fix-forward PR is
#: up" and "Status-page updated" are words, not labels).
_LATER_LABEL = re.compile(rf"^\s*[*_`]*(?P<label>{_LABEL_WORDS})[*_`]*\s*(?::|\s[\-–—])\s*", re.I)


def _emoji_as_break(text: str) -> str:
    """`text` with each emoji between words read as the end of a sentence: chat writes
    "500s gone :white_check_mark: status: mitigated" where prose has a full stop."""
    return _EMOJI_BETWEEN.sub(". ", text)


_EMOJI_BETWEEN = re.compile(rf"(?<=\w)\s*{_EMOJI.pattern}\s+(?=\w)")


def _later_label(text: str) -> tuple[StatementKind, str] | None:
    """The kind a label opening a later sentence gives the message ("Lag is back under 1k.
    Status: mitigated."), with what the message says before it; None when no later sentence
    opens with one that labels something (a label ending the message heads nothing)."""
    at = 0
    for sentence in _SENTENCE_BREAK.split(text)[1:]:
        at = text.find(sentence, at + 1)
        label = _LATER_LABEL.match(sentence)
        if label and sentence[label.end() :].strip():
            said = label.group("label").lower()
            kind = next(k for k, p in _LABELS if re.fullmatch(p, said, re.I))
            return kind, text[:at]
    return None


def _cue_kind(text: str) -> StatementKind:
    """The kind the strongest cue in `text` names ("note" with none)."""
    return next((k for k, pattern in _CUES if pattern.search(text)), "note")


LABEL_QUESTION_WORDS = 2  # "root cause? …", "mitigated? yes": a label asked, then answered


def asks(text: str) -> bool:
    """Whether a sentence of `text` asks something (a label asked and answered in place, "root
    cause? 3.9.0 leaks", asks nothing)."""
    return any(
        piece.rstrip().endswith("?") and len(piece.split()) > LABEL_QUESTION_WORDS
        for piece in _SENTENCE_BREAK.split(text)
    )


def without_questions(text: str) -> str:
    """`text` without the sentences that ask ("did it help? p99 is 12ms" -> "p99 is 12ms"); a
    label asked and answered in place ("root cause? 3.9.0 leaks") keeps its label."""
    return " ".join(
        piece
        for piece in _SENTENCE_BREAK.split(text)
        if not piece.rstrip().endswith("?") or len(piece.split()) <= LABEL_QUESTION_WORDS
    ).strip()


#: "that's the root cause imo", "this is the fix": a sentence that only names what the one
#: before it is. It carries the kind's cue; the sentence before it carries what was said.
_POINTS_BACK = re.compile(
    r"^\W*(?:(?:so|ok(?:ay)?|yeah|yep|and|yes)\W+)*(?:that|this|which|it)"
    r"(?:'?s|\s+is|\s+was|\s+(?:must|might|could|would|should|will)\s+be|\s+seems?\s+(?:to\s+be|like)"
    r"|\s+looks?\s+like)\s+"
    r"(?:(?:our|the|a|an|probably|likely|most likely|definitely|def|prob|clearly|really|actual"
    r"|real|main|whole)\s+)*"
    r"(?:root[ -]?cause|rca|culprit|cause|fix|problem|issue|trigger|reason|why|smoking gun|bug"
    r"|mitigation|workaround|plan|decision)"
    r"(?:\W+(?:imo|imho|i think|i guess|i bet|i reckon|for sure|tbh|fwiw|here|then|right there"
    r"|of (?:this|it|the (?:incident|outage|issue|lag|errors?))|(?:all )?along))*\W*$",
    re.I,
)


def points_back(sentence: str) -> bool:
    """Whether a sentence only says what the one before it is ("thats the root cause imo")."""
    return len(sentence) <= MAX_FIELD_PIECE and bool(_POINTS_BACK.match(unmarked(sentence)))


# "scratch that, …", "correction: …", "I was wrong -": how a correction begins, not what it says.
_CORRECTION_OPENING = re.compile(
    r"^\s*(?:[*_`]*(?:scratch that|correction|i was wrong|ignore (?:that|my last)"
    r"|update to the above|(?:(?:ok|okay|hmm|wait|sorry|no)[,.!]?\s+)?actually"
    r"|nvm|never ?mind|my bad|oops|whoops|typo|make that|i meant|meant to say)\b[*_`]*"
    r"[\s,:;.!\-–—]*)+",
    re.I,
)


def without_correction_cue(text: str) -> str:
    """A correction's words without how it opens ("scratch that, Dan owns the CI check" ->
    "Dan owns the CI check"): what is true now. Text that is only the cue is kept."""
    return _CORRECTION_OPENING.sub("", text, count=1).strip() or text


def list_marker(line: str) -> str:
    """The list marker a line opens with ("1. ", "• "), or ""."""
    found = _LIST_MARKER.match(line)
    return found.group(0) if found else ""


def is_heading(text: str) -> bool:
    """Whether the text only heads a list, set out as a heading ("Follow-ups:", "*Postmortem
    follow-ups* :memo:"): it says nothing on its own, so it never answers. "no open action
    items" says something."""
    flat = unmarked(text) or text.strip()
    label = _LABEL.match(flat)
    if label is not None and not flat[label.end() :].strip():
        return True
    set_out = text.strip().startswith(("*", "#", "_")) or flat.rstrip().endswith(":")
    return set_out and bool(_HEADING.match(flat))


def names_an_owner(text: str) -> bool:
    """Whether the text says who owns something ("Dan owns the CI check", "I'll take it")."""
    return _handover(text) is not None or any(p.search(text) for p in (_OWNER, _MINE))


def handed_over_keys(text: str) -> set[str]:
    """The item keys the text's handover wording gives ("hand AI-1 over to @joe, AI-3 stays
    with @kai" gives AI-1 only), lower-cased as `item_references` reads them."""
    handed = _handover(text)
    return item_references(handed.group(0), any_case=True) if handed else set()


def hands_over(text: str) -> bool:
    """Whether the text is worded as giving an item to someone ("handing the forecast alert over
    to @mia", "AI-1 -> @ana"), not as saying who owns what ("Dan owns the CI check")."""
    return _handover(text) is not None


def _bare_item(text: str) -> re.Match[str] | None:
    """A leading bare "AI:" that labels an action item (not "AI: do we…?", a question)."""
    return _BARE_ITEM.match(text) if _ITEM_ID.match(text) else None


def strip_label(text: str) -> str:
    """`text` without a leading "decision:"-style label (repeated labels too), nor a bare
    "AI:" (an action item's label when it has no number to be referred to by), read without
    list marker, emphasis and emoji (`unmarked`): "*Status: mitigated* 11:25 :pray:" is
    "mitigated 11:25"; "- [ ] write the postmortem" is "write the postmortem"."""
    flat = unmarked(text) or text.strip()
    while (label := _LABEL.match(flat) or _bare_item(flat) or _OPEN_BOX.match(flat)) and flat[
        label.end() :
    ].strip():
        flat = flat[label.end() :].strip()
    return flat


def labelled_part(text: str) -> str:
    """What a message says under its label, wherever the label opens a sentence: "Lag is back
    under 1k. Status: mitigated." says "mitigated." as its status; else `strip_label`."""
    flat = unmarked(text) or text.strip()
    if not _LABEL.match(flat) and (later := _later_label(flat)) is not None:
        return strip_label(flat[len(later[1]) :])
    return strip_label(flat)


_MINE = re.compile(r"\bis (?:now )?(?:mine|on me)\b", re.I)

#: A reply that takes a piece of work on: "sure, I'll take the postmortem", "I can own that".
_CLAIMS = re.compile(
    r"^\W*(?:(?:sure|ok(?:ay)?|yes|yep|yeah|fine|np|no problem|ack|roger|will do|got it)\W+)*"
    r"(?:i'?ll|i will|i can|let me)\s+(?:take|own|pick up|grab|do|handle)\s+(?:the|that|this|it)\b",
    re.I,
)


def claims_work(text: str) -> bool:
    """Whether a message opens by taking a piece of work on for its author: said after an
    item someone else owned, it hands that item over."""
    return bool(_CLAIMS.search(unmarked(text) or text))


def _owner(text: str, author: str | None) -> str | None:
    if _MINE.search(text):
        return author  # "AI-3 is on me now": not "AI-3", the name before "is on"
    if (asked := _REQUEST.match(text)) and _DUE.search(text):
        return asked.group("who").lstrip("@")  # "hey @olu could you file … by friday": olu
    if handed := _handover(text):  # "handing off AI-3 to Tom": Tom, not who hands it
        name = next(g for g in handed.groups() if g)
        # "… to @tom." ends a sentence: the full stop is no part of the name
        return author if name.lower() == "me" else name.lstrip("@").rstrip(".")
    match = _OWNER.search(text)
    if match is None:
        return None
    if match.group("self"):
        return author
    name = match.group("name") or match.group("name2") or match.group("name3")
    name = name or match.group("name4") or match.group("name5")
    return name.lstrip("@") if name else None


_FENCE = re.compile(r"^\s*```")


def statement_parts(text: str) -> list[str]:
    """The statements a message makes, each as written less its list marker (`parts_of`)."""
    return [said for said, _ in parts_of(text)]


def statements_of(text: str) -> list[tuple[str, StatementKind]]:
    """Each statement a message makes (`statement_parts`) with its kind, read as written: a list
    item's marker says it is one ("1. alert on … — @olu" is olu's action item)."""
    return [(said, classify(written).kind) for said, written in parts_of(text)]


def parts_of(text: str) -> list[tuple[str, str]]:
    """The statements a message makes, in order, each as written less its list marker. A
    structured message — a list, or lines that open with a label ("*Update 10:05*", "• Cause:
    …", "• Decision: …"; "Follow-ups", "1. AI-1 … — @priya", "2. AI-2 …") — states each of its
    statement lines on its own, and the talk between them where it stands; a field line
    ("Owner: @bob", "ETA 10m") stays with the line before it, and a code block too. Any other
    message is one statement, whole: a single line, prose, code, talk, and a list that is put
    up for discussion ("Options:", "… thoughts?")."""
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if fenced or _FENCE.match(line):
            if _FENCE.match(line):
                fenced = not fenced
            if lines:
                lines[-1] = f"{lines[-1]}\n{line}"
                continue
        if line.strip():
            lines.append(line)
    whole = [(text.strip(), text.strip())]
    if len(lines) == 1:  # (a line and its code block included: kept as written)
        return [(said, said) for said in _labelled_sentences(lines[0])]
    listed = sum(bool(_LIST_MARKER.match(x) or _LABEL.match(unmarked(x))) for x in lines)
    if listed < 2 or _PUT_UP.search(unmarked(text)):
        return whole
    parts: list[tuple[bool, str, str]] = []  # (states something, text, as written)
    for line in lines:
        said = _LIST_MARKER.sub("", line, count=1).strip()
        if parts and finishes_sentence(unmarked(line)):
            states, before, written = parts[-1]
            parts[-1] = (states, f"{before}\n{said}", f"{written}\n{line}")
        elif classify(line).kind != "note":
            parts.append((True, said, line))
        elif parts and not parts[-1][0]:
            parts[-1] = (False, f"{parts[-1][1]}\n{said}", f"{parts[-1][2]}\n{line}")
        else:
            parts.append((False, said, line))
    if not any(states for states, _, _ in parts):
        return whole
    return [(said, written) for _, said, written in parts]


def _labelled_sentences(line: str) -> list[str]:
    """A one-line message that opens with a label states each sentence of another kind on its
    own: "status: resolved 10:31. postmortem owner: olu" is a status and an action item. A
    field ("owner olu") or a sentence that only says what the one before is stays with it."""
    if not _LABEL.match(unmarked(line)) or "`" in line:
        return [line.strip()]  # (code is kept as written, whatever its full stops)
    pieces = _KEPT_BREAK.split(line.strip())
    parts: list[tuple[StatementKind, list[str]]] = []  # (kind, its pieces and the gaps between)
    for at in range(0, len(pieces), 2):
        piece = pieces[at]
        kind = classify(piece).kind
        if parts and (
            kind in ("note", parts[-1][0]) or finishes_sentence(piece) or points_back(piece)
        ):
            parts[-1][1].extend((pieces[at - 1], piece))
        else:
            parts.append((kind, [piece]))
    return ["".join(said) for _, said in parts]


_KEPT_BREAK = re.compile(r"(?<=[.!?])(\s+)")  # a sentence break, its whitespace kept


# A list offered for discussion, not a record of what was decided or done.
_PUT_UP = re.compile(
    r"^\W*(?:options?|ideas?|proposals?|suggestions?|proposed|candidates?|(?:the )?runbook says)\b"
    r"|\?\W*$",
    re.I,
)
