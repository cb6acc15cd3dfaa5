"""Memory evaluation: ingest LoCoMo / LongMemEval through the real write path, score recall.

Each conversation (LoCoMo) or question haystack (LongMemEval) becomes one incident channel;
each speaker a subject; every turn a note saved with `Notes.save_many` (validation, redaction,
embedding, one transaction). LoCoMo turns are filed under the kind the bot gives a thread
message (`memory.episodes.statements`), as capture does. Questions are asked from that channel with `Recall.recall`.
Recency decay is off by default here: these questions are not biased towards recent turns.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from evals.locomo import Conversation, load_locomo
from evals.longmemeval import load_longmemeval
from memory.clock import Clock
from memory.episodes.statements import classify
from memory.errors import ValidationError
from memory.incidents import Incidents
from memory.notes import Note, NoteDraft, NotePolicy, Notes
from memory.recall import Recall, RecallConfig
from memory.scopes import Requester, WriteContext
from memory.subjects import Author, SlackIdentity
from memory.text import Mode

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database

TEAM = "TEVAL"
ASKER = f"{TEAM}/UASKER"
Progress = Callable[[str], None]
MAX_NOTE = 40_000  # the largest note cap settings allow


@dataclass
class EvalReport:
    benchmark: str
    mode: str
    embedder: str
    ks: tuple[int, ...]
    n: int = 0
    metrics: dict[str, float] = field(default_factory=dict)
    by_group: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: int = 0
    ingest_s: float = 0.0
    query_s: float = 0.0

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"benchmark": self.benchmark}
        out.update({key: round(value, 4) for key, value in self.metrics.items()})
        out.update(
            n=self.n,
            embedder=self.embedder,
            mode=self.mode,
            notes=self.notes,
            ingest_s=round(self.ingest_s, 1),
            query_s=round(self.query_s, 1),
        )
        return out


class _Sums:
    """Running means of named metrics, overall and per group."""

    def __init__(self) -> None:
        self.total: dict[str, float] = defaultdict(float)
        self.groups: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.counts: dict[str, int] = defaultdict(int)
        self.n = 0

    def add(self, group: str, values: dict[str, float]) -> None:
        self.n += 1
        self.counts[group] += 1
        for key, value in values.items():
            self.total[key] += value
            self.groups[group][key] += value

    def fill(self, report: EvalReport) -> None:
        report.n = self.n
        report.metrics = {k: v / max(1, self.n) for k, v in self.total.items()}
        report.by_group = {
            g: {**{k: v / self.counts[g] for k, v in m.items()}, "n": self.counts[g]}
            for g, m in sorted(self.groups.items())
        }


def ranked_metrics(ranked: Sequence[str], gold: frozenset[str], ks: Sequence[int]) -> dict:
    """recall@k (fraction of gold found), recall_any@k, recall_all@k and NDCG@k (binary gains)."""
    out: dict[str, float] = {}
    for k in ks:
        top = list(ranked[:k])
        found = len(gold & set(top))
        dcg = sum(1 / math.log2(i + 2) for i, item in enumerate(top) if item in gold)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(gold))))
        out[f"recall@{k}"] = found / len(gold)
        out[f"recall_any@{k}"] = float(found > 0)
        out[f"recall_all@{k}"] = float(found == len(gold))
        out[f"ndcg@{k}"] = dcg / ideal if ideal else 0.0
    return out


class MemoryEval:
    """Owns one evaluation database and the real Notes/Recall built on it."""

    def __init__(
        self,
        db: Database,
        redactor: Redactor,
        embedder: Embedder | None,
        *,
        mode: Mode = "hybrid",
        config: RecallConfig | None = None,
        progress: Progress | None = None,
    ) -> None:
        self._db = db
        self._notes = Notes(db, redactor, embedder, NotePolicy(max_chars=MAX_NOTE))
        self._embedder = embedder
        self._config = config or RecallConfig(half_life_hours=None)
        self._recall = Recall(db, embedder, self._config)
        self._incidents = Incidents(db, redactor=redactor)
        self._embedder_name = embedder.name if embedder is not None else "none"
        self._mode = mode
        self._progress = progress or (lambda _msg: None)

    async def locomo(
        self, path: Path, ks: Sequence[int], *, limit: int | None = None
    ) -> EvalReport:
        report = EvalReport("locomo", self._mode, self._embedder_name, tuple(ks))
        sums = _Sums()
        for n, conv in enumerate(load_locomo(path)[:limit]):
            started = time.perf_counter()
            channel, dia_of = await self.ingest_locomo(n, conv)
            report.notes += len(dia_of)
            report.ingest_s += time.perf_counter() - started
            started = time.perf_counter()
            for q in conv.questions:
                if not q.evidence:
                    continue
                items = await self._recall.recall(
                    Requester(ASKER, TEAM, channel_id=channel), q.text, k=max(ks), mode=self._mode
                )
                ranked = [dia_of[item.id] for item in items]
                sums.add(f"category {q.category}", ranked_metrics(ranked, q.evidence, ks))
            report.query_s += time.perf_counter() - started
            self._progress(f"{conv.sample_id}: {len(dia_of)} turns, {sums.n} questions so far")
        sums.fill(report)
        return report

    async def ingest_locomo(self, n: int, conv: Conversation) -> tuple[str, dict[int, str]]:
        """One conversation into its own incident channel, each speaker a subject; returns the
        channel and the dialogue id of every saved note."""
        channel = f"CLOCOMO{n}"
        authors = {
            name: Author.of(SlackIdentity(TEAM, f"UL{n}S{i}"), name)
            for i, name in enumerate(conv.speakers)
        }
        incident = await self._open(authors[conv.speakers[0]], channel, conv.sample_id)
        dia_of: dict[int, str] = {}
        for session in conv.sessions:
            drafts = [
                NoteDraft(
                    self._ctx(authors[t.speaker], channel),
                    t.text,
                    kind=classify(t.text).kind,  # as the bot files a thread message
                    incident=incident,
                    at=session.at + timedelta(seconds=i),
                )
                for i, t in enumerate(session.turns)
            ]
            notes = await self._save(drafts)
            dia_of.update(
                {
                    note.id: t.dia_id
                    for note, t in zip(notes, session.turns, strict=True)
                    if note is not None
                }
            )
        return channel, dia_of

    @property
    def recall(self) -> Recall:
        return self._recall

    async def longmemeval(
        self, path: Path, ks: Sequence[int], *, granularity: str, limit: int | None = None
    ) -> EvalReport:
        report = EvalReport(
            f"longmemeval-{granularity}", self._mode, self._embedder_name, tuple(ks)
        )
        sums = _Sums()
        questions = [q for q in load_longmemeval(path) if not q.question_id.endswith("_abs")]
        for n, q in enumerate(questions[:limit]):
            gold = q.answer_turn_ids if granularity == "turn" else q.answer_session_ids
            if not q.answer_turn_ids:
                continue  # no user-side evidence: excluded by the official protocol too
            channel = f"CLME{n}"
            author = Author.of(SlackIdentity(TEAM, f"ULME{n}"), "user")
            started = time.perf_counter()
            incident = await self._open(author, channel, q.question_id)
            turn_of: dict[int, tuple[str, str]] = {}
            for session in q.sessions:
                # A turn longer than the note cap becomes several notes of the same turn.
                pieces = [
                    (t, t.text[i : i + MAX_NOTE])
                    for t in session.turns
                    for i in range(0, len(t.text), MAX_NOTE)
                ]
                drafts = [
                    NoteDraft(
                        self._ctx(author, channel),
                        piece,
                        incident=incident,
                        at=session.at + timedelta(seconds=i),
                    )
                    for i, (_, piece) in enumerate(pieces)
                ]
                notes = await self._save(drafts)
                turn_of.update(
                    {
                        note.id: (t.turn_id, t.session_id)
                        for note, (t, _) in zip(notes, pieces, strict=True)
                        if note is not None
                    }
                )
            report.notes += len(turn_of)
            report.ingest_s += time.perf_counter() - started
            started = time.perf_counter()
            # Asked when the benchmark says it was asked: "yesterday" means the day before that.
            asked = Recall(self._db, self._embedder, self._config, clock=_fixed(q.asked_at))
            items = await asked.recall(
                Requester(ASKER, TEAM, channel_id=channel), q.text, k=100, mode=self._mode
            )
            report.query_s += time.perf_counter() - started
            if granularity == "turn":
                ranked = list(dict.fromkeys(turn_of[item.id][0] for item in items))
            else:
                ranked = list(dict.fromkeys(turn_of[item.id][1] for item in items))
            sums.add(q.question_type, ranked_metrics(ranked, gold, ks))
            if (n + 1) % 10 == 0:
                self._progress(f"{n + 1} questions, {report.notes} turns ingested")
        sums.fill(report)
        return report

    async def _save(self, drafts: list[NoteDraft]) -> list[Note | None]:
        """save_many; if a turn is refused (only secrets), save the rest one by one."""
        try:
            return list(await self._notes.save_many(drafts))
        except ValidationError:
            out: list[Note | None] = []
            for draft in drafts:
                try:
                    out.append(
                        await self._notes.save(draft.ctx, draft.text, incident=draft.incident)
                    )
                except ValidationError:
                    out.append(None)
            return out

    def _ctx(self, author: Author, channel: str) -> WriteContext:
        return WriteContext(author, TEAM, channel, channel_is_private=False, scope="channel")

    async def _open(self, author: Author, channel: str, title: str) -> str:
        incident = await self._incidents.open(
            self._ctx(author, channel), title=title, channel_id=channel
        )
        return incident.id


def _fixed(at: datetime) -> Clock:
    """A clock that always reads `at`."""
    return lambda: at
