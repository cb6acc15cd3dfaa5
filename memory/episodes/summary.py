"""The deterministic, extractive summary of a thread: what happened, decisions, root cause,
actions with owners, status, participants and duration.

No model needed: each sentence is sorted into decisions, root causes, mitigations or actions by
keyword cues (an explicit "decision:" / "action:" / "root cause:" prefix wins). Only text that was
already redacted at capture goes in, so the summary can hold nothing capture did not allow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from memory.episodes.statements import classify as statement_of
from memory.episodes.statements import strip_label
from memory.text import stems

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
    root_cause: str | None = None
    status: str | None = None
    participant_names: tuple[str, ...] = ()

    @property
    def duration(self) -> str:
        return duration(self.started_at, self.ended_at)


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


def duration(start: datetime, end: datetime) -> str:
    """'2h 35m', '40m', 'under a minute'."""
    minutes = int((end - start).total_seconds() // 60)
    if minutes < 1:
        return "under a minute"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{days}d"] if days else []
    parts += [f"{hours}h"] if hours else []
    parts += [f"{mins}m"] if mins and not days else []
    return " ".join(parts)


def summarise(messages: Sequence[Line], names: Mapping[str, str] | None = None) -> Summary:
    """Summarise a non-empty, ts-ordered thread the way a person would write it up.

    Each message is read as one statement (`memory.episodes.statements`): what happened is the
    first report; decisions, actions with their owners and mitigations are listed; the root
    cause and the current status are the latest said (a later correction of the root cause
    replaces it). Everything is quoted from the redacted thread; nothing is invented.
    """
    names = names or {}
    first = messages[0]
    sections: dict[str, list[str]] = {name: [] for name in SECTIONS}
    root_cause: str | None = None
    status: str | None = None
    for message in messages[1:] if len(messages) > 1 else messages:
        said = statement_of(message.text, author=names.get(message.author_subject_id))
        line = _clip(said.text, MAX_LINE_CHARS)
        if said.kind == "root_cause" or (said.kind == "correction" and root_cause and _about(root_cause, said.text)):
            root_cause = line
        elif said.kind == "status":
            status = line
        section = _SECTION_OF.get(said.kind)
        if section is None:
            continue
        if said.kind == "action" and said.owner:
            line = f"{said.owner}: {line}" if not line.startswith(said.owner) else line
        if said.kind == "mitigation":
            status = status if status and _later_status(status) else line
        bucket = sections[section]
        if line not in bucket:
            bucket.append(line)
            del bucket[:-MAX_LINES_PER_SECTION]  # the latest few
    participants = list(dict.fromkeys(m.author_subject_id for m in messages))
    shown = tuple(names.get(p) or p.partition("/")[2] or p for p in participants)
    first_report = _clip(strip_label(first.text), MAX_LINE_CHARS)
    title = _clip(first.text.strip().splitlines()[0] if first.text.strip() else "", MAX_TITLE_CHARS)
    started, ended = ts_to_datetime(first.ts), ts_to_datetime(messages[-1].ts)
    body = [f"What happened: {first_report}"]
    if root_cause:
        body.append(f"Root cause: {root_cause}")
    if sections["decisions"]:
        body.append("Decisions: " + " | ".join(sections["decisions"]))
    if sections["mitigations"]:
        body.append("Mitigations: " + " | ".join(sections["mitigations"]))
    if sections["actions"]:
        body.append("Actions: " + " | ".join(sections["actions"]))
    body.append(f"Status: {status or 'no status given in the thread'}")
    body.append(
        f"Participants: {', '.join(shown)} · {duration(started, ended)} "
        f"({started:%Y-%m-%d %H:%M} to {ended:%H:%M} UTC, {len(messages)} messages)"
    )
    if root_cause:
        sections["root_causes"] = [root_cause]
    if status:
        sections["status"] = [status]
    return Summary(
        title=title or "Thread",
        first_report=first_report,
        sections=sections,
        participants=participants,
        started_at=started,
        ended_at=ended,
        text="\n".join(body),
        root_cause=root_cause,
        status=status,
        participant_names=shown,
    )


_SECTION_OF = {
    "decision": "decisions",
    "action": "actions",
    "mitigation": "mitigations",
    "correction": None,
}


def _about(earlier: str, correction: str) -> bool:
    """Whether a correction shares a subject word with what it may correct."""
    return bool(stems(earlier) & stems(correction))


def _later_status(status: str) -> bool:
    """A status line that already says the incident moved on (resolved, recovered...)."""
    return bool(re.search(r"\b(resolved|recovered|all clear|back to normal)\b", status, re.I))
