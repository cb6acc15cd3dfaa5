"""Memory measured through Slack: replay LoCoMo-format conversations into the local Slack
stand-in through the real Bolt app, ask every question as an @mention, score what was posted.

Each conversation becomes an incident channel; each speaker its own Slack user; every session a
thread (its first turn the parent), every turn a signed `message` event. Each question is asked
by a member who wrote none of the conversation — half in the same channel, half from a new
incident channel opened after it — and the posted answer is read the way a person reads it: the
memory items it cites or links, in order. Evidence recall@k counts evidence messages among the
first k of those; precision the share of cited memory items that are evidence; for a question
with no evidence, whether the bot said memory has nothing. Latency is mention sent → answer
posted, as the asker waits for it; a question is asked once the channel may take a post again
(Slack's one per second per channel), as a person reading the last answer would.

The two halves hold different questions, so their gap mixes where a question is asked with how
hard it is. `paired` asks every question a second time in the other place; the `paired` figures
then compare the same questions asked both ways.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.answer.messages import NOTHING_FOUND, NOTHING_IN_MEMORY_HERE, NOTHING_YOURS
from bot.answer.render import MEMORY_TITLE, SIMILAR_TITLE
from evals.locomo import Conversation, load_locomo

if TYPE_CHECKING:
    from bot.runtime import Runtime
    from bot.standin import FakeSlack, SlackDriver

Progress = Callable[[str], None]
_LINK = re.compile(r"<(https?://[^|>]+)(?:\|[^>]*)?>")
_MEMORY_TITLES = (f"*{MEMORY_TITLE}*", f"*{SIMILAR_TITLE}*")
NOTHING = (NOTHING_IN_MEMORY_HERE, NOTHING_FOUND, NOTHING_YOURS)  # each says memory has nothing


@dataclass(frozen=True)
class Asked:
    """One question as asked and what its answer showed."""

    conversation: int
    where: str  # "same" or "cross"
    evidence: frozenset[str]
    # Every memory item shown, in order: its message's dialogue id, "" when it links to no
    # message of this replay (a roll-up, a note of another kind) or to nothing.
    shown: tuple[str, ...]
    said_nothing: bool
    latency_ms: float
    question: str = ""
    posted: str = ""  # the answer's text as a person reads it (its sections, in order)

    @property
    def cited(self) -> tuple[str, ...]:
        """Dialogue ids of the messages the answer cites or links, in order shown."""
        return tuple(d for d in self.shown if d)


@dataclass
class SlackReport:
    asked: list[Asked] = field(default_factory=list)
    messages: int = 0
    replay_s: float = 0.0
    # The same questions asked again in the other place (`paired`); not in the headline.
    again: list[Asked] = field(default_factory=list)

    def metrics(self, where: str | None = None, *, paired: bool = False) -> dict[str, float]:
        """Figures of the headline asks, or (`paired`) of every question asked both ways."""
        pool = [*self.asked, *self.again] if paired else self.asked
        rows = [a for a in pool if where is None or a.where == where]
        with_evidence = [a for a in rows if a.evidence]
        without = [a for a in rows if not a.evidence]
        out: dict[str, float] = {"n": float(len(rows))}
        for k in (1, 5):
            out[f"recall@{k}"] = _mean(
                [len(a.evidence & set(a.shown[:k])) / len(a.evidence) for a in with_evidence]
            )
        cited = [a for a in with_evidence if a.shown]
        out["precision"] = _mean(
            [sum(c in a.evidence for c in a.shown) / len(a.shown) for a in cited]
        )
        out["answered_from_memory"] = len(cited) / max(1, len(with_evidence))
        out["no_evidence_n"] = float(len(without))
        out["nothing_said"] = _mean([float(a.said_nothing) for a in without])
        latencies = sorted(a.latency_ms for a in rows)
        out["latency_p50_ms"] = _percentile(latencies, 50)
        out["latency_p95_ms"] = _percentile(latencies, 95)
        return out

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"benchmark": "slack", "mode": "slack"}
        out.update({k: round(v, 4) for k, v in self.metrics().items()})
        out["n"] = len(self.asked)
        for where in ("same", "cross"):
            out[where] = {k: round(v, 4) for k, v in self.metrics(where).items()}
        if self.again:
            both = {w: self.metrics(w, paired=True) for w in ("same", "cross")}
            out["paired"] = {
                **{w: {k: round(v, 4) for k, v in m.items()} for w, m in both.items()},
                "gap_recall@5": round(both["same"]["recall@5"] - both["cross"]["recall@5"], 4),
            }
        out["messages"] = self.messages
        out["replay_s"] = round(self.replay_s, 1)
        return out


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _percentile(values: list[float], p: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def memory_items(blocks: list[dict[str, Any]]) -> list[str | None]:
    """The memory items an answer shows (each bullet of its memory and similar-incident
    sections), in the order shown, as the first link of each ("" when it has none); runbook
    links are not memory. An item shown twice counts once."""
    items: list[str | None] = []
    for block in blocks:
        text = (block.get("text") or {}).get("text", "")
        if not text.startswith(_MEMORY_TITLES):
            continue
        for line in text.splitlines()[1:]:
            if not line.startswith("•"):
                continue
            urls = _LINK.findall(line)
            url = urls[0] if urls else None
            if url is None or url not in items:
                items.append(url)
    return items


def posted_text(text: str | None, blocks: list[dict[str, Any]]) -> str:
    """What a person reads of an answer: its sections and context lines, in order."""
    parts: list[str] = []
    for block in blocks:
        if block.get("type") == "section":
            parts.append((block.get("text") or {}).get("text", ""))
        elif block.get("type") == "context":
            parts += [e.get("text", "") for e in block.get("elements") or []]
    return "\n".join(parts) if parts else text or ""


class SlackReplay:
    """Drives one running bot and its stand-in through a whole LoCoMo-format file."""

    def __init__(
        self,
        runtime: Runtime,
        slack: FakeSlack,
        driver: SlackDriver,
        *,
        progress: Progress | None = None,
        within_s: float = 60.0,
    ) -> None:
        self._bot, self._slack, self._driver = runtime, slack, driver
        self._progress = progress or (lambda _msg: None)
        self._within_s = within_s
        self._dia_of_link: dict[str, str] = {}

    async def run(
        self, path: Path, *, limit: int | None = None, paired: bool = False
    ) -> SlackReport:
        report = SlackReport()
        convs = load_locomo(path)[:limit]
        started = time.perf_counter()
        places = []
        for n, conv in enumerate(convs):
            places.append(await self._replay(n, conv, report))
            self._progress(f"{conv.sample_id}: {report.messages} messages replayed so far")
        await self._captured(report.messages)
        # What the scheduler's index_vectors job does within a minute of the messages.
        while await self._bot.deps.notes.index_missing_vectors():
            pass
        report.replay_s = time.perf_counter() - started
        # Round-robin over conversations, so one channel is never asked twice in a row.
        rounds = max((len(c.questions) for c in convs), default=0)
        passes = [(0, report.asked), *([(1, report.again)] if paired else [])]
        for flip, into in passes:
            for r in range(rounds):
                for n, conv in enumerate(convs):
                    if r >= len(conv.questions):
                        continue
                    q = conv.questions[r]
                    same, cross, asker = places[n]
                    where = "same" if (r + flip) % 2 == 0 else "cross"
                    into.append(
                        await self._ask(
                            n, same if where == "same" else cross, asker, q.text, q.evidence, where
                        )
                    )
                self._progress(f"{len(report.asked) + len(report.again)} questions asked")
        return report

    async def _replay(
        self, n: int, conv: Conversation, report: SlackReport
    ) -> tuple[str, str, str]:
        """The conversation into its own incident channel; returns (channel, the next
        incident's channel, the asker)."""
        ws = self._slack.workspace
        users = {name: f"UR{n:02d}S{i:02d}" for i, name in enumerate(conv.speakers)}
        for name, uid in users.items():
            ws.add_user(uid, _handle(name), real_name=name)
        asker = f"UR{n:02d}ASK"
        ws.add_user(asker, f"asker{n}", real_name=f"Asker {n}")
        everyone = [*users.values(), asker]
        channel, later = f"CR{n:02d}INC", f"CR{n:02d}NEXT"
        ws.add_channel(channel, f"inc-{2 * n + 1}-{_slug(conv.sample_id)}", members=everyone)
        ws.add_channel(later, f"inc-{2 * n + 2}-followup", members=[asker])
        for session in conv.sessions:
            parent: str | None = None
            for turn in session.turns:
                d = await self._driver.say(
                    channel, users[turn.speaker], turn.text, thread_ts=parent
                )
                assert d.ts is not None
                parent = parent or d.ts
                self._dia_of_link[ws.permalink(channel, d.ts)] = turn.dia_id
                report.messages += 1
        return channel, later, asker

    async def _captured(self, count: int) -> None:
        """Wait until the bot has stored every replayed message (it counts each one)."""
        await self._until(
            lambda: self._bot.deps.metrics.sample("opsmemory_redaction_seconds_count") >= count,
            within_s=max(self._within_s, count * 0.5),
        )

    async def _ask(
        self,
        n: int,
        channel: str,
        asker: str,
        question: str,
        evidence: frozenset[str],
        where: str,
    ) -> Asked:
        ws = self._slack.workspace
        # A person asks again after reading the last answer, never faster than the one post
        # per second per channel Slack allows: the bot's pacer would hold the answer back, and
        # that wait is the eval's hurry, not the answer's cost.
        await asyncio.sleep(self._bot.deps.pacer.free_in(channel))
        started = time.perf_counter()
        (m, *_) = await self._driver.mention(channel, asker, question)
        assert m.ts is not None
        answers = await self._until(lambda: ws.bot_messages(channel, m.ts))
        latency = (time.perf_counter() - started) * 1000
        answer = answers[0]
        shown = tuple(self._dia_of_link.get(u or "", "") for u in memory_items(answer.blocks))
        return Asked(
            conversation=n,
            where=where,
            evidence=evidence,
            shown=shown,
            # Says nothing only when it also shows nothing: a memory item or similar incident
            # under "Memory has nothing on that." is a contradiction, not a right refusal.
            said_nothing=any(s in (answer.text or "") for s in NOTHING) and not shown,
            latency_ms=latency,
            question=question,
            posted=posted_text(answer.text, answer.blocks),
        )

    async def _until(self, predicate: Callable[[], Any], within_s: float | None = None) -> Any:
        deadline = time.monotonic() + (within_s or self._within_s)
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError("the bot did not answer in time")
            await asyncio.sleep(0.005)


def _handle(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower()) or "user"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "conversation"


def by_conversation(report: SlackReport) -> dict[int, list[Asked]]:
    out: dict[int, list[Asked]] = defaultdict(list)
    for a in report.asked:
        out[a.conversation].append(a)
    return out
