"""Reads the LongMemEval-S user-turn retrieval view (longmemeval_s_cleaned_useronly.json.gz).

Data: Wu et al. 2025 (xiaowu0162/LongMemEval, MIT); never bundled.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass(frozen=True)
class UserTurn:
    turn_id: str  # "<session_id>_<1-based index in the full session>"
    session_id: str
    text: str
    has_answer: bool


@dataclass(frozen=True)
class HaystackSession:
    session_id: str
    at: datetime
    turns: tuple[UserTurn, ...]


@dataclass(frozen=True)
class LmeQuestion:
    question_id: str
    question_type: str
    text: str
    asked_at: datetime
    sessions: tuple[HaystackSession, ...]
    answer_session_ids: frozenset[str]

    @property
    def answer_turn_ids(self) -> frozenset[str]:
        return frozenset(t.turn_id for s in self.sessions for t in s.turns if t.has_answer)


def parse_lme_time(text: str) -> datetime:
    """'2023/05/20 (Sat) 07:47' -> an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)


def load_longmemeval(path: Path) -> list[LmeQuestion]:
    """Every question with its haystack, in file order (duplicate session refs kept once)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        raw = json.load(handle)
    sessions = raw["sessions"]
    out = []
    for q in raw["questions"]:
        hay: list[HaystackSession] = []
        seen: set[str] = set()
        for sid, when in zip(q["haystack_session_ids"], q["haystack_dates"], strict=True):
            if sid in seen or sid not in sessions:
                continue
            seen.add(sid)
            turns = tuple(
                UserTurn(f"{sid}_{idx}", sid, text, bool(ans))
                for idx, text, ans in sessions[sid]["user_turns"]
                if text and text.strip()
            )
            hay.append(HaystackSession(sid, parse_lme_time(when), turns))
        out.append(
            LmeQuestion(
                question_id=q["question_id"],
                question_type=q["question_type"],
                text=q["question"],
                asked_at=parse_lme_time(q["question_date"]),
                sessions=tuple(hay),
                answer_session_ids=frozenset(q["answer_session_ids"]),
            )
        )
    return out
