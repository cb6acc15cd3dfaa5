"""What a question asks (fix, diagnose, meaning, impact, escalate, verify) and which kind of section
of a runbook answers it.

Both sides use general English operations vocabulary, not any corpus's text: a question's intent
comes from its phrasing, weighted towards the sentence that asks (people give context first, then
ask); a section's kind comes from its heading (teams name the same section Mitigation,
Remediation, Resolution or Fix) and, when the heading names none of them ("Runbook", "Critical"),
from its content: read-only commands and "check" verbs make a diagnosis section, changing
commands and "restart/scale/delete" verbs a fix. `knowledge.section_kinds` adds the embedder's
reading of headings this vocabulary misses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

Intent = Literal["fix", "diagnose", "meaning", "impact", "escalate", "verify"]
INTENTS: tuple[Intent, ...] = ("fix", "diagnose", "meaning", "impact", "escalate", "verify")


def _rx(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


#: (strong, weak) phrasings of each intent in a question. Strong ones name the intent outright.
_QUESTION: dict[Intent, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "fix": (
        _rx(
            r"fix\w*",
            r"mitigat\w*",
            r"remediat\w*",
            r"resolv\w*",
            r"repair\w*",
            r"workaround",
            r"what (?:do|should|can|must) (?:we|i|you) (?:need to )?(?:do|change|adjust|tune|set)",
            # What was done (last time) is what the fix section says to do now; "what did we
            # change?" is triage, not this.
            r"what (?:did|have) (?:we|you|they) (?:do|done|try|tried)",
            r"(?:wh?at|wut) now",
            r"wh?at (?:to )?do(?=\s*(?:[?!.,;]|$|now\b|next\b|here\b))",
            r"how (?:to )?(?:fix|solve|resolve|mitigate|recover|get rid)",
            # "how to clean", "how do we purge old logs": a verb that changes what is there
            r"how (?:(?:do|can|should) (?:we|i) |to )?(?:clean|clear|purge|prune|drain|empty"
            r"|remove|delete)\b",
            r"next steps?",
            r"wh?at(?:'s|’s|s| is) next\b(?!'s|\s+(?:week|month|quarter|year|sprint|release"
            r"|meeting|standup|stand-up|on the agenda|in line|in the queue|on call|on-call)\b)",
            r"get (?:\w+ ){0,3}back",
            r"get (?:\w+ ){0,3}(?:going|moving|working) again",
            r"(?:get|make) (?:it|them|this) \w+ing again",
            r"what steps (?:do|should|can|must) (?:we|i|you)",
            r"bring (?:\w+ ){0,3}back",
            r"make (?:it|them|this) (?:stop|go away|work)",
            r"stop (?:it|this|them) from",
            r"free up",
            r"reclaim",
            r"unblock\w*",
            r"solve\w*",
        ),
        _rx(
            r"recover\w*",
            r"make sure",
            r"restor\w*",
            r"clean ?up",
            r"roll ?back",
            r"restart\w*",
            r"scale (?:up|out|down)",
            r"resiz\w*",
            r"rais\w*",
            r"increas\w*",
            r"expand\w*",
            r"handl\w*",
            r"deal with",
            r"options?",
            r"how (?:do|can|should) (?:we|i) (?:get|make|stop|keep|give|add|free)",
            r"right way",
        ),
    ),
    "diagnose": (
        _rx(
            r"diagnos\w*",
            r"investigat\w*",
            r"troubleshoot\w*",
            r"debug\w*",
            r"triag\w*",
            r"root[- ]cause",
            r"dig (?:into|in)",
            r"narrow (?:\w+ )?down",
            r"pinpoint\w*",
            r"find out",
            r"figure out",
            r"work out",
            r"track down",
            r"where can (?:we|i) see",
            r"wh?at(?:'s|s| is) (?:wrong|going on|happening|broken)",
            r"where (?:to|do i|do we) (?:look|start|check)",
            r"how (?:to )?(?:debug|troubleshoot|tell|check|find)",
            r"where (?:do|should|can) (?:we|i) (?:look|start)",
            r"what should (?:we|i) (?:check|look at|inspect)",
            r"how (?:do|can|would) (?:we|i) (?:tell|see|find|check|know|confirm|determine)",
        ),
        _rx(
            r"check(?:s|ed|ing)?",  # not "checkout", a service name
            r"inspect\w*",
            r"look (?:at|into|for)",
            r"identify\w*",
            r"determin\w*",
            r"which (?:\w+ ){0,3}(?:is|are) (?:causing|responsible|behind)",
            r"why (?:is|are) (?:it|they|the|this|our)",
            r"what is causing",
            r"logs?",
            r"queries",
        ),
    ),
    "meaning": (
        _rx(
            r"what (?:does|do) (?:\w+ ){0,8}(?:mean|tell us|measure|indicate|signify)(?! for)",
            r"(?:does|can) (?:that|this|it) (?:\w+ ){0,2}mean(?! for)",
            r"what exactly",
            r"how is (?:this|it|that) different",
            r"at what point",
            r"meaning",
            r"what is (?:this|that|the) alert",
            r"what(?:'s| is) (?:this|it) (?:about|telling|saying)",
            r"explain\w*",
            r"what (?:does|do) (?:this|it|the \w+) (?:alert )?(?:measure|track|watch)",
            r"why (?:does|did|would) (?:\w+ ){0,4}(?:fire|trigger)",
        ),
        _rx(
            r"means",
            r"thresholds?",
            r"(?:does|can) (?:it|this|that) (?:only |also )*(?:cover|fire)",
            r"what (?:usually )?(?:causes|triggers)",
            r"definition",
            r"describ\w*",
            r"what is it",
            r"is (?:it|this|that) (?:\w+ )?expected",
        ),
    ),
    "impact": (
        _rx(
            r"impact\w*",
            r"blast radius",
            r"how bad",
            r"how serious",
            r"what happens (?:if|when|to)",
            r"what (?:will|would|could|can) (?:go wrong|happen|break)",
            r"what (?:breaks|goes wrong)",
            r"(?:does|would|will) (?:that|this|it) mean for",
            r"what (?:does|would|will) (?:that|this|it) mean for",
            r"is (?:that|this|it) (?:actually |really )?a problem",
            r"(?:does|would|will) (?:that|this|it) mean (?:that )?(?:nobody|no one|everyone|we|our|users|customers)\b",
            r"(?:nobody|no one) (?:will|would|can|gets?)\b",
            r"(?:will|would|does|do|can) (?:\w+ ){1,5}(?:still|keep) (?:\w+ing|accept\w*|serv\w*|work\w*|run\w*|get)\b",
            r"how worried",
            r"at risk",
            r"who is (?:hit|affected)",
            r"what (?:else )?(?:stops|breaks|fails) working",
            r"what (?:else )?(?:will|would|could|might) (?:fail|break|stop working|be affected)",
            r"what (?:else )?(?:fails|breaks|is affected)",
            r"what effects?",
            r"(?:side )?effects? (?:on|of) (?:the|our|us|it|this)",
            r"break\w* anything",
            r"(?:will|would|could) (?:\w+ ){0,3}lose (?:\w+ )?(?:connectivity|access|data|traffic)",
            r"should (?:we|i) (?:worry|care|panic)",
            r"does (?:it|this) matter",
            r"affect\w*",
            r"consequen\w*",
        ),
        _rx(
            r"customers?",
            r"users?",
            r"severity",
            r"sever\w*",
            r"risk\w*",
            r"urgent\w*",
            r"degrad\w*",
            r"outage",
            r"downtime",
            r"side effects?",
            r"at stake",
            r"still (?:work\w*|accept\w*|scrap\w*|serv\w*|running|get|be)",
            r"nobody",
        ),
    ),
    "escalate": (
        _rx(
            r"escalat\w*",
            r"who (?:should|do|can) (?:we|i) (?:call|page|contact|ask|tell|notify)",
            r"who owns",
            r"which team",
            r"on-?call for",
        ),
        _rx(r"page (?:the|someone)", r"contact\w*", r"owner\w*", r"hand (?:it )?off"),
    ),
    "verify": (
        _rx(
            r"verif\w*",
            r"validat\w*",
            r"(?:did|has) (?:it|the fix|the mitigation|this) work\w*",
            r"how (?:do|can) (?:we|i) know (?:it|the fix|we) (?:is|are|worked|fixed)",
            r"confirm (?:the fix|it worked|it is fixed|recovery)",
        ),
        _rx(r"is it (?:fixed|resolved|back)", r"after the fix", r"worked"),
    ),
}
STRONG, WEAK, QUESTION_SENTENCE = 2.0, 1.0, 2.0
_SENTENCES = re.compile(r"(?<=[.!?])\s+")


def question_intent(text: str) -> Intent | None:
    """The intent a question states, or None when it asks nothing recognisable (an alert text).

    Each intent scores its strong (2) and weak (1) phrasings; matches in a sentence that asks
    (ends with `?`, or the last sentence) count double. Ties go to the earlier intent in INTENTS."""
    sentences = [s for s in _SENTENCES.split(text.strip()) if s]
    if not sentences:
        return None
    asks = [s.rstrip().endswith("?") for s in sentences]
    if not any(asks):
        asks[-1] = True
    best: tuple[float, Intent] | None = None
    for intent in INTENTS:
        strong, weak = _QUESTION[intent]
        score = 0.0
        for sentence, asking in zip(sentences, asks, strict=True):
            hits = STRONG * len(strong.findall(sentence)) + WEAK * len(weak.findall(sentence))
            score += hits * (QUESTION_SENTENCE if asking else 1.0)
        if score > 0 and (best is None or score > best[0]):
            best = (score, intent)
    return best[1] if best else None


#: Heading words teams use for each kind of section (any one word of a heading decides).
_HEADING: dict[Intent, re.Pattern[str]] = {
    "fix": _rx(
        r"mitigat\w*",
        r"remediat\w*",
        r"resolution",
        r"resolv\w*",
        r"fix\w*",
        r"steps?",
        r"recover\w*",
        r"solutions?",
        r"workarounds?",
        r"actions?",
        r"remed\w*",
        r"procedures?",
        r"repair\w*",
        r"restor\w*",
        r"response",
        r"handling",
        r"make changes",
    ),
    "diagnose": _rx(
        r"diagnos\w*",
        r"investigat\w*",
        r"troubleshoot\w*",
        r"triag\w*",
        r"debug\w*",
        r"checks?",
        r"inspect\w*",
        r"analysis",
        r"root cause",
        r"queries",
        r"investigation",
        r"review",
    ),
    "meaning": _rx(
        r"meaning",
        r"overview",
        r"descriptions?",
        r"summary",
        r"about",
        r"background",
        r"context",
        r"explanation",
        r"what it means",
        r"details",
        r"symptoms?",
        r"definition",
        r"introduction",
    ),
    "impact": _rx(
        r"impacts?",
        r"severity",
        r"consequences?",
        r"risks?",
        r"blast radius",
        r"effects?",
        r"why it matters",
    ),
    "escalate": _rx(
        r"escalat\w*", r"contacts?", r"owners?", r"who to (?:call|page)", r"refer to", r"support"
    ),
    "verify": _rx(r"verif\w*", r"validat\w*", r"confirm\w*"),
}
#: Content cues for a section whose heading names no kind: read-only commands and "check" verbs
#: diagnose; commands and verbs that change something fix.
_READS = _rx(
    r"(?:kubectl|oc) (?:-\S+ )*(?:get|describe|logs|top|explain|auth can-i)",
    r"check(?:s|ed|ing)?",
    r"inspect\w*",
    r"look (?:at|for)",
    r"quer(?:y|ies)",
    r"verif\w*",
    r"grep",
    r"journalctl",
)
_CHANGES = _rx(
    r"(?:kubectl|oc) (?:-\S+ )*(?:edit|patch|scale|delete|apply|rollout|drain|cordon|annotate|label)",
    r"restart\w*",
    r"increas\w*",
    r"rais\w*",
    r"delet\w*",
    r"remov\w*",
    r"resiz\w*",
    r"upgrad\w*",
    r"roll ?back",
    r"fix\w*",
    r"disabl\w*",
)


def heading_kind(heading: str) -> Intent | None:
    """The kind of section a heading names, or None (the first kind in INTENTS whose word it
    uses; "Alert Description" is a meaning section, "Customer impact" an impact one)."""
    found = [(m.start(), kind) for kind, rx in _HEADING.items() if (m := rx.search(heading))]
    return min(found)[1] if found else None


def content_kind(text: str) -> Intent | None:
    """Diagnose or fix, read from what the section tells people to run; None when it says neither."""
    reads, changes = len(_READS.findall(text)), len(_CHANGES.findall(text))
    if reads == changes:
        return None
    return "diagnose" if reads > changes else "fix"


def section_kind(heading_path: Sequence[str], text: str) -> Intent | None:
    """A section's kind: its top heading's, else its own heading's, else its content's.
    The untitled opening of a runbook says what it is about: a meaning section."""
    if not heading_path:
        return "meaning"
    for heading in (heading_path[0], heading_path[-1]):
        kind = heading_kind(heading)
        if kind is not None:
            return kind
    return content_kind(text)
