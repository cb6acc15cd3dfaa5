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

#: Notes after the change read for its outcome (an effect is reported within a few messages).
WINDOW = 8

#: Kinds a report of an effect is filed as: an action item or a decision that follows a change
#: ("AI-2 is live: … the retries made it worse") states what comes next, not what came of it.
REPORT_KINDS = frozenset({"note", "status", "mitigation", "correction"})

# A yes/no or why question about whether something worked: "did the rollback help?", "why
# didn't raising the limit fix it?", "would disabling retries have been enough?", "what did
# switching off retries achieve?". "How long did it take to work through the backlog?" asks no
# outcome, nor "how did the estimate of warehouse work change?" ("work" there is a noun), nor
# "when did Maria go to the workshop?".
_ASKS = re.compile(
    r"^\s*(?:(?:did|does|do|would|will|could|has|have|is|was)(?:n'?t)?"
    r"|why\s+(?:didn'?t|did\s+not|doesn'?t|does\s+not|wasn'?t|isn'?t|couldn'?t|won'?t|wouldn'?t"
    r"|hasn'?t)|how\s+(?:much\s+)?did)\b"
    r"[^?]*?\b(?:help(?:ed|s|ing)?|worked|work(?=\s*(?:[?!.,]|$))|fix(?:ed|es)?|solve[ds]?"
    r"|stop(?:ped|s)?|improve[ds]?|matter(?:ed|s)?|enough|effect|difference)\b"
    r"(?!\s+(?:through|out|on|with|for|from|at|in)\b)"
    r"|^\s*what\s+did\b[^?]*\bachieve",
    re.I,
)

# A reply that reports an effect: none ("no change", "didn't help", "still 5xx", "unchanged",
# "nope, it's back"), worse ("made it worse"), or better ("dropped from 61% to 38%", "errors are
# gone", "recovered", "that did it").
_REPORTS = re.compile(
    r"\bno\s+(?:effect|change|difference|improvement|luck|dice)\b"
    r"|\b(?:didn'?t|did\s+not|doesn'?t|does\s+not|won'?t)\s+(?:help|work|change|fix|do\s+anything"
    r"|make\s+(?:a|any)\s+difference)\b"
    r"|\bnot\s+(?:helping|working|fixed|better|enough)\b"
    r"|\b(?:unchanged|nope|worse|helped|recovered|recovering|improved|improving)\b"
    r"|\bstill\s+(?:\w+ing|at|pinned|high|down|broken|the\s+same|bad|there|~?\d)"
    r"|\bsame\s+as\s+before\b|\bit'?s\s+back\b|\bcame\s+back\b|\bback\s+to\s+normal\b"
    r"|\b(?:dropped|fell|went\s+(?:down|up)|rose|climbed)\s+(?:from|to|by|back)\b"
    r"|\b(?:errors?|alerts?|5xx|lag|latency)\s+(?:are|is)\s+(?:gone|down|clearing|cleared)\b"
    r"|\bthat\s+(?:did\s+it|fixed\s+it|worked)\b|\bbought\s+(?:us\s+)?(?:about\s+)?\d",
    re.I,
)


def asks_outcome(question: str) -> bool:
    """Whether the question asks what came of a change (did it help, why didn't it work)."""
    return bool(_ASKS.search(question))


def reports_outcome(text: str) -> bool:
    """Whether a message reports an effect of what was done (a question reports none)."""
    return not text.rstrip().endswith("?") and bool(_REPORTS.search(text))
