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
from functools import lru_cache

from memory.recall.clauses import clauses
from memory.text import stems

#: "What can I tell customers?", "what do we tell support?": where the incident stands, in the
#: team's own words (no runbook knows it).
_TELL_OTHERS = (
    r"\bwhat (?:can|should|do|shall) (?:i|we) (?:tell|say to|send|update)\s+(?:the\s+)?"
    r"(?:customers?|users?|clients?|support|execs?|stakeholders|leadership|management)\b"
    r"|\bcan (?:i|we) (?:tell|update) (?:the\s+)?(?:customers?|users?|clients?|support)\b"
)

_TELLS_OTHERS = re.compile(_TELL_OTHERS, re.I)
#: What a question about telling others says around it without naming a subject ("it's fixed",
#: "right now", "about it", "about the incident").
_TELL_FILLER = frozenset(
    stems(
        "fixed resolved yet now right incident outage it this about update status okay ok eta "
        "they asking please pls"
    )
)
#: Words that say a question is about the incident, whatever service it names.
_ABOUT_THE_INCIDENT = frozenset(
    stems(
        "outage outages incident down downtime errors error failures failing latency slow "
        "slowness degraded degradation issue issues problem problems impact"
    )
)
_AN_ERROR = re.compile(r"\b(?:[45]\d\d|[45]xx)s?\b|\bsev ?\d\b", re.I)

_KINDS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("decision",), re.compile(r"\b(?:decid\w*|decisions?|agreed|settled on)\b", re.I)),
    (
        ("root_cause",),
        re.compile(
            r"\b(?:root[ -]?causes?|what caused|the cause|why (?:did|was|were|had)|rca)\b"
            # "which version of cart-svc broke it?", "what deploy triggered the failover?": a
            # which/what question whose verb asks what caused something, with what it did to as
            # the question ends. Not "which pods broke?" (what failed), "who triggered the
            # rollback?" (a person) or "it broke after …, why?". Bounded and possessive: linear.
            r"|\b(?:which|what)\b[^?\n]{0,60}?\s(?P<verb>broke|triggered|caused)\s++"
            r"(?!(?:first|last|down|out|off|up)\b)(?:[\w.-]++\s*+){1,5}?"
            r"(?:(?:last time|the time before|again|yesterday|today|tonight|this morning"
            r"|(?:on|last) \w+day|in the (?:last|previous) (?:incident|outage))\s*+)?+"
            r"(?:,\s*+do (?:we|you|they) know\s*+)?+\?*+\s*+$"
            # "RC?" (in capitals: "rc2", "RC-1", "the RC build" are a release candidate)
            r"|(?-i:\bRC\b)(?![-\d]|\s+(?:build|cut|release|candidate|branch|tag|\d))"
            # "what's the rc?", "hey, whats the rc for the lag": chat's lower case, asked as
            # "what's the rc" ("is the rc out?", "did we ship the rc?" ask about a release
            # candidate), or "rc?" alone
            r"|\bwhat(?:'s|’s|s| is| was)\s++(?:the\s++|our\s++)?rc"
            r"(?=\s*+(?:\?|$|(?:for|of|on|here|then)\b))"
            r"|^\W*+rc\s*+\?++\W*+$",
            re.I,
        ),
    ),
    (
        ("action",),
        re.compile(
            r"\b(?:action items?|follow[- ]?ups?|to-?dos?"
            r"|who (?:owns|owned|will do)|who(?:'s|’s|s| is) (?:doing|taking|owning)"
            # "who is on the hook for the rebuild lock work?", "who's handling the rollback?"
            # ("who is responsible for the outage?" asks whose fault, not whose item)
            r"|who(?:'s|’s|s| is| was| will be)? (?:on the hook|handling|driving|assigned))\b",
            re.I,
        ),
    ),
    (("mitigation",), re.compile(r"\b(?:mitigat\w*|workarounds?)\b", re.I)),
    (("status",), re.compile(r"\b(?:status|where (?:are|do) we stand)\b", re.I)),
    # What was done about it: the mitigations, and the decisions that chose them.
    (
        ("mitigation", "decision"),
        re.compile(
            r"\bwhat (?:did|had|have) (?:we|you|they) (?:do|done|try|tried)\b"
            r"|\bhow (?:did|had|have) (?:we|you|they) (?:fix|fixed|resolve|resolved|solve|solved"
            r"|handle|handled|recover|recovered)\b"
            r"|\bwhat (?:fixed|solved|resolved|worked|helped)\b"
            # "what was the fix for the replica lag?" (not "what is the fix": a procedure)
            r"|\bwhat (?:was|were) (?:the|our) (?:fix|fixes|resolution|remedy|workaround)\b"
            r"|\bhow (?:was|were) (?:it|they|this|that|the \w+) (?:fixed|resolved|solved)\b",
            re.I,
        ),
    ),
)
_EARLIER = re.compile(
    r"\blast time\b|\btime before\b|\bbefore this (?:incident|one|outage)\b"
    r"|\b(?:previous|past|earlier|prior|last|other|older) (?:incidents?|outages?|times?)\b",
    re.I,
)


#: The words that name a kind, as `respelled` restores them from a slip of the keyboard.
_KIND_WORDS = frozenset(
    [
        "cause",
        "causes",
        "caused",
        "decision",
        "decisions",
        "decided",
        "decide",
        "mitigate",
        "mitigation",
        "mitigations",
        "mitigated",
        "action",
        "actions",
        "status",
        "workaround",
        "workarounds",
        "owner",
        "owns",
        "followup",
    ]
)
_WORD = re.compile(r"[A-Za-z]{4,}")


def _slip_of(word: str, meant: str) -> bool:
    """Whether `word` is `meant` with two neighbouring letters swapped ("casue"), or, for a
    long word, with one letter left out ("mitgation"): the slips that make no other word."""
    if len(word) == len(meant):
        diff = [i for i, (a, b) in enumerate(zip(word, meant, strict=True)) if a != b]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and (word[diff[0]], word[diff[1]]) == (meant[diff[1]], meant[diff[0]])
        )
    if len(meant) >= 7 and len(word) == len(meant) - 1:
        return any(meant[:i] + meant[i + 1 :] == word for i in range(len(meant)))
    return False


@lru_cache(maxsize=512)
def respelled(question: str) -> str:
    """The question with kind words mistyped by one slip restored ("root casue" -> "root
    cause"), so a typo neither hides the kind asked for nor counts as a topic word."""

    def fix(found: re.Match[str]) -> str:
        word = found.group(0).lower()
        if word in _KIND_WORDS:
            return found.group(0)
        return next((k for k in _KIND_WORDS_IN_ORDER if _slip_of(word, k)), found.group(0))

    return _WORD.sub(fix, question)


_KIND_WORDS_IN_ORDER = tuple(sorted(_KIND_WORDS))


def asked_kinds(question: str) -> tuple[str, ...]:
    """The note kinds a question asks for, if its wording names any (else empty)."""
    question = respelled(question)
    found = next((kinds for kinds, pattern in _KINDS if pattern.search(question)), ())
    return found or (("status",) if asks_what_to_tell(question) else ())


#: What customers or execs ask of an incident: whether they are hit ("are orders lost?",
#: "were cards charged twice?", "is checkout back?").
_THEY_ASK = re.compile(
    r"^\W*(?:are|is|was|were|did|do|does|has|have|will|can)\b[^?]{0,80}?"
    r"\b(?:lost|losing|affected|impacted|charged|delayed|down|safe|missing|dropped|duplicated"
    r"|broken|working|back|up|fixed|resolved)\b",
    re.I,
)


def asks_what_to_tell(question: str) -> bool:
    """Whether the question asks what to tell customers, support or execs about the incident,
    naming nothing else ("what do we tell leadership about Q3 hiring?" is about hiring)."""
    parts = clauses(question)
    if len(parts) > 1:
        # "what should I tell customers? are orders lost?": the other question is what they
        # will ask, and the incident's status answers both; "… how do I roll back?" is not.
        telling = [part for part in parts if asks_what_to_tell(part)]
        return bool(telling) and all(
            _THEY_ASK.match(part) is not None for part in parts if part not in telling
        )
    told = _TELLS_OTHERS.search(question)
    if told is None:
        return False
    rest = f"{question[: told.start()]} {question[told.end() :]}"
    words = {w for w in stems(rest) if not w.isdigit()}
    # "… about the checkout errors?", "… about the 502s?", "… about sev1?": the incident itself
    about = bool(words & _ABOUT_THE_INCIDENT) or bool(_AN_ERROR.search(rest))
    return about or not words - _TELL_FILLER


def about_an_earlier_incident(question: str) -> bool:
    """Whether the question points at an earlier incident ("last time", "the previous outage")."""
    return bool(_EARLIER.search(question))


#: Words that name an outage without saying what it was ("how long were we down?").
OUTAGE_WORDS = stems(
    "down downtime broken broke issue issues problem problems failure failures error errors "
    "happen happened happening slow slowness"
)

# What names the kind or points back says nothing about the subject of the statement asked for.
_FRAME = stems(
    "decide decided decides deciding decision decisions agreed agree settled root cause causes "
    "caused action actions item items follow up followup todo todos mitigate mitigated "
    "mitigation mitigations workaround workarounds last time times before previous past "
    "earlier prior other older incident incidents outage outages one ones did do we our us "
    "own owns owned owner owners doing taking took current currently latest far already"
)
# "Which version …?", "which release …?": what the answer is (a version), not its subject.
_WHICH_THING = re.compile(
    r"\b(?:which|what)\s+(?:version|release|build|commit|deploy|deployment|change|image|tag)s?"
    r"(?:\s+of)?\b",
    re.I,
)


def without_frame(question: str) -> str:
    """The question without the spans that name the kind or point back ("how did we fix",
    "last time", "did we try", "root cause"): what it is about, as text."""
    framed = _ASKING_VERB.sub(" ", _OPEN_ITEMS.sub(" ", respelled(question)))
    for _, pattern in _KINDS:
        framed = pattern.sub(_frame_out, framed)
    framed = _WHICH_THING.sub(" ", framed)
    return " ".join(_EARLIER.sub(" ", framed).split())


def _frame_out(found: re.Match[str]) -> str:
    """What a kind's match leaves of the question: nothing, or all but the verb when the match
    spans a whole question ("what deploy triggered the failover?" keeps its subject)."""
    if "verb" not in found.re.groupindex or found.group("verb") is None:
        return " "
    start, end = found.span("verb")
    text = found.group(0)
    return f" {text[: start - found.start()]} {text[end - found.start() :]} "


def without_pointer_back(question: str) -> str:
    """The question without the words that point at an earlier incident ("last time"): a past
    incident's notes do not say them, so they are no words an answer should contain."""
    return " ".join(_EARLIER.sub(" ", question).split())


def topic_words(question: str) -> set[str]:
    """The question's subject words: the stems of `without_frame`, so "the resolver" keeps
    its word."""
    return {w for w in stems(without_frame(question)) if not w.isdigit()} - _FRAME


# "open action items", "outstanding follow-ups": which items, not what they are about.
_OPEN_ITEMS = re.compile(
    r"\b(?:open|outstanding|pending|remaining|unfinished)\s+(?=(?:action|follow|to-?do|items?"
    r"|tasks?)\b)",
    re.I,
)
# "what did we try?", "how did we fix it?": the verb that asks what was done. A verb that says
# what the question is about stays ("when did we fail over?", "did we restart the pods?").
_ASKING_VERB = re.compile(
    r"\b(?:did|have|had|do) (?:we|you|they|i) (?:do|done|doing|try|tried|decide|decided|say"
    r"|said|agree|agreed|settle|settled|end up|ended up|fix|fixed|handle|handled|resolve|resolved"
    r"|solve|solved|mitigate|mitigated|find|found|learn|learned|conclude|concluded|choose"
    r"|chose|pick|picked|go with|went with|use|used|check|checked|change|changed"
    r"|look at|looked at|look into|looked into|investigate|investigated|set)\b",
    re.I,
)
_UNMARKED_CONTRACTION = re.compile(r"\b(who|what|where)s\s", re.I)
_CONTRACTIONS = (("'s ", " is "), ("’s ", " is "), ("'re ", " are "), ("’re ", " are "))
#: A question word, then (past its subject) the first helper verb: the tense it asks in.
_WH = re.compile(r"\b(?:who|whom|whose|what|when|which|why|how(?: long| many| much)?)\b", re.I)
_HELPER = re.compile(
    r"\b(did|was|were|had|has|have|didn['’]?t|wasn['’]?t|weren['’]?t|hadn['’]?t|is|are|do"
    r"|does|will|should|shall|can|could|must|would|need to|how to)(?!\w)",
    re.I,
)
#: "why didn't we roll back?" asks what happened; "why haven't the pods recovered?" asks
#: about now (a present perfect negated is a state still holding), so only these negate.
_PAST_HELPERS = frozenset(
    {"did", "was", "were", "had", "has", "have"}
    | {f"{h}n{a}t" for h in ("did", "was", "were", "had") for a in ("'", "’", "")}
)
_PRESENT_STATE = frozenset({"is", "are"})
#: "who approved", "what caused", "what happened", "who said": a past verb right after it.
#: "which alert fired", "what pods crashed": one noun may stand between (never a helper verb).
_WH_PAST = re.compile(
    r"\b(?:who|what|which)\s+(?:(?!(?:is|are|do|does|did|should|can|could|will|would|to)\b)"
    r"[a-z]+\s+)?(?:(?!(?:need|feed|speed|seed|bleed|breed|exceed|proceed|succeed)\b)\w+ed"
    r"|said|took|made|broke|ran|went|came|told|found|wrote|saw|knew|fired)\b",
    re.I,
)
_AN_INCIDENT = re.compile(
    r"\b(?:from|of|in|for|during) (?:the|that|this|our) (?:[\w-]+ ){0,3}"
    r"(?:incident|outage|postmortem|post-mortem)\b",
    re.I,
)
_WHO_NOW = re.compile(r"\bwho (?:is|are)\b", re.I)
# Asking what happened, whatever verb follows: who owns or took it, how long ago.
_HAPPENED = re.compile(r"\bwho (?:owns|owned|took|decided|wrote|ran|made)\b|\bhow long ago\b", re.I)
_THERE_IS = re.compile(r"^\s*(?:is|are) there\b|\bany (?:runbook|docs?|way)\b", re.I)


def asks_what_happened(question: str) -> bool:
    """Whether the question asks what the team said or did, not how to do something: who owns
    or did it, when it happened, or a kind of statement said ("what did we decide?", "what's
    the root cause?", "what did we do last time?"). Runbooks describe procedures; they do not
    know any of that. Read from the first helper verb after the question word: did / was /
    has… ask what happened; should / can / do ask how ("what should we do?", "how do we fix
    it?", "who should I escalate to?"); is / are ask what happened only about a person or a
    kind of statement ("who's on call?", "what is the root cause?")."""
    text = f" {question} "
    for short, long in _CONTRACTIONS:
        text = text.replace(short, long)
    text = _UNMARKED_CONTRACTION.sub(lambda m: f"{m.group(1)} is ", text)  # "whos", "whats"
    if _THERE_IS.search(text):
        return False
    if _WH_PAST.search(text) or _HAPPENED.search(text) or asks_what_to_tell(question):
        return True
    wh = _WH.search(text)
    helper = _HELPER.search(text, wh.end() if wh else 0) or _HELPER.search(text)
    verb = helper.group(1).lower() if helper else ""
    if verb in _PAST_HELPERS:
        return True
    if verb in _PRESENT_STATE:
        return bool(asked_kinds(text)) or bool(_WHO_NOW.search(text))
    if verb:
        return False  # do / should / can …: how to do it
    # No verb: "RC?", "decisions?", "open action items from the etcd incident?" ask for the
    # statements themselves (of this incident, an earlier one, or one named).
    return bool(asked_kinds(text)) and (
        about_an_earlier_incident(text) or not topic_words(text) or bool(_AN_INCIDENT.search(text))
    )
