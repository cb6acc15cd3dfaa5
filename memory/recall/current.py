"""Questions about a value as it stands now ("what's maxclients set to now?", "what pool size
is billing_db running with now?"), and which statements give their subject a value.

A setting changes during an incident ("bumped maxclients to 20000", then "maxclients back to
10000 at 09:55"), and an action item about it can be said later still ("add an alert at 80% of
maxclients"). Search ranks by shared words, so the answer to "now?" is often not the newest word
on the value: `Recall` leads with the newest statement in the incident that gives the subject a
value (`gives_value`), the item search found kept under it.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from memory.text import STOP_WORDS, stem

# The question opens by asking for a thing or an amount ("what", "which", "how many"), and says
# it wants it as it is now. "If it broke again now, would …" asks no value; "who owns it now?"
# is a handover, which corrections already answer.
_ASKS_VALUE = re.compile(
    r"^\W*(?:so\s+|and\s+|ok\s+)?(?:what(?:'s|’s|s)?|wat(?:'s|s)?|which"
    r"|how (?:much|many|big|large|high|long))\b",
    re.I,
)
_NOW = re.compile(
    r"\b(?:now|currently|current|at the moment|at present|these days|as of (?:now|today)"
    r"|rn|atm)\b",
    re.I,
)
# Chat asks it in a few words: "maxclients now?", "pool size rn?", "origin max replicas now?".
_TERSE = re.compile(r"^\W*[\w.-]+(?:\s+[\w.-]+){0,3}\s+(?:now|rn|atm)\s*\?+\W*$", re.I)
# The first part of a question that asks two things ("…now, and how did it get there?").
_FIRST_PART = re.compile(r",?\s+(?:and|but)\s+(?=(?:how|why|when|who|what|where|which)\b)", re.I)

# "who now?", "status now?", "eta now?": a person, a state or a time, never a setting's value.
_NOT_A_VALUE = re.compile(
    r"^\W*(?:who|whom|whose|why|when|where|how|status|eta|plan|next|anyone|anybody|us|we|it"
    r"|this|that|is|are|was|were|do|does|did|can|could|should|will|has|have|any)\b",
    re.I,
)

# Words that ask how a thing is set, not what it is: "what is X set to / running with / at".
_STATE_TEXT = (
    "set setting settings run running runs use using used configured configure value values "
    "now currently current level levels size rn atm wat whats ok"
)
_STATE_WORDS = frozenset(stem(w) for w in _STATE_TEXT.split())
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
# Words that may stand between a setting and its value: "maxclients back to 10000", "limit is
# now 2Gi", "pool_size = 20". Any other word ends the value's reach: "limit for 5m" is a window,
# not the limit, and "80% of maxclients" gives maxclients no value.
_LINK_TEXT = (
    "is are be to at of from back now still down up set stays remains goes went "
    "becomes became raised lowered bumped reduced increased changed moved "
    # a reading in chat: "lag draining ~40k/min", "queue sitting around 12k"
    "draining dropping falling climbing rising growing sitting hovering holding "
    "around about roughly approx"
)
_LINKS = frozenset(_LINK_TEXT.split())
#: Where a clause ends: a value past it is another thing's ("maxclients, bumped to 20000" and
#: "error rate back down, 0.3% now" go on past a comma).
_CLAUSE_END = re.compile(r";")
#: How many linking words may stand between a subject word and its value.
VALUE_REACH = 4


# "is the lag gone?", "are we still seeing 502s?", "has the backlog drained?": whether a thing
# still holds, which the newest word on it answers, not the first report that named it.
_HOLDS_TEXT = (
    "gone fixed resolved over back recovered cleared stable healthy normal drained done "
    "still stopped settled green ok working running up down fine flowing caught_up"
)
_HOLDS = tuple(w.replace("_", " ") for w in _HOLDS_TEXT.split())
_STATE_WORD = (
    "(?:"
    + "|".join(sorted((w.replace(" ", r"\s+") for w in _HOLDS), key=len, reverse=True))
    + r")\b"
    # "is it ok to restart?", "is anyone working on it?", "is the runbook up to date?": asks
    # leave, a person or a page, not how the thing stands
    r"(?!\s+(?:to|on|with|for)\b)"
)
_ASKS_STATE = re.compile(
    r"^\W*(?:so\s+|and\s+|ok(?:ay)?\s+)?(?:is|are|has|have)\s+(?:[\w.-]+\s+){0,5}?"
    + _STATE_WORD
    # chat drops the verb: "lag gone?", "still seeing 502s?", "any 502s still?"
    + r"|^\W*(?:[\w.-]+\s+){1,3}(?:gone|fixed|resolved|back|recovered|cleared|drained|stopped"
    r"|still)\s*\?+\W*$"
    r"|^\W*still\s+(?:seeing|getting|having|failing|erroring|down)\b"
    # "any packet loss now?", "any 5xx on the edge still?"
    r"|^\W*any\s+(?![^?\n]{0,60}?\b(?:news|ideas?|updates?|eta|progress|luck|thoughts?|word"
    r"|plans?|workarounds?|fix(?:es)?|runbooks?|playbooks?|options?|volunteers?|takers?"
    r"|blockers?|questions?|action items?|more)\b)"
    r"(?:[\w.-]+\s+){1,5}?(?:now|still|anymore|atm|rn)\s*\?+\W*$"
    # "is pgbouncer in transaction mode now?", "are the replicas on v7.2.4 yet?": how a thing
    # stands now, whatever it is said to be
    # ("is there a fix yet?", "is it worth restarting now?" ask for a thing or leave, not a state)
    r"|^\W*(?:so\s+|and\s+)?(?:is|are)\s+(?!(?:there|it|this|that)\b)[^?]{1,80}?"
    r"\s(?:now|yet|currently|anymore|right\s+now|at\s+the\s+moment)\s*\?+\W*$",
    re.I,
)
# "have we done a failover before?", "is anyone on it?", "is it safe to fail over?": history, a
# person or leave, not a state.
_NOT_A_STATE = re.compile(
    r"\b(?:before|ever|last time|previously|anyone|anybody|someone|somebody|who"
    r"|(?:safe|ok|okay|fine|good|allowed)\s+to)\b",
    re.I,
)
# The words that ask for a state, and the talk around them: no part of what it is asked of.
_STATE_OF_TEXT = (
    "seeing see seen yet anymore any more happening again getting having failing erroring "
    "now currently moment"
)
_STATE_OF_WORDS = frozenset(stem(w) for w in " ".join([*_HOLDS, _STATE_OF_TEXT]).split())


def _first_part(question: str) -> str:
    """The part of a question that asks first ("what is X now" of "…, and how did it get
    there?"), its whitespace collapsed."""
    return _FIRST_PART.split(" ".join(question.split()), maxsplit=1)[0]


def _content_stems(text: str) -> set[str]:
    """The stems of `text`'s words that are no stop word."""
    return {stem(w) for w in _TOKEN.findall(text.lower()) if w not in STOP_WORDS}


def asks_current_state(question: str) -> bool:
    """Whether the question asks if a thing still holds ("is the lag gone?")."""
    first = _first_part(question)
    return bool(_ASKS_STATE.match(first)) and not _NOT_A_STATE.search(first)


def state_subject(question: str) -> set[str]:
    """The stems a state is asked of: "is the lag gone?" -> {"lag"}; "still seeing 502s?" ->
    {"502s"}."""
    return _content_stems(_first_part(question)) - _STATE_WORDS - _STATE_OF_WORDS


def names_subject(text: str, subject: set[str], *, known: AbstractSet[str] = frozenset()) -> bool:
    """Whether `text` names at least one subject word and, with those `known` from where it was
    said (the incident's title), at least half of them: "lag at 0" is on "the consumer lag" of
    the kafka lag incident; "rate limit now 500 rps" is not on "the redis memory limit"."""
    said = {stem(t) for t in _TOKEN.findall(text.lower())}
    named = subject & said
    return bool(named) and 2 * len(named | (subject & known)) >= len(subject)


def asks_current_value(question: str) -> bool:
    """Whether the question asks what something is now ("what's maxclients set to now?")."""
    first = _first_part(question)
    if _TERSE.match(first):
        return not _NOT_A_VALUE.search(first)
    return bool(_ASKS_VALUE.search(first)) and bool(_NOW.search(first))


def subject_of(question: str) -> set[str]:
    """The stems the value is asked of: the first part's content words, less those that only
    ask how it is set ("set", "running", "now")."""
    words = _content_stems(_first_part(question))
    return {w for w in words if not w[0].isdigit()} - _STATE_WORDS


def gives_value(text: str, subject: set[str], *, known: AbstractSet[str] = frozenset()) -> bool:
    """Whether `text` gives the subject a value: it names every subject word but those `known`
    from where it was said (the incident's title: "appointment-svc" in its own channel), and
    at least one, and a number follows one of them, at most `VALUE_REACH` linking words on
    ("maxclients back to 10000", "pool_size 20", "limit is 2Gi"). "rate limit now 500 rps" gives
    "redis memory limit" no value; "maxclients was 10000" is a past one."""
    if not subject:
        return False
    lowered = text.lower()
    named = subject & {stem(t) for t in _TOKEN.findall(lowered)}
    if not named or not (subject - known) <= named:
        return False
    links = _LINKS | subject | _STATE_WORDS  # "pool_size 20": the setting's name goes on
    # A value is said in the clause that names it: "error rate dropping; 5 pods restarted"
    # gives the error rate no value.
    for clause in _CLAUSE_END.split(lowered):
        tokens = _TOKEN.findall(clause)
        stems_ = [stem(t) for t in tokens]
        if any(
            word in named and _value_after(tokens, stems_, at + 1, links)
            for at, word in enumerate(stems_)
        ):
            return True
    return False


def _value_after(tokens: list[str], stems_: list[str], start: int, links: frozenset[str]) -> bool:
    """Whether a number comes at `start`, after at most `VALUE_REACH` linking words."""
    for token, word in zip(
        tokens[start : start + VALUE_REACH + 1],
        stems_[start : start + VALUE_REACH + 1],
        strict=True,
    ):
        if any(ch.isdigit() for ch in token):
            return True
        if token not in links and word not in links:
            return False
    return False


#: A reading of the service: a share, a latency or rate, or a count of what serves ("12% 5xx",
#: "p99 800ms", "1 replica only", "4/12 targets unhealthy"); "back in 5", "brb 30s" and a date
#: ("12/5") are none.
_READING = re.compile(
    r"(?<![\w.,])\d[\d.,]*+ ?(?:%|ms\b|rps\b|qps\b)"
    r"|\b(?:p\d\d|latency|lag)\s++(?:is\s++|at\s++)?~?\d[\d.,]*+ ?(?:s|sec|seconds|k)\b"
    r"|(?<![\w.,])\d++ (?:replicas?|pods?|nodes?|instances?|brokers?|shards?|targets?|hosts?"
    r"|workers?|errors?|5xxs?|4xxs?|requests? (?:fail|failing|failed|erroring))\b"
    r"|(?<![\w.,])\d[\d.,]*+ ?[km]? (?:(?:msgs?|messages|events|records) )?behind\b"
    r"|(?<![\w.,/])\d++/\d++ (?:\w+ )?(?:healthy|unhealthy|up|down|ready|failing|targets?|pods?"
    r"|nodes?|replicas?)\b",
    re.I,
)
#: How the service is, said in words: recovered, or still broken.
_STATE_SAID = re.compile(
    r"\b(?:recovered|restored|resolved|mitigated|healthy|green|stable|stopped|gone|normal"
    r"|baseline|back up|working again)\b"
    r"|\bstill\s++(?:\w+\s++)?(?:failing|erroring|degraded|down|broken|slow|seeing|timing out"
    r"|throwing|returning|red|high)\b"
    r"|\b(?:at|to|rate|errors?|5xxs?) 0\b|\bzero errors\b",
    re.I,
)


def reports_a_reading(text: str) -> bool:
    """Whether `text` says how the service is doing: a reading (a share, latency, rate or count
    of what serves) or its state in words (recovered, still failing): what "are we still
    degraded?" is answered by."""
    return _READING.search(text) is not None or _STATE_SAID.search(text) is not None
