"""What came of a change: "did the rollback help?" is answered by the reply that says so.

In incident chat the change and its effect are two messages, often by two people: "bumped the
cpu limit 2 -> 4", then, a few messages later, "no change, it's not cpu". A question about the
outcome shares its words with the change, rarely with the reply ("nope, it's back"), so search
finds the first and the floor drops the second. `asks_outcome` tells such a question; and
`reports_outcome` tells the reply that reports an effect (better, worse or none), read in the
same thread after the change.
"""

from __future__ import annotations

import re

from memory.text import stems

#: Notes after the change read for its outcome (an effect is reported within a few messages).
WINDOW = 8

#: Kinds a report of an effect is filed as: an action item or a decision that follows a change
#: ("AI-2 is live: … the retries made it worse") states what comes next, not what came of it.
REPORT_KINDS = frozenset({"note", "status", "mitigation", "correction"})

# A question about whether a change that was made worked: "did the rollback help?", "why
# didn't raising the limit fix it?", "has the restart helped?", "would disabling retries have
# been enough?" (what would have come of one), "what did switching off retries achieve?". Not
# advice: "does restarting help?", "would it help to page the db team?", "is there a known
# fix?", "does the vendor have a fix?" ask what to do; "how long did it take to work through
# the backlog?" and "how did the estimate of warehouse work change?" ask no outcome.
_OUTCOME_WORD = (
    r"(?:help(?:ed|s|ing)?|worked|work(?=\s*(?:[?!.,]|$))|fix(?:ed|es)?|solve[ds]?"
    r"|stop(?:ped|s)?|improve[ds]?|matter(?:ed|s)?|enough|effect|difference)\b"
    r"(?!\s+(?:through|out|on|with|for|from|at|in)\b)"
)
_ASKS = re.compile(
    r"^\s*(?:(?:did|has|have|was)(?:n'?t)?|why\s+(?:didn'?t|did\s+not|wasn'?t|couldn'?t"
    r"|hasn'?t|did)|how\s+(?:much\s+)?did)\b(?P<subject>[^?]*?)\b"
    + _OUTCOME_WORD
    + r"|^\s*would(?:n'?t)?\b(?P<would>[^?]*?)\bhave\b[^?]*?\b(?:helped|worked|fixed|solved"
    r"|stopped|been enough|made (?:a|any) difference)\b"
    r"|^\s*what\s+did\b(?P<achieved>[^?]*?)\bachieve",
    re.I,
)
# "a fix", "any difference", "the docs", "it … to page": a thing asked about, not a change made.
_NOT_A_CHANGE = re.compile(
    r"(?:\b(?:a|an|any|the|known|some|no)\s*$|\bthe docs?\b|^\s*there\b)", re.I
)

# A reply that reports an effect: none ("no change", "didn't help", "p99 still 3.8s",
# "unchanged", "it's back"), worse ("made it worse"), or better ("dropped from 61% to 38%",
# "errors are gone", "recovered", "that did it"). Not "still investigating", "the link doesn't
# work", "nope, not me": talk about the work, not what the change did.
_STILL = (
    r"failing|erroring|crashing|crashlooping|timing out|climbing|rising|growing|throttling"
    r"|flapping|spiking|happening|broken|down|high|elevated|degraded|slow|bad|red|pinned"
    r"|the same|there|at|~?\d"
)
_REPORTS = re.compile(
    r"\bno\s+(?:effect|change|difference|improvement)\b"
    r"|\b(?:didn'?t|did\s+not)\s+(?:help|work|change|fix|do\s+anything"
    r"|make\s+(?:a|any)\s+difference)\b"
    r"|\bnot\s+(?:helping|fixed|better|enough)\b"
    r"|\b(?:unchanged|worse|helped|recovered|recovering|improved|improving)\b"
    rf"|\bstill\s+(?:{_STILL})\b"
    r"|\b(?:p\d\d|errors?|latency|lag|5xx|cpu|memory|rps)\s+(?:is\s+|are\s+)?still\b"
    r"|\bsame\s+as\s+before\b|\bit'?s\s+back\b|\bcame\s+back\b|\bback\s+to\s+normal\b"
    r"|\b(?:dropped|fell|went\s+(?:down|up)|rose|climbed)\s+(?:from|to|by|back)\b"
    r"|\b(?:errors?|alerts?|5xx|lag|latency)\s+(?:are|is)\s+(?:gone|down|clearing|cleared)\b"
    r"|\bthat\s+(?:did\s+it|fixed\s+it|worked)\b|\bbought\s+(?:us\s+)?(?:about\s+)?\d"
    # "hit ratio back to 88%", "p99 back under 200ms": a measure returned (not "maxclients back
    # to 10000", a setting put back)
    r"|\bback\s+(?:to|under|below|above|at)\s+~?\d[\d.,]*\s*(?:%|ms\b|s\b|rps\b|qps\b)"
    # "5xx back to 0", "lag back under 1k": a measure named, back to a reading
    r"|\b(?:errors?|5xxs?|4xxs?|50\ds?|timeouts?|lag|latency|p\d\d|cpu|backlog|queue)"
    r"(?:\s+(?:rate|depth|count|ratio))?\s+(?:is\s+|are\s+)?back\s+(?:to|under|below|at)\s+~?\d"
    # ("cpu back to 4 cores", "queue back to 3 consumers": a setting put back)
    r"[\d.,]*+\s*+k?(?!\s*(?:cores?|replicas?|partitions?|consumers?|nodes?|pods?|instances?"
    r"|workers?|shards?|threads?|gi?b|mi?b)\b)",
    re.I,
)


#: Words that ask whether a change worked, not which change: no topic of the question.
OUTCOME_WORDS = frozenset(stems("help helped helps work worked fix fixed solve solved effect"))


def asks_outcome(question: str) -> bool:
    """Whether the question asks what came of a change made (did it help, why didn't it work),
    not whether something would help (advice)."""
    found = _ASKS.search(question)
    if found is None:
        return False
    subject = found.group("subject") or found.group("would") or found.group("achieved") or ""
    if found.group("would") is not None and re.match(r"\s*it\b", subject):
        return False  # "would it help to page the db team?": advice
    return _NOT_A_CHANGE.search(subject) is None


def reports_outcome(text: str) -> bool:
    """Whether a message reports an effect of what was done (a question reports none)."""
    return not text.rstrip().endswith("?") and bool(_REPORTS.search(text))
