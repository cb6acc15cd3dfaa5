"""The deterministic, extractive summary of a thread: cue lines, first report, who, when.

No model needed: each sentence is sorted into decisions, root causes, mitigations or actions by
keyword cues (an explicit "decision:" / "action:" / "root cause:" prefix wins). Only text that was
already redacted at capture goes in, so the summary can hold nothing capture did not allow.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

SECTIONS: tuple[str, ...] = ("decisions", "root_causes", "mitigations", "actions")
LABELS = {
    "decisions": "Decisions",
    "root_causes": "Root cause",
    "mitigations": "Mitigations",
    "actions": "Actions",
}
MAX_LINES_PER_SECTION = 6
MAX_LINE_CHARS = 280
MAX_TITLE_CHARS = 90

_PREFIX = re.compile(
    r"^\s*(?P<label>decision|decided|action(?: item)?|ai|todo|root ?cause|rca|mitigation)\s*[:\-]",
    re.IGNORECASE,
)
_PREFIX_SECTION = {
    "decision": "decisions",
    "decided": "decisions",
    "action": "actions",
    "action item": "actions",
    "ai": "actions",
    "todo": "actions",
    "rootcause": "root_causes",
    "root cause": "root_causes",
    "rca": "root_causes",
    "mitigation": "mitigations",
}
# Checked in this order: a sentence lands in the first section whose cue it matches.
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "root_causes",
        re.compile(
            r"\b(root cause|caused by|the cause|because of|due to|culprit|triggered by|"
            r"rca)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "decisions",
        re.compile(
            r"\b(decided|decision|we will|we'll|let's|lets|agreed|going with|go with|"
            r"plan is|we should)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "mitigations",
        re.compile(
            r"\b(mitigat\w*|workaround|roll(?:ed|ing)? ?back|reverted?|restart(?:ed|ing)?|"
            r"fail(?:ed)? ?over|scaled (?:up|out)|hotfix|drain(?:ed)?|recovered|back to normal)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "actions",
        re.compile(
            r"\b(action item|todo|to-do|follow[- ]?up|i'll|i will|owner|assigned|ticket|"
            r"will (?:add|fix|update|check|file|write|open|create|investigate))\b",
            re.IGNORECASE,
        ),
    ),
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


class Line(Protocol):
    """What the summariser needs from a captured message."""

    @property
    def ts(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def author_subject_id(self) -> str: ...


@dataclass(frozen=True)
class Summary:
    title: str
    first_report: str
    sections: dict[str, list[str]]
    participants: list[str]
    started_at: datetime
    ended_at: datetime
    text: str


def ts_to_datetime(ts: str) -> datetime:
    """Slack's "1700000000.000100" as an aware UTC datetime."""
    return datetime.fromtimestamp(float(ts), UTC)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def classify(sentence: str) -> str | None:
    """The section a sentence belongs to, or None."""
    prefix = _PREFIX.match(sentence)
    if prefix:
        return _PREFIX_SECTION[prefix["label"].lower()]
    for section, cue in _CUES:
        if cue.search(sentence):
            return section
    return None


def summarise(messages: Sequence[Line]) -> Summary:
    """Summarise a non-empty, ts-ordered thread."""
    first = messages[0]
    sections: dict[str, list[str]] = {name: [] for name in SECTIONS}
    for message in messages:
        for sentence in _SENTENCE.split(message.text):
            section = classify(sentence) if sentence.strip() else None
            if section is None:
                continue
            line = _clip(sentence, MAX_LINE_CHARS)
            bucket = sections[section]
            if line not in bucket and len(bucket) < MAX_LINES_PER_SECTION:
                bucket.append(line)
    participants = list(dict.fromkeys(m.author_subject_id for m in messages))
    first_report = _clip(first.text, MAX_LINE_CHARS)
    title = _clip(first.text.strip().splitlines()[0] if first.text.strip() else "", MAX_TITLE_CHARS)
    started, ended = ts_to_datetime(first.ts), ts_to_datetime(messages[-1].ts)
    body = [
        f"{len(messages)} messages from {len(participants)} people, "
        f"{started:%Y-%m-%d %H:%M} to {ended:%Y-%m-%d %H:%M} UTC.",
        f"First report: {first_report}",
    ]
    for name in SECTIONS:
        if sections[name]:
            body.append(f"{LABELS[name]}: " + " | ".join(sections[name]))
    return Summary(
        title=title or "Thread",
        first_report=first_report,
        sections=sections,
        participants=participants,
        started_at=started,
        ended_at=ended,
        text="\n".join(body),
    )
