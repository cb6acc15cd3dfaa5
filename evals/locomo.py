"""Reads LoCoMo (locomo10.json): conversations of dated sessions, and questions with evidence ids.

Data: Maharana et al., ACL 2024 (snap-research/locomo, CC BY-NC 4.0); never bundled.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

_SESSION = re.compile(r"^session_(\d+)$")
_SPLIT = re.compile(r"[;\s]+")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class Session:
    number: int
    at: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, ...]  # speaker_a, speaker_b, then anyone else who spoke, in order
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]


def parse_session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_locomo(path: Path) -> list[Conversation]:
    """Every conversation; evidence ids that name no turn are dropped (known data issues)."""
    raw = json.loads(path.read_text("utf-8"))
    return [_conversation(sample) for sample in raw]


def _conversation(sample: dict) -> Conversation:
    conv = sample["conversation"]
    sessions = []
    for key, turns in conv.items():
        match = _SESSION.match(key)
        if not match or not turns:
            continue
        number = int(match[1])
        sessions.append(
            Session(
                number=number,
                at=parse_session_time(conv[f"session_{number}_date_time"]),
                turns=tuple(
                    Turn(t["dia_id"], t["speaker"], _turn_text(t)) for t in turns if t.get("text")
                ),
            )
        )
    sessions.sort(key=lambda s: s.number)
    known = {t.dia_id for s in sessions for t in s.turns}
    questions = []
    for qa in sample["qa"]:
        ids = {p for e in qa.get("evidence", []) for p in _SPLIT.split(str(e)) if p}
        questions.append(Question(qa["question"], frozenset(ids & known), int(qa["category"])))
    speakers = dict.fromkeys([conv["speaker_a"], conv["speaker_b"]])
    speakers.update(dict.fromkeys(t.speaker for s in sessions for t in s.turns))
    return Conversation(
        sample_id=sample["sample_id"],
        speakers=tuple(speakers),
        sessions=tuple(sessions),
        questions=tuple(questions),
    )


def _turn_text(turn: dict) -> str:
    """The message as a person would have seen it: text plus the shared image's description."""
    caption = turn.get("blip_caption")
    return f"{turn['text']} [shared a photo: {caption}]" if caption else turn["text"]
