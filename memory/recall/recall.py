"""Recall: the notes a requester may see that best answer a question, each with its source.

Keyword and vector candidates are fused by weighted reciprocal rank, lent to neighbours, then
reranked by recency, kind and named dates (`Recall.recall`); visibility is in the SQL of every read.
`Recall.relevant` then keeps only what answers the question (`memory.recall.floor`), with later
corrections placed above what they correct (`memory.recall.supersede`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from memory.clock import Clock, parse_iso, utc_now
from memory.episodes.done import carries_out
from memory.episodes.statements import (
    asks,
    claims_work,
    handed_over_keys,
    is_heading,
    without_correction_cue,
    without_questions,
)
from memory.errors import EmbeddingUnavailable, InvalidLimit
from memory.incidents import parse_incident_id
from memory.notes.exchange import WINDOW as EXCHANGE_WINDOW
from memory.recall.answer_type import explains, holds, says_a_span, says_how_long, wanted
from memory.recall.clauses import clauses
from memory.recall.clock_times import says_time, times_in
from memory.recall.current import (
    asks_current_state,
    asks_current_value,
    gives_value,
    names_subject,
    reports_a_reading,
    state_subject,
    subject_of,
)
from memory.recall.earlier import (
    OUTAGE_WORDS,
    about_an_earlier_incident,
    asked_kinds,
    asks_what_happened,
    asks_what_to_tell,
    topic_words,
    without_pointer_back,
)
from memory.recall.explanations import explanation_of, reasons, states
from memory.recall.floor import FLOORS, Features, FloorConfig, coverage, said_of
from memory.recall.impact import asks_impact, newest_impact, says_impact
from memory.recall.keyword import KeywordConfig, keyword_candidates
from memory.recall.open_items import MOST as OPEN_MOST
from memory.recall.open_items import asks_open_items, done_keys
from memory.recall.outcomes import OUTCOME_WORDS, REPORT_KINDS, asks_outcome, reports_outcome
from memory.recall.outcomes import WINDOW as OUTCOME_WINDOW
from memory.recall.own_items import asks_own_items, owned_by
from memory.recall.ranking import (
    DEFAULT_KIND_WEIGHTS,
    STATEMENT_KINDS,
    length_factor,
    recency_factor,
)
from memory.recall.supersede import SupersedeConfig, corrects, overlap
from memory.recall.time_hints import periods_in
from memory.recall.timeline import asks_when, start_and_end
from memory.scopes import Requester, visible_partitions
from memory.store import notes as note_store
from memory.store.vectors import VectorTable
from memory.store.visibility import public_channels
from memory.subjects import is_app_subject
from memory.text import (
    Mode,
    asks_for_a_link,
    expand_identifiers,
    item_references,
    question_topic,
    rrf,
    stems,
)

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.incidents import Incident
    from memory.store.db import Database, Row

log = logging.getLogger(__name__)

MAX_K = 100
NEWEST_ID = 2**62  # above every note id: "before it" reads a channel from its newest note
SIMILAR_CANDIDATES = 30  # notes looked at to rank past incidents


@dataclass(frozen=True)
class AskedIn:
    """The thread a question is asked in: its ts, and its first message (what "it" is)."""

    thread_ts: str
    opening: str | None = None


#: Every kind a thread message is stored as (`memory.episodes.statements`), plain talk too.
EVERY_KIND = ("root_cause", "decision", "action", "mitigation", "status", "correction", "note")
#: How many of an incident's messages "when did it start?" reads, its first ones (a bounded
#: read: the recovery of an incident longer than that is past them).
TIMELINE_LOOKS_AT = 400
#: How many recent incidents "what do I owe?" reads when the one asked in owes the asker nothing.
OWED_INCIDENTS_BACK = 5
#: Statements shown from the incident "last time" points at.
LAST_TIME_MOST = 2

#: Where an item may be said to be done: an action's own update, a status, a fix, plain talk.
DONE_KINDS = ("action", "status", "correction", "mitigation", "note")

#: What a vague question in an incident's thread ("next steps?") is answered with from memory:
#: what the incident decided and did so far (its open action items after them).
CURRENT_PLAN = ("decision", "mitigation")


@dataclass(frozen=True)
class RecallConfig:
    half_life_hours: float | None = 48.0  # None: no recency decay
    decay_floor: float = 0.35
    kind_weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_KIND_WEIGHTS))
    keyword: KeywordConfig = field(default_factory=KeywordConfig)  # BM25 weights, pruning
    keyword_weight: float = 1.0
    vector_weight: float = 0.5  # MiniLM alone is far weaker than BM25 with neighbour context
    rrf_k: float = 5.0  # small k keeps strong keyword top ranks on top
    neighbour_share: float = 0.1  # of a hit's score lent to the notes just before and after it
    date_boost: float = 3.0  # for notes written in a period the question names (1.0: off)
    overfetch: int = 50  # candidates per list, at least
    coarse: int = 200  # binary-code candidates (shared by the partitions searched) to rescore
    mode: Mode = "hybrid"
    floors: Mapping[str, FloorConfig] = field(default_factory=lambda: dict(FLOORS))
    candidates: int = 10  # ranked items the floor looks at
    here_boost: float = 1.5  # for notes of the channel the question is asked in
    supersede: SupersedeConfig = field(default_factory=SupersedeConfig)
    answer_types: frozenset[str] = frozenset(
        {"person", "link", "duration", "time", "quantity", "reason", "verbatim"}
    )  # boosted
    answer_type_boost: float = 2.5  # for notes holding the kind of answer asked for (1.0: off)
    correction_top: int = 5  # best items whose later corrections are pulled in beside them
    # Share of a corrected item's score its later correction gets (0: off): "who owns it now?"
    # wants the handover, which names the item only by its id ("I'll take AI-1 myself").
    correction_share: float = 0.6
    # Document length prior: score times (min(content words, length_cap) / length_cap) **
    # length_prior (0: off). A bare "ack" or "lol" rarely answers anything.
    length_prior: float = 0.5
    length_cap: int = 16


#: The kinds that say what a team did or chose: a fix question's answer (`Recall._bridged`).
_DONE_OR_DECIDED = frozenset({"mitigation", "decision"})
#: Kinds of a best item that answer a fix question as they stand: no other statement is put above.
_ANSWERS_ITSELF = _DONE_OR_DECIDED | {"correction"}


@dataclass(frozen=True)
class RecallItem:
    id: int
    kind: str
    text: str
    scope: str
    incident_id: str | None
    channel_id: str | None
    author_subject_id: str
    created_at: datetime
    permalink: str | None
    score: float
    source: str = "note"
    author_name: str = ""
    similarity: float = 0.0  # cosine to the question, when the vector pass saw the item
    relevance: float = 0.0  # the floor's probability that the item answers (`relevant` only)
    superseded_by: int | None = None  # a later correction of this item, shown above it
    corrects: int | None = None  # the item this correction supersedes
    source_ts: str | None = None  # the Slack message it was made from, when it was one
    follows: int | None = None  # the item above whose outcome this reply reports
    done_for: int | None = None  # the decision or action above this reply reports done


@dataclass(frozen=True)
class IncidentMatch:
    incident: Incident
    score: float
    why: str  # the best matching note
    line: str | None = None  # its root cause / resolution line
    url: str | None = None  # permalink of the best matching note
    said_status: str | None = None  # the latest status said in its thread ("resolved at 10:48")


class Recall:
    """Hybrid, scope-safe search over notes.

    Keyword (FTS5 BM25 over text, author and neighbour context) and vector candidates are
    gathered concurrently, over-fetched and fused by weighted reciprocal rank; each hit lends a
    share of its score to the notes just before and after it (an answer sits next to its
    question); then scores are reranked by recency (half-life with a floor, so old root causes
    still surface), note kind, and a boost for notes written in a period the question names
    (`memory.recall.time_hints`). The vector pass reads binary codes of visible partitions only,
    then rescores the best exactly (`memory.store.vectors`).
    """

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        config: RecallConfig = RecallConfig(),
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._config = config
        self._clock = clock
        self._vectors = VectorTable.of("note", embedder) if embedder is not None else None

    async def recall(
        self,
        requester: Requester,
        query: str,
        k: int = 8,
        *,
        incident: str | None = None,
        mode: Mode | None = None,
    ) -> list[RecallItem]:
        """Up to k notes, best first; [] when nothing visible matches (never a count of others)."""
        if not 1 <= k <= MAX_K:
            raise InvalidLimit(got=k, cap=MAX_K)
        mode = mode or self._config.mode
        incident_id = parse_incident_id(incident) if incident is not None else None
        fetch = max(self._config.overfetch, 3 * k)
        sims: dict[int, float] = {}
        keyword, semantic = await asyncio.gather(
            self._keyword(requester, query, fetch, incident_id)
            if mode in ("keyword", "hybrid")
            else _nothing(),
            self._semantic(requester, query, fetch, sims)
            if mode in ("semantic", "hybrid")
            else _nothing(),
        )
        rankings = [
            (keyword, self._config.keyword_weight),
            (semantic, self._config.vector_weight),
        ]
        fused = rrf(rankings, k=self._config.rrf_k)
        if not fused:
            return []
        if self._config.neighbour_share > 0:
            fused = await self._lend_to_neighbours(fused)
        rows = await self._rows(requester, list(fused), incident_id)
        now = self._clock()
        periods = periods_in(query, now) if self._config.date_boost != 1.0 else []
        wants = wanted(query) if self._config.answer_type_boost != 1.0 else None
        if wants not in self._config.answer_types:
            wants = None
        people = {str(r["author_name"] or "").split(" ")[0].lower() for r in rows}
        items = []
        for row in rows:
            created = parse_iso(row["created_at"])
            typed = wants is not None and holds(wants, row["text"], people)
            in_period = any(p.contains(created) for p in periods)
            score = (
                fused[row["id"]]
                * (self._config.date_boost if in_period else 1.0)
                * (self._config.answer_type_boost if typed else 1.0)
                * (self._config.here_boost if row["channel_id"] == requester.channel_id else 1.0)
                * self._config.kind_weights.get(row["kind"], 1.0)
                # A statement (decision, root cause, action…) is worth its words however few.
                * (
                    1.0
                    if row["kind"] in STATEMENT_KINDS
                    else length_factor(
                        row["text"], cap=self._config.length_cap, power=self._config.length_prior
                    )
                )
                * recency_factor(
                    (now - created).total_seconds() / 3600,
                    half_life_hours=self._config.half_life_hours,
                    floor=self._config.decay_floor,
                )
            )
            items.append(_item(row, created, score, sims.get(int(row["id"]), 0.0)))
        items.sort(key=lambda it: (-it.score, -it.id))
        if self._config.correction_share > 0 and self._config.correction_top > 0:
            items = await self._lend_to_corrections(requester, items, incident_id)
        return items[:k]

    def _focused(self, requester: Requester, items: list[RecallItem]) -> list[RecallItem]:
        """Asked where nothing matches (a new incident's channel), the best match's channel is
        the incident the question is about: its notes get the boost the asker's own channel's
        notes get, so the rest of the answer comes from the same incident."""
        if not items or self._config.here_boost == 1.0:
            return items
        # Judged on what the floor will look at, so every caller's list is read alike.
        if any(it.channel_id == requester.channel_id for it in items[: self._config.candidates]):
            return items
        focus = items[0].channel_id
        boosted = [
            replace(it, score=it.score * self._config.here_boost) if it.channel_id == focus else it
            for it in items
        ]
        return sorted(boosted, key=lambda it: (-it.score, -it.id))

    async def _lend_to_corrections(
        self, requester: Requester, items: list[RecallItem], incident_id: str | None
    ) -> list[RecallItem]:
        """A later correction of a top item is likely what the question wants now ("who owns
        it now?"): it gets a share of the corrected item's score, found or not by the search."""
        by_id = {it.id: it for it in items}
        top = [it for it in items[: self._config.correction_top] if it.channel_id is not None]
        for channel in {it.channel_id for it in top}:
            mine = [it for it in top if it.channel_id == channel]
            rows = await self._shared_corrections(
                requester, str(channel), after_id=min(it.id for it in mine)
            )
            for row in rows:
                if incident_id is not None and row["incident_id"] != incident_id:
                    continue
                fix_id = int(row["id"])
                lent = max(
                    (
                        it.score * self._config.correction_share
                        for it in mine
                        if it.kind != "correction"
                        and corrects(
                            it.text,
                            it.id,
                            row["text"],
                            fix_id,
                            self._config.supersede,
                            earlier_kind=it.kind,
                        )
                    ),
                    default=0.0,
                )
                if lent <= 0:
                    continue
                known = by_id.get(fix_id)
                if known is None:
                    by_id[fix_id] = _item(row, parse_iso(row["created_at"]), lent)
                elif known.score < lent:
                    by_id[fix_id] = replace(known, score=lent)
        return sorted(by_id.values(), key=lambda it: (-it.score, -it.id))

    async def relevant(
        self,
        requester: Requester,
        query: str,
        *,
        incident: str | None = None,
        mode: Mode | None = None,
        ranked: list[RecallItem] | None = None,
        thread: AskedIn | None = None,
        listing: bool = False,
    ) -> list[RecallItem]:
        """What answers the question, best first: at most a few items, [] below the floor.
        `thread`: the thread it is asked in (its statements answer first; its opening is what
        "it" is about). `listing`: asked for a list (`/incident recall`), any item above the
        floor counts, however far behind the best one (still at most the floor's `most`).

        Each ranked candidate gets the floor's probability of being evidence; a later
        correction of a kept item (same channel, same subject) is put right above it and the
        item is marked superseded, so the newer statement wins. `ranked`: this question's
        `recall` already run (`answer` shares one ranking with `similar_incidents`)."""
        if asks_own_items(query) and requester.name:
            return await self._own_items(requester)
        mode = mode or self._config.mode
        floor = self._config.floors.get(mode if self._embedder is not None else "keyword")
        if listing and floor is not None:
            floor = replace(floor, ratio=0.0)
        if ranked is None:
            ranked = await self.recall(
                requester, query, k=self._config.candidates, incident=incident, mode=mode
            )
        if thread is not None and not asks_what_happened(query) and not asks_for_a_link(query):
            # The message the thread opened with is what the asker is looking at: context, not
            # an answer to "what should we adjust?" (it is one to "which alert fired?").
            ranked = [it for it in ranked if not _opens(it, requester, thread)]
        # Similar incidents read the ranking as it is (every incident); the answer, about one.
        ranked = self._focused(requester, ranked)[: self._config.candidates]
        # "any customer impact? need it for the exec update" is as close in meaning to "what's
        # the customer impact?" as a message gets, and answers nothing of it.
        ranked = [it for it in ranked if not only_asks(query, it.text)]
        if floor is None:
            return await self._with_this_incident(
                requester, query, await self._with_earlier(requester, query, ranked), thread
            )
        # An item the vector pass did not see (no vector yet: the index job embeds new notes
        # within a minute) is judged by the model fitted without similarity.
        words_only = self._config.floors.get("keyword", floor)

        subjects = await self.subjects(requester, ranked)

        def read(text: str) -> list[Features]:
            return [features(text, it, r, subjects.get(it.id, "")) for r, it in enumerate(ranked)]

        def judged(reads: list[Features]) -> list[float]:
            return [
                (floor if it.similarity > 0 else words_only).probability(f)
                for f, it in zip(reads, ranked, strict=True)
            ]

        # "Last time" is no word a past incident's note says. A question that asks for a kind of
        # statement ("what did we decide about the CDN last time?") is answered by the earlier
        # incident's statements (`_with_earlier`) and keeps it, so its kind word ("decide")
        # alone passes no decision.
        plain = not asked_kinds(query) and topic_words(query)
        reads = read(without_pointer_back(query) if plain else query)
        probabilities = judged(reads)
        chosen = floor.keep(probabilities)
        if wanted(query) == "duration" and not any(says_a_span(ranked[i].text) for i in chosen):
            # "How long was it down?": the item that says a span answers it, if it passes the
            # floor at all, however far the best item's words put it behind.
            spans = [
                i
                for i, it in enumerate(ranked)
                if probabilities[i] >= floor.floor and says_a_span(it.text)
            ]
            chosen += spans[:1]
        if wanted(query) == "link" and not any(holds("link", ranked[i].text, ()) for i in chosen):
            # "link to the lag dashboard?": the message that gives an address for what is named
            # answers it, however few of the question's words it says besides.
            links = [
                i
                for i, it in enumerate(ranked)
                if reads[i].coverage > 0 and holds("link", it.text, ())
            ]
            chosen += links[:1]
        parts = clauses(query)
        # A question that asks two things: each part may add the item that best answers it,
        # from the incident (channel) the answer leads with.
        lead = ranked[min(chosen)].channel_id if chosen else None
        for part in parts if len(parts) > 1 else []:
            answers = judged(read(part))
            same = [i for i in floor.keep(answers) if lead is None or ranked[i].channel_id == lead]
            if same:
                best = max(same, key=answers.__getitem__)
                if best not in chosen:
                    chosen.append(best)
                lead = lead or ranked[best].channel_id
        # Of the kept items, the one that says all of what is asked leads one that says only
        # part of it ("did we fail back?": "failed back to redis-sess-a" over "failed over …,
        # writes back"), however search ranked them. "Follow-ups:" heads the items under it,
        # and answers nothing itself.
        kept = [
            replace(ranked[i], relevance=probabilities[i])
            for i in sorted(chosen, key=lambda i: (reads[i].coverage < 1.0, i))
            if not is_heading(ranked[i].text)
        ]
        if wanted(query) == "duration":  # the item that says how long leads the kept ones
            kept.sort(key=lambda it: not says_a_span(it.text))
        elif wanted(query) == "link":
            kept.sort(key=lambda it: not holds("link", it.text, ()))
        elif wanted(query) == "reason":
            kept = explanations_first(kept)
        kept = await self._with_what_they_correct(requester, kept, ranked)
        most = floor.most + len(parts) - 1
        items = await self._with_corrections(requester, kept)
        items = await self._with_current_value(requester, query, items)
        items = (await self._with_current_state(requester, query, items))[:most]
        items = await self._with_outcome(requester, query, items, ranked)
        items = await self._with_earlier(requester, query, items, ranked)
        items = await self._with_this_incident(requester, query, items, thread)
        items = await self._with_how_long_here(requester, query, items)
        items = await self._with_when_here(requester, query, items)
        items = await self._with_impact_here(requester, query, items)
        items = await self._with_explanation_here(requester, query, items)
        items = await self._with_item_elsewhere(requester, query, items, ranked)
        items = await self._with_said_time(requester, query, items, ranked)
        return await self._with_follow_through(requester, items)

    def _what_it_corrects(
        self,
        fix_id: int,
        fix_text: str,
        channel_id: str | None,
        candidates: list[RecallItem],
        *,
        least: int = 0,
    ) -> RecallItem | None:
        """Of `candidates`, the statement a correction says most about, with at least `least`
        words in common (`supersede.overlap`); its first clause breaks a tie, then rank: "roll
        back to v39 instead, v40 has the payments bug too" is about the rollback decision, not
        the payments root cause beside it."""
        said = _first_clause(fix_text)
        config = self._config.supersede
        about = [
            (overlap(c.text, fix_text, config), overlap(c.text, said), -rank, c)
            for rank, c in enumerate(candidates)
            if c.kind != "correction"
            and c.channel_id == channel_id
            and corrects(c.text, c.id, fix_text, fix_id, config, earlier_kind=c.kind)
        ]
        best = max((a for a in about if a[0] >= least), default=None, key=lambda a: a[:3])
        return best[3] if best is not None else None

    async def _said_before(
        self, requester: Requester, channel_id: str, fix_id: int
    ) -> list[RecallItem]:
        """The statements said in the channel before a correction, newest first: what it may
        be about, whether or not search ranked them ("scratch that theory" is about the
        theory, which a question about the nodes never finds)."""
        rows = await self._shared_in_channel(requester, channel_id, before_id=fix_id)
        return [_item(r, parse_iso(r["created_at"]), 0.0) for r in rows]

    async def _what_it_corrects_in_channel(
        self,
        requester: Requester,
        fix_id: int,
        fix_text: str,
        channel_id: str | None,
        candidates: list[RecallItem],
        *,
        least: int = 0,
    ) -> RecallItem | None:
        """`_what_it_corrects` over `candidates` and everything said before the correction in
        its channel: a correction corrects one statement, the one it says most about, so it
        never marks another that merely shares its words superseded. `candidates` win ties."""
        if channel_id is None:
            return None
        known = {c.id for c in candidates}
        earlier = [
            it
            for it in await self._said_before(requester, channel_id, fix_id)
            if it.id not in known
        ]
        return self._what_it_corrects(
            fix_id, fix_text, channel_id, [*candidates, *earlier], least=least
        )

    async def _with_what_they_correct(
        self, requester: Requester, kept: list[RecallItem], ranked: list[RecallItem]
    ) -> list[RecallItem]:
        """A kept correction without what it corrects brings the candidate it is plainly about:
        the same item, or as many shared words as link a correction however late ("checkout"
        alone links a pager handover to no root cause). "sure, I'll take AI-1 over" says who
        owns AI-1 now, and only the item it takes over ("AI-1: move the rebuild to 03:00.
        owner Raj") says what AI-1 is. It is shown under the correction, marked superseded
        (`_with_corrections`)."""
        out, shown = list(kept), {k.id for k in kept}
        for fix in kept:
            if fix.kind != "correction" or fix.scope == "user" or fix.channel_id is None:
                continue
            found = await self._what_it_corrects_in_channel(
                requester,
                fix.id,
                fix.text,
                fix.channel_id,
                ranked,
                least=self._config.supersede.shared_words,
            )
            if found is not None and found.id not in shown:
                out.append(replace(found, relevance=fix.relevance))
                shown.add(found.id)
        return out

    async def _with_current_value(
        self, requester: Requester, query: str, items: list[RecallItem]
    ) -> list[RecallItem]:
        """ "What's maxclients set to now?": the newest statement in the lead item's channel
        that gives the question's subject a value leads ("maxclients back to 10000 at 09:55"),
        the lead kept under it. Search ranks by shared words, so it often leads with an earlier
        value ("bumped maxclients to 20000") or an item that only names the setting ("alert
        at 80% of maxclients"). A lead that gives a value itself is replaced only by a later one."""
        if not items or not asks_current_value(query):
            return items
        lead = items[0]
        subject = subject_of(query)
        if lead.channel_id is None or not subject:
            return items
        rows = await self._shared_in_channel(requester, lead.channel_id)
        # An open to-do ("add an alert at 80% of maxclients") says what the value is not; any
        # other lead is replaced only by a later word on the value.
        to_do = lead.kind == "action" and not done_keys(lead.text)
        # What the incident's title says goes unsaid in its channel: "the memory limit" in the
        # appointment-svc incident's channel is that service's.
        known = await self._title_words(requester, lead.incident_id)
        after = 0 if to_do and not gives_value(lead.text, subject, known=known) else lead.id
        newest = next(
            (
                r
                for r in rows
                if int(r["id"]) > after
                and not str(r["text"]).rstrip().endswith("?")
                and gives_value(str(r["text"]), subject, known=known)
            ),
            None,
        )
        if newest is None or int(newest["id"]) == lead.id:
            return items
        now = replace(
            _item(newest, parse_iso(newest["created_at"]), lead.score), relevance=lead.relevance
        )
        # A later correction of the value ("scratch that, maxclients is 25000") goes above it;
        # the items after it had theirs applied already.
        return _leading(await self._with_corrections(requester, [now]), items)

    async def _with_said_time(
        self, requester: Requester, query: str, items: list[RecallItem], ranked: list[RecallItem]
    ) -> list[RecallItem]:
        """ "What changed at 13:50?": the statements that say that time lead (up to two, in the
        order said: the report made then before a later summary that names it), from the channel
        asked in, else from the incident search ranked first (first, when the question names an
        incident: "in the etcd incident, what happened at 13:50?"). Search reads "13:50" as two
        numbers every other time shares, so the floor often keeps none."""
        times = times_in(query)
        if not times:
            return items
        # A question that names an incident ("in the etcd incident, …") is about the one search
        # found elsewhere, not the channel asked in.
        elsewhere = _NAMES_AN_INCIDENT.search(query) is not None
        top = next(
            (
                it.channel_id
                for it in ranked
                if it.scope != "user" and not (elsewhere and it.channel_id == requester.channel_id)
            ),
            None,
        )
        channels = [top, requester.channel_id] if elsewhere else [requester.channel_id, top]
        for channel in dict.fromkeys(c for c in channels if c):
            said = [
                r
                for r in await self._shared_in_channel(requester, channel)
                if not str(r["text"]).rstrip().endswith("?") and says_time(str(r["text"]), times)
            ]
            if said:
                found = await self._as_items(
                    requester, sorted(said, key=lambda r: int(r["id"]))[:2]
                )
                # (no longer an answer than the floor allows: what it kept gives way)
                return _leading(found, items)[: max(len(items), len(found))]
        return items

    async def _with_current_state(
        self, requester: Requester, query: str, items: list[RecallItem]
    ) -> list[RecallItem]:
        """ "Is the lag gone?": the newest report (never an action item or a decision) that names
        the question's subject leads ("lag at 0 as of 10:31. resolving"), a status said after it
        under it, then what search kept. Read in the channel asked in (a live incident's own
        word on its lag), else in the lead item's. Search ranks the first report that named the
        lag ("lag climbing since ~09:40") as high as the last word on it."""
        if not asks_current_state(query):
            return items
        subject = state_subject(query)
        if not subject and not _OUTAGE_STATE.search(query):
            return items  # "is it still running?": "it" is what the thread opened with
        # "Are we still degraded?", "is it fixed?" name nothing but the outage: the newest
        # report is on it.
        outage_only = subject <= _THE_OUTAGE
        lead = items[0] if items else None
        for channel in dict.fromkeys(
            c for c in (requester.channel_id, lead.channel_id if lead else None) if c
        ):
            # A lead that says what is to be done, or why it broke, says nothing of how it
            # stands: any report may replace it; a lead that reports, only a later one.
            after = (
                lead.id
                if lead is not None
                and lead.channel_id == channel
                and lead.kind not in _TO_BE_DONE
                and lead.kind != "root_cause"
                else 0
            )
            rows = [
                r
                for r in await self._shared_in_channel(requester, channel)
                if int(r["id"]) > after and not str(r["text"]).rstrip().endswith("?")
            ]
            incident = next((str(r["incident_id"]) for r in rows if r["incident_id"]), None)
            # What the incident's title says goes unsaid in its channel.
            known = await self._title_words(requester, incident)
            on_it = [
                r
                for r in rows
                if r["kind"] not in _TO_BE_DONE
                and (
                    _says_how_it_stands(r)
                    if outage_only
                    else names_subject(str(r["text"]), subject, known=known)
                )
            ]
            # A root cause that names the subject ("… stayed on the lossy link") says why it
            # broke, not how it stands: the newest other word on it leads.
            newest = next((r for r in on_it if r["kind"] != "root_cause"), None)
            if newest is None and on_it:
                newest = on_it[0]
            if newest is None:
                continue
            status = next(
                (r for r in rows if r["kind"] == "status" and int(r["id"]) > int(newest["id"])),
                None,
            )
            # A change still to be made on it ("bo to switch pgbouncer to transaction pooling")
            # says it is not done yet: it follows the report, before the incident's status.
            done = {k for r in rows for k in done_keys(str(r["text"]))}
            pending = (
                lead
                if lead is not None
                and lead.kind in _TO_BE_DONE
                and lead.channel_id == channel
                # a plan said before the newest report is not put above the status
                and lead.id > int(newest["id"])
                and names_subject(lead.text, subject, known=known)
                and not _all_done(item_references(lead.text, any_case=True), done)
                else None
            )
            score, relevance = (lead.score, lead.relevance) if lead is not None else (1.0, 0.0)
            led = [
                replace(_item(newest, parse_iso(newest["created_at"]), score), relevance=relevance)
            ]
            led += [pending] if pending is not None else []
            if status is not None:
                led.append(
                    replace(
                        _item(status, parse_iso(status["created_at"]), score), relevance=relevance
                    )
                )
            return _leading(led, items)
        return items

    async def _shared_in_channel(
        self, requester: Requester, channel_id: str, *, before_id: int = NEWEST_ID
    ) -> list[Row]:
        """The statements said last in a channel (before note `before_id`), newest first, as the
        requester may see them, never a personal one whatever the store returned: the answers
        they lead are shared."""
        rows = await note_store.earlier_in_channel(
            self._db,
            requester,
            channel_id=channel_id,
            before_id=before_id,
            limit=self._config.supersede.looks_back,
        )
        return [r for r in rows if r["scope"] != "user"]

    async def subjects(self, requester: Requester, items: list[RecallItem]) -> dict[int, str]:
        """The title of the incident each item belongs to, by item id. Messages leave unsaid
        what their channel is about ("we were hard down for ~31 min" in #inc-410-api-gw-cert),
        while someone asking names it ("how long was api-gw down?"). Every item is read with
        its own incident's title, the asker's included, so a past incident of the same title
        gains nothing over this one."""
        from memory.incidents import Incidents

        incidents = Incidents(self._db, self._clock)
        titles: dict[str, str] = {}
        out: dict[int, str] = {}
        for it in items:
            if it.incident_id is None:
                continue
            if it.incident_id not in titles:
                incident = await incidents.get_visible(requester, it.incident_id)
                titles[it.incident_id] = incident.title if incident is not None else ""
            out[it.id] = titles[it.incident_id]
        return out

    async def _title_words(self, requester: Requester, incident_id: str | None) -> set[str]:
        """The stems of an incident's title: what goes unsaid in its own channel."""
        if incident_id is None:
            return set()
        from memory.incidents import Incidents

        incident = await Incidents(self._db, self._clock).get_visible(requester, incident_id)
        return stems(expand_identifiers(incident.title)) if incident is not None else set()

    async def _with_outcome(
        self,
        requester: Requester,
        query: str,
        items: list[RecallItem],
        ranked: list[RecallItem] | None = None,
    ) -> list[RecallItem]:
        """ "Did raising the limit help?": the lead item is the change, and the first reply after
        it in its thread that reports an effect ("no change, it's not cpu") is shown right under
        it. The reply rarely shares a word with the question, so the floor alone drops it.
        With nothing kept, a ranked candidate that names the change and reports its effect
        itself answers ("warming done 11:40, hit ratio back to 88%")."""
        if not asks_outcome(query):
            return items
        if not items:
            topic = topic_words(query) - OUTCOME_WORDS  # what was changed, not "help"
            said = next(
                (
                    it
                    for it in ranked or []
                    # Never a personal row: the answer is read by others.
                    if it.scope != "user"
                    and it.kind in REPORT_KINDS
                    and reports_outcome(it.text)
                    and topic & stems(expand_identifiers(it.text))
                ),
                None,
            )
            return [said] if said is not None else items
        lead = items[0]
        if lead.channel_id is None or lead.scope == "user" or reports_outcome(lead.text):
            return items
        rows = await note_store.replies_to(self._db, requester, lead.id, limit=OUTCOME_WINDOW)
        # Never a personal row, whatever the store returned: the answer is read by others.
        shared = [r for r in rows if r["scope"] != "user" and r["kind"] in REPORT_KINDS]
        reply = next((r for r in shared if reports_outcome(str(r["text"]))), None)
        if reply is None:
            return items
        reply_id = int(reply["id"])
        shown = next((it for it in items if it.id == reply_id), None)
        if shown is None:
            shown = replace(
                _item(reply, parse_iso(reply["created_at"]), lead.score),
                relevance=lead.relevance,
            )
        rest = [it for it in items[1:] if it.id != reply_id]
        return [lead, replace(shown, follows=lead.id), *rest]

    async def _with_follow_through(
        self, requester: Requester, items: list[RecallItem]
    ) -> list[RecallItem]:
        """A decision or action item shown brings the reply that reports it done, right under
        it: "cordon the 3 nodes" → "done, cordoned ip-10-2-3-4, ip-10-2-7-9"; "raise the limit
        to 200Mi" → "limit raised to 200Mi and rolled out". That reply says which nodes and
        what limit, and shares too few words with the question for the floor to keep it."""
        out, shown, added = list(items), {it.id for it in items}, 0
        for item in items:
            if added >= FOLLOW_THROUGH_MOST:
                break
            if (
                item.kind not in ("decision", "action")
                or item.scope == "user"
                or item.channel_id is None
                or any(item.id in (o.follows, o.done_for) for o in out)
            ):
                continue
            rows = await note_store.replies_to(self._db, requester, item.id, limit=OUTCOME_WINDOW)
            # Never a personal row, whatever the store returned: the answer is read by others.
            report = next(
                (
                    r
                    for r in rows
                    if r["scope"] != "user"
                    and r["kind"] in REPORT_KINDS
                    and carries_out(item.text, str(r["text"]))
                ),
                None,
            )
            if report is None or int(report["id"]) in shown:
                continue
            at = next(i for i, o in enumerate(out) if o.id == item.id)
            done = _item(report, parse_iso(report["created_at"]), item.score)
            out.insert(at + 1, replace(done, relevance=item.relevance, done_for=item.id))
            shown.add(done.id)
            added += 1
        return out

    async def _with_this_incident(
        self,
        requester: Requester,
        query: str,
        items: list[RecallItem],
        thread: AskedIn | None = None,
    ) -> list[RecallItem]:
        """ "What did we decide?", "who owns it?", "why did it fill up?" asked in an incident's
        channel are about that incident. A question that names only the kind of statement
        (no topic words) is answered by the incident's newest statements of that kind, ahead
        of what search found elsewhere. One with topic words, only when search kept nothing of
        the kind asked ("why was the replica lagging?" kept the alert, no root cause), and only
        by statements that, with the incident's subject (its
        title, the thread's `opening`), account for every topic word: "why did it fill up?"
        under a FillingUp alert gets the root cause; "who owns the payments service?" does not
        get the incident's action items. Kind words are in no statement ("decide" is in no
        decision), so search alone misses these."""
        kinds = asked_kinds(query)
        if not kinds or about_an_earlier_incident(query):
            return items
        # "Why was it slow?": the outage itself, which the incident is, names nothing more;
        # "what should I tell customers? are orders lost?" asks where this incident stands.
        topic = set() if asks_what_to_tell(query) else topic_words(query) - OUTAGE_WORDS
        if items and topic and any(i.kind in kinds for i in items):
            return items
        said = await self._this_incidents(
            requester, kinds, topic=topic, thread=thread, open_only=asks_open_items(query)
        )
        shown = {i.id for i in said}
        return said + [i for i in items if i.id not in shown]

    async def _with_how_long_here(
        self, requester: Requester, query: str, items: list[RecallItem]
    ) -> list[RecallItem]:
        """ "How long did it last?" asked in an incident's channel, naming nothing but the
        outage: the statement of the incident that says how long, its status first ("impact was
        39 minutes of slow orders pages (14:50-15:29)"), leads what search kept."""
        if wanted(query) != "duration" or about_an_earlier_incident(query):
            return items
        if topic_words(question_topic(query)) - OUTAGE_WORDS:
            return items
        if any(says_a_span(it.text) for it in items[:1]):
            return items
        incident = await self._incident_asked_in(requester)
        if incident is None:
            return items
        rows = await self._shared_statements(requester, incident.id, kinds=EVERY_KIND)
        spans = [r for r in rows if says_how_long(str(r["text"]))]
        best = sorted(spans, key=lambda r: r["kind"] != "status")[:1]
        return _leading(await self._as_items(requester, best), items) if best else items

    async def _with_when_here(
        self, requester: Requester, query: str, items: list[RecallItem]
    ) -> list[RecallItem]:
        """ "When did it start?", "when was it fixed?" asked in an incident's channel: the
        incident's messages that say when it began and when it recovered lead what search kept
        (`timeline`)."""
        asked = asks_when(query)
        if not asked:
            return items
        incident = await self._incident_asked_in(requester)
        if incident is None:
            return items
        rows = await self._shared_statements(
            requester, incident.id, kinds=EVERY_KIND, limit=TIMELINE_LOOKS_AT, oldest_first=True
        )
        said = start_and_end(rows, asked)
        if "end" in asked and len(rows) >= TIMELINE_LOOKS_AT and len(said) < len(asked):
            # An incident longer than that recovered after its first messages: the newest ones
            # hold it.
            newest = await self._shared_statements(
                requester, incident.id, kinds=EVERY_KIND, limit=TIMELINE_LOOKS_AT
            )
            said += [r for r in start_and_end(newest[::-1], ("end",)) if r not in said]
        return _leading(await self._as_items(requester, said), items) if said else items

    async def _with_explanation_here(
        self, requester: Requester, query: str, items: list[RecallItem]
    ) -> list[RecallItem]:
        """ "Why did the consumers keep rebalancing?" asked in an incident's channel: the
        message that explains the report of what is asked, as the incident's messages say it
        in order (`explanations`), leads with that report under it, unless something this
        incident's search kept, other than that report, already answers: a root cause, a line
        that explains or rules out, or a statement on what is asked ("why didn't we roll
        back?": the decision "… rather than rolling back")."""
        asked = next((part for part in clauses(query) if wanted(part) == "reason"), None)
        if asked is None or about_an_earlier_incident(query):
            return items
        incident = await self._incident_asked_in(requester)
        if incident is None:
            return items
        # "Why did the alert fire late, and what would have caught it?": the why is asked of
        # its own clause's words.
        topic = topic_words(asked) - OUTAGE_WORDS
        rows = await self._shared_statements(
            requester, incident.id, kinds=EVERY_KIND, limit=TIMELINE_LOOKS_AT, oldest_first=True
        )
        found = explanation_of(rows, topic)
        if not found:
            return items
        report = int(found[-1]["id"])
        if any(
            it.incident_id == incident.id
            and it.id != report
            and (
                it.kind == "root_cause"
                or reasons(it.text)
                or (it.kind in STATEMENT_KINDS and states(topic, it.text))
            )
            for it in items
        ):
            return items
        return _leading(await self._as_items(requester, found), items)

    async def _with_impact_here(
        self, requester: Requester, query: str, items: list[RecallItem]
    ) -> list[RecallItem]:
        """ "What's the customer impact?" asked in an incident's channel: the incident's newest
        message that states its impact leads what search kept (`impact`)."""
        if not asks_impact(query):
            return items
        incident = await self._incident_asked_in(requester)
        if incident is None:
            return items
        if items and items[0].incident_id == incident.id and says_impact(items[0].text):
            return items  # search already led with this incident's impact
        rows = await self._shared_statements(
            requester, incident.id, kinds=EVERY_KIND, limit=TIMELINE_LOOKS_AT
        )
        said = newest_impact(rows)
        return _leading(await self._as_items(requester, [said]), items) if said else items

    async def _with_item_elsewhere(
        self,
        requester: Requester,
        query: str,
        items: list[RecallItem],
        ranked: list[RecallItem],
    ) -> list[RecallItem]:
        """ "Who owns the single-rebuilder lock work now?" asked in another channel: the action
        item of the incident search ranked first that says at least half of the question's
        topic words ("AI-1: implement the single-flight lock … owner Ben"), with any handover
        above it. Only for a question that names an item ("follow-up", "action item", "work")
        and kept no action item: "who owns the payments service?" is no follow-up."""
        if any(it.kind == "action" for it in items) or not _NAMES_AN_ITEM.search(query):
            return items
        if "action" not in asked_kinds(query) or about_an_earlier_incident(query):
            return items
        top = next((it for it in ranked if it.scope != "user"), None)
        if top is None or top.incident_id is None or top.channel_id == requester.channel_id:
            return items
        # The incident's title names the incident ("the kafka lag incident"), not the item.
        title = await self._title_words(requester, top.incident_id)
        topic = topic_words(query) - _ITEM_WORDS - title
        rows = await note_store.incident_statements(
            self._db, requester, top.incident_id, kinds=("action",)
        )
        # Never a personal row, whatever the store returned: the answer is shared.
        said = [
            (len(topic & stems(expand_identifiers(str(r["text"])))), int(r["id"]), r)
            for r in rows
            if r["scope"] != "user"
        ]
        best = max(said, default=None, key=lambda s: s[:2])
        if best is None or not topic or best[0] * 2 < len(topic):
            return items
        return _leading(await self._as_items(requester, [best[2]]), items)

    async def _this_incidents(
        self,
        requester: Requester,
        kinds: tuple[str, ...],
        *,
        topic: set[str] | frozenset[str] = frozenset(),
        thread: AskedIn | None = None,
        most: int = 2,
        open_only: bool = False,
    ) -> list[RecallItem]:
        """The newest statements of `kinds` of the incident whose channel the question is asked
        in ([] outside one) that cover the `topic` words left uncovered by the incident's
        subject; those said in the `thread` asked in first (an incident channel holds several
        alerts' threads), else the incident's. A later correction above what it corrects.
        `open_only`: the action items nobody said are done, up to `open_items.MOST`. Never
        personal rows (the answer is shared)."""
        incident = await self._incident_asked_in(requester)
        if incident is None:
            return []
        opening = thread.opening if thread else None
        left = set(topic) - stems(expand_identifiers(f"{incident.title}\n{opening or ''}"))
        said = []
        if thread is not None:
            said = await self._statements(requester, incident.id, kinds, left, thread.thread_ts)
        if not said:
            said = await self._statements(requester, incident.id, kinds, left, None)
        if open_only:
            said, most = await self._still_open(requester, incident.id, said), OPEN_MOST
        return await self._as_items(requester, said[:most])

    async def _incident_asked_in(self, requester: Requester) -> Incident | None:
        """The incident whose channel the question is asked in (None outside one)."""
        if not requester.channel_id:
            return None
        from memory.incidents import Incidents

        return await Incidents(self._db, self._clock).for_channel(
            requester.team_id, requester.channel_id
        )

    async def _own_items(self, requester: Requester) -> list[RecallItem]:
        """ "What do I owe here?": the open action items of the incident asked in that name the
        asker as owner, newest first; with none there, those of the other recent incidents the
        asker may see ("what do I owe?" asked from the next day's incident channel) ([] when
        none, or outside an incident's channel). Never a personal row, whatever the store
        returned: the answer is posted in the thread."""
        from memory.incidents import Incidents

        incident = await self._incident_asked_in(requester)
        if incident is None:
            return []
        mine = await self._owed_in(requester, incident.id)
        if not mine:
            recent = await Incidents(self._db, self._clock).list_recent(
                requester, limit=OWED_INCIDENTS_BACK
            )
            for other in recent:
                if other.id != incident.id and len(mine) < OPEN_MOST:
                    mine += await self._owed_in(requester, other.id)
        return await self._as_items(requester, mine[:OPEN_MOST])

    async def _owed_in(self, requester: Requester, incident_id: str) -> list[Row]:
        """The open action items of one incident that name the asker as owner, newest first."""
        shared = await self._shared_statements(
            requester, incident_id, kinds=("action", "correction"), limit=200
        )
        # An item handed over by its key ("I'll hand AI-1 over to @joe") is the newest
        # handover's taker's, whoever the item first named (rows are newest first).
        taken: dict[str, bool] = {}
        for r in shared:
            if r["kind"] == "correction":
                for key in handed_over_keys(str(r["text"])):
                    taken.setdefault(key, _owns(r, requester.name))
        actions = [r for r in shared if r["kind"] == "action"]
        done = await self._done_keys(requester, incident_id)
        return [
            r
            for r in actions
            if not _all_done(item_references(str(r["text"]), any_case=True), done)
            and next(
                (taken[k] for k in item_references(str(r["text"]), any_case=True) if k in taken),
                _owns(r, requester.name, done),
            )
        ]

    async def _done_keys(self, requester: Requester, incident_id: str) -> set[str]:
        """The item keys the incident's messages say are done ("AI-2 done, added to the wiki")."""
        said = await self._shared_statements(requester, incident_id, kinds=DONE_KINDS, limit=200)
        return {k for r in said for k in done_keys(str(r["text"]))}

    async def _still_open(
        self, requester: Requester, incident_id: str, rows: list[Row]
    ) -> list[Row]:
        """Of an incident's action `rows`, those whose item nobody in the incident has said is
        done ("AI-2 done, added to the wiki" closes AI-2, and is itself no open item)."""
        done = await self._done_keys(requester, incident_id)
        # A message listing several items ("AI-1 …, AI-2 …, AI-3 …") stays open until every
        # one of them is done.
        return [
            r for r in rows if not _all_done(item_references(str(r["text"]), any_case=True), done)
        ]

    async def _statements(
        self,
        requester: Requester,
        incident_id: str,
        kinds: tuple[str, ...],
        left: set[str],
        thread_ts: str | None,
    ) -> list[Row]:
        """The incident's shared statements of `kinds` (in one thread, if given) that say every
        word in `left`."""
        rows = await note_store.incident_statements(
            self._db, requester, incident_id, kinds=kinds, thread_ts=thread_ts
        )
        shared = [r for r in rows if r["scope"] != "user"]
        return [r for r in shared if left <= stems(expand_identifiers(str(r["text"])))]

    async def _with_earlier(
        self,
        requester: Requester,
        query: str,
        items: list[RecallItem],
        ranked: list[RecallItem] | None = None,
    ) -> list[RecallItem]:
        """ "What did we decide last time?": the latest earlier incident's statements of the
        kinds asked for lead (`memory.recall.earlier`); search has no words to find them by."""
        kinds = asked_kinds(query)
        if not kinds:
            return items
        if not about_an_earlier_incident(query):
            named = await self._with_named_incidents(requester, kinds, query, items)
            if named is not items:
                return named
            return await self._bridged(requester, kinds, query, items)
        # The incident the best answer comes from, when it is not the one asked in: its
        # statements answer when none of the latest incidents' share the question's words.
        # With no answer kept, the best-ranked message elsewhere that says most of the
        # question's topic ("why did renewal fail last time?": "renewal job has been failing")
        # points at it: the cause asked for is said in other words.
        elsewhere = [i for i in items if i.incident_id and i.channel_id != requester.channel_id]
        if not elsewhere:
            topic = topic_words(query)
            # Half the topic, and two of its words when it has two: "the kafka lag" is not
            # said by "the pg dashboard lagged 2 min behind".
            elsewhere = [
                i
                for i in ranked or []
                if i.incident_id
                and i.channel_id != requester.channel_id
                and i.scope != "user"
                and topic
                and 2 * len(topic & stems(i.text)) >= len(topic)
                and len(topic & stems(i.text)) >= min(2, len(topic))
            ]
        matched = elsewhere[0].incident_id if elsewhere else None
        earlier = await self._earlier_statements(requester, kinds, query, matched=matched)
        shown = {e.id for e in earlier}
        # "Last time" is another incident when one answers: what was said in this channel then
        # answers nothing ("what did we do last time it spiked?" with no earlier incident on
        # it means earlier in this one).
        return earlier + [
            i
            for i in items
            if i.id not in shown and not (earlier and i.channel_id == requester.channel_id)
        ]

    async def _bridged(
        self,
        requester: Requester,
        kinds: tuple[str, ...],
        query: str,
        items: list[RecallItem],
        most: int = 1,
    ) -> list[RecallItem]:
        """ "How did we fix the stuck partition?" finds the message that names the problem
        ("every consumer is stuck on the same partition, p7"), not the statement asked for
        ("decision: skip the bad offset on p7"): the words of the question are in the one, the
        fix in the other. When the question asks what was done or decided and the best item
        says neither (nor corrects anything), the statement of those kinds from its incident
        that shares the most words with it (here "p7") leads above it. Never for a cause ("why
        was the live-blog ruled out?"): the message that matches a "why" is as often the
        explanation itself."""
        lead = items[0] if items else None
        done = tuple(k for k in kinds if k in _DONE_OR_DECIDED)
        if lead is None or lead.kind in _ANSWERS_ITSELF or lead.incident_id is None or not done:
            return items
        rows = await note_store.incident_statements(
            self._db, requester, lead.incident_id, kinds=done
        )
        # What links the fix to the report is what the report says beyond the question's own
        # words; numbers ("2%", "10:30") link nothing.
        said = {w for w in stems(expand_identifiers(lead.text)) if not w.isdigit()}
        said -= stems(query)
        shared = [
            (len(said & stems(expand_identifiers(str(r["text"])))), -i, r)
            for i, r in enumerate(rows)
            if r["scope"] != "user"
        ]
        best = [r for n, _, r in sorted(shared, key=lambda t: t[:2], reverse=True) if n][:most]
        # A later correction of the bridged statement ("scratch that, skip to the next offset")
        # is put above it, as for any item shown.
        bridged = await self._with_corrections(requester, await self._as_items(requester, best))
        shown = {b.id for b in bridged}
        return bridged + [i for i in items if i.id not in shown]

    async def _with_named_incidents(
        self,
        requester: Requester,
        kinds: tuple[str, ...],
        query: str,
        items: list[RecallItem],
        *,
        incidents_back: int = 5,
        most: int = 2,
    ) -> list[RecallItem]:
        """ "What was the root cause of the search latency incident?" names an incident by its
        title, not by any word of the statement asked for ("turns out the synonyms cron flushed
        the cache"): the newest statements of the kinds asked for from the latest incident
        (not the one asked in) whose title holds every topic word of the question lead."""
        topic = topic_words(query)
        # One word ("search") is in many titles; "the search incident" says it names one.
        if not topic or (len(topic) < 2 and not _NAMES_AN_INCIDENT.search(query)):
            return items
        from memory.incidents import Incidents

        incidents = Incidents(self._db, self._clock)

        def titled(incident: Incident) -> bool:
            return topic <= stems(expand_identifiers(incident.title))

        if requester.channel_id:
            here = await incidents.for_channel(requester.team_id, requester.channel_id)
            if here is not None and titled(here):
                # Asked in a repeat of it: about this one (`_with_this_incident`), unless this
                # one has said nothing of the kind yet ("any open action items from the db
                # pool incident?" asked in "db pool again" means the earlier one's).
                own = await note_store.incident_statements(
                    self._db, requester, here.id, kinds=kinds, limit=1
                )
                if any(r["scope"] != "user" for r in own):
                    return items
        recent = await incidents.list_recent(requester, limit=incidents_back + 1)
        earlier = [i for i in recent if i.channel_id != requester.channel_id]
        named = next((i for i in earlier if titled(i)), None)
        if named is None and _NAMES_AN_INCIDENT.search(query):
            # "the dns incident" for "coredns timeouts": named by what it was about, which its
            # root cause and decisions say ("node-local-dns OOMKilled …") when its title does not.
            named = await self._incident_about(requester, topic, earlier)
        if named is None:
            return items
        rows = await note_store.incident_statements(self._db, requester, named.id, kinds=kinds)
        rows = [r for r in rows if r["scope"] != "user"]
        if asks_open_items(query) and "action" in kinds:
            rows, most = await self._still_open(requester, named.id, rows), OPEN_MOST
        said = await self._as_items(requester, rows[:most])
        shown = {s.id for s in said}
        return said + [i for i in items if i.id not in shown]

    async def _incident_about(
        self, requester: Requester, topic: set[str], incidents: list[Incident]
    ) -> Incident | None:
        """The latest of `incidents` whose title and headline statements (root causes,
        decisions, mitigations, status) hold every topic word."""
        for incident in incidents:
            rows = await note_store.incident_statements(self._db, requester, incident.id, limit=20)
            said = " ".join(
                [incident.title, *(str(r["text"]) for r in rows if r["scope"] != "user")]
            )
            if topic <= stems(expand_identifiers(said)):
                return incident
        return None

    async def _shared_corrections(
        self, requester: Requester, channel_id: str, *, after_id: int
    ) -> list[Row]:
        """Corrections said in the channel after `after_id` that others may read: a personal
        note never marks a shared statement superseded in an answer others read (the store's
        query excludes them too)."""
        rows = await note_store.later_corrections(
            self._db, requester, channel_id=channel_id, after_id=after_id, limit=50
        )
        return [
            r
            for r in rows
            if r["scope"] != "user" and (r["kind"] == "correction" or claims_work(str(r["text"])))
        ]

    async def _with_corrections(
        self, requester: Requester, items: list[RecallItem]
    ) -> list[RecallItem]:
        out: list[RecallItem] = []
        # Each correction supersedes only the shown item it says most about (judged once).
        about: dict[int, RecallItem | None] = {}

        async def most_about(fix: Row) -> RecallItem | None:
            fix_id = int(fix["id"])
            if fix_id not in about:
                about[fix_id] = await self._what_it_corrects_in_channel(
                    requester, fix_id, str(fix["text"]), fix["channel_id"], items
                )
            return about[fix_id]

        for item in items:
            fix = None
            if item.channel_id is not None and item.kind != "correction":
                rows = await self._shared_corrections(requester, item.channel_id, after_id=item.id)
                fixes = [
                    r
                    for r in rows
                    if corrects(
                        item.text,
                        item.id,
                        r["text"],
                        int(r["id"]),
                        self._config.supersede,
                        earlier_kind=item.kind,
                    )
                    and await most_about(r) is item
                ]
                fix = fixes[-1] if fixes else None  # the latest word on it wins
            if fix is None:
                if item.id not in {o.id for o in out}:
                    out.append(item)
                continue
            fix_id = int(fix["id"])
            placed = next((i for i, o in enumerate(out) if o.id == fix_id), None)
            if placed is None:
                correction = next((it for it in items if it.id == fix_id), None)
                if correction is None:
                    correction = _item(fix, parse_iso(fix["created_at"]), item.score, 0.0)
                out.append(replace(correction, corrects=item.id, relevance=item.relevance))
            elif out[placed].corrects is None:
                # The correction ranked above what it corrects: it already leads; say what it fixes.
                out[placed] = replace(out[placed], corrects=item.id)
            out.append(replace(item, superseded_by=fix_id))
        return out

    async def answer(
        self,
        requester: Requester,
        query: str,
        *,
        similar: int = 3,
        thread: AskedIn | None = None,
        vague: bool = False,
        asks_fix: bool = False,
    ) -> tuple[list[RecallItem], list[IncidentMatch]]:
        """`relevant` and `similar_incidents` of one question from one ranking: a mention needs
        both, and running the search twice doubled its cost. `thread`: the thread the question
        is asked in. A `vague` question names nothing ("next steps?", "seen this before?"):
        similar incidents are looked for with the thread's opening before it;
        one that `asks_fix` ("what do we do now?") and finds nothing on its words is answered
        with what the incident decided and did so far."""
        if (
            thread is not None
            and thread.opening
            and about_an_earlier_incident(query)
            and not topic_words(question_topic(query)) - OUTAGE_WORDS
        ):
            # "What fixed it last time?", "how long were we down last time?": nothing named
            # but the outage itself, so "it" is what the thread reports.
            answered, past = await self._last_time(requester, query, thread, similar)
            if answered:
                # The incident "last time" was read as is a similar one, said as such.
                return answered, past
        ranked = await self.recall(requester, query, k=SIMILAR_CANDIDATES)
        items = await self.relevant(requester, query, ranked=ranked, thread=thread)
        if about_an_earlier_incident(query):
            # "How did we promote a replica last time?" is never answered by this incident's
            # own report; with nothing kept from an earlier one, under a report, the incident
            # most like it is read for what the question names.
            here = await self._incident_asked_in(requester)
            items = [it for it in items if here is None or it.incident_id != here.id]
            if not items and thread is not None and thread.opening:
                said, past = await self._last_time_about(requester, query, thread, similar, ranked)
                if said:
                    return said, past
        if asks_fix:
            # An alert an app posted says what fired, never how it was fixed: "how do I fix CPU
            # throttling?" is not answered by last week's CPUThrottlingHigh (similar incidents
            # still show that incident).
            items = [it for it in items if not is_app_subject(it.author_subject_id)]
        if vague and thread and thread.opening:
            # Beside the runbook's steps, what the incident already chose. Never for a question
            # that asks something else ("who owns it?", "was it dns?", "who do I escalate to?"):
            # that one says memory has nothing.
            asks_plan = asks_fix and not asked_kinds(query) and not asks_what_happened(query)
            if not items and asks_plan:
                # "What's next?": what was decided and done, then the items still open.
                items = await self._this_incidents(requester, CURRENT_PLAN, thread=thread)
                shown = {it.id for it in items}
                still_open = await self._this_incidents(
                    requester, ("action",), thread=thread, open_only=True
                )
                items += [it for it in still_open if it.id not in shown]
            about = f"{thread.opening}\n{query}"
            found = await self.similar_incidents(
                requester, about, similar, report=thread.opening, thread=thread
            )
            return items, found
        return items, await self.similar_incidents(requester, query, similar, ranked=ranked)

    async def _earlier_statements(
        self,
        requester: Requester,
        kinds: tuple[str, ...],
        query: str,
        *,
        matched: str | None = None,
        incidents_back: int = 5,
        most: int = 2,
    ) -> list[RecallItem]:
        """The newest statements of the `kinds` asked for from the latest earlier incident (not
        the one asked in) the requester may see that has any on the question's topic (any, when
        it names no topic); else those of `matched`, the incident the best search hit is from,
        when it is among them. A later correction of one is shown above it. Never personal rows
        (the answer is shared)."""
        from memory.incidents import Incidents

        topic = topic_words(query)
        recent = await Incidents(self._db, self._clock).list_recent(
            requester, limit=incidents_back + 1
        )
        fallback: list[Row] = []
        for incident in recent:
            if incident.channel_id == requester.channel_id:
                continue
            rows = await note_store.incident_statements(
                self._db, requester, incident.id, kinds=kinds
            )
            shared = [r for r in rows if r["scope"] != "user"]
            # An incident whose title is the topic ("db pool") is about it: every statement
            # of the kind answers "how did we fix the pool last time?", pool named or not.
            about = topic <= stems(expand_identifiers(incident.title))
            said = [r for r in shared if about or topic & stems(str(r["text"]))][:most]
            if said:
                return await self._as_items(requester, said)
            if incident.id == matched:
                fallback = shared[:most]
        return await self._as_items(requester, fallback) if fallback else []

    async def _last_time(
        self, requester: Requester, query: str, thread: AskedIn, similar: int
    ) -> tuple[list[RecallItem], list[IncidentMatch]]:
        """ "How long were we down last time?", "what fixed it last time?" under a report: "last
        time" is the past incident most like the one the thread reports (its messages read
        together, as for "seen this before?"). Its
        statements of the kind asked, the one that says how long when a span is asked, else
        what answers the question there."""
        report = thread.opening or ""
        past = await self.similar_incidents(
            requester, report, similar, report=report, thread=thread
        )
        if not past:
            return [], []
        incident_id = past[0].incident.id
        kinds = asked_kinds(query)
        if kinds or wanted(query) == "duration":
            rows = await note_store.incident_statements(
                self._db, requester, incident_id, kinds=kinds or EVERY_KIND
            )
            shared = [r for r in rows if r["scope"] != "user"]
            if not kinds:
                # How long the incident lasted is what its status says ("resolved. ~37 min of
                # errors"); a span in a side remark ("dashboards lagged 2 min") is of something else.
                spans = [r for r in shared if says_how_long(str(r["text"]))]
                shared = sorted(spans, key=lambda r: r["kind"] != "status")[:1]
            return await self._as_items(requester, shared[:LAST_TIME_MOST]), past
        asked = without_pointer_back(query)
        return await self.relevant(requester, asked, incident=incident_id), past

    async def _last_time_about(
        self,
        requester: Requester,
        query: str,
        thread: AskedIn,
        similar: int,
        ranked: list[RecallItem],
    ) -> tuple[list[RecallItem], list[IncidentMatch]]:
        """ "How did we promote a replica last time?" under a report, when search kept nothing
        of an earlier incident: the messages of the past incident most like the report that say
        the most of what the question names (at least half of it), in the order search ranked
        them (its meaning tells "promoting mysql-orders-02" from "AI-3 rebuild replica")."""
        topic = topic_words(question_topic(without_pointer_back(query))) - OUTAGE_WORDS
        report = thread.opening or ""
        past = await self.similar_incidents(
            requester, report, similar, report=report, thread=thread
        )
        if not past or not topic:
            return [], past
        rows = await self._shared_statements(
            requester, past[0].incident.id, kinds=EVERY_KIND, limit=TIMELINE_LOOKS_AT
        )
        scored = [
            (len(said_of(topic, str(r["text"]))), r)
            for r in rows
            if not only_asks(query, str(r["text"]))
        ]
        best = max((n for n, _ in scored), default=0)
        if 2 * best < len(topic):
            return [], past
        order = {it.id: i for i, it in enumerate(ranked)}
        said = sorted(
            (r for n, r in scored if n == best),
            key=lambda r: (order.get(int(r["id"]), len(order)), int(r["id"])),
        )
        return await self._as_items(requester, said[:LAST_TIME_MOST]), past

    async def _as_items(self, requester: Requester, rows: list[Row]) -> list[RecallItem]:
        found = [_item(r, parse_iso(r["created_at"]), 1.0) for r in rows]
        return await self._with_corrections(requester, found)

    async def similar_incidents(
        self,
        requester: Requester,
        text: str,
        limit: int = 3,
        *,
        ranked: list[RecallItem] | None = None,
        report: str | None = None,
        thread: AskedIn | None = None,
    ) -> list[IncidentMatch]:
        """Past incidents whose visible notes answer `text`, excluding this channel's own.
        `report`: what the thread asked in reports ("seen this before?" under it), matched by
        an incident's messages together as well (`_incidents_read_whole`); a question is
        answered by one message. `thread`: the thread asked in, whose opening is no match.

        Candidates come from the same ranking as recall (over every incident the requester may
        see); a past incident counts only when one of its notes passes the relevance floor, so
        an unrelated question finds nothing similar. Each match carries the incident's root
        cause (or mitigation, status, decision) line and a link to what matched.
        """
        from memory.incidents import Incidents

        hits = (
            ranked
            if ranked is not None
            else await self.recall(requester, text, k=SIMILAR_CANDIDATES)
        )
        mode = self._config.mode if self._embedder is not None else "keyword"
        floor = self._config.floors.get(mode)
        by_incident: dict[str, tuple[float, RecallItem]] = {}
        if thread is not None:
            # The thread's own report, searched for with its own words, ranks first on them:
            # no evidence of anything, it must not push every past incident's messages down.
            hits = [hit for hit in hits if not _opens(hit, requester, thread)]
        subjects = await self.subjects(requester, hits)
        for rank, hit in enumerate(hits):
            # Similar incidents are shown where others read them: never from personal memory.
            if hit.incident_id is None or hit.channel_id == requester.channel_id:
                continue
            if hit.scope == "user":
                continue
            judge = floor if hit.similarity > 0 else self._config.floors.get("keyword", floor)
            read = features(text, hit, rank, subjects.get(hit.id, ""))
            p = judge.probability(read) if judge else hit.score
            if judge is not None and p < judge.floor:
                continue
            total, best = by_incident.get(hit.incident_id, (0.0, hit))
            by_incident[hit.incident_id] = (total + p, best)
        if floor is not None and report:
            words_only = self._config.floors.get("keyword", floor)
            whole = _incidents_read_whole(report, hits, subjects, requester, (floor, words_only))
            for incident_id, found in whole.items():
                by_incident.setdefault(incident_id, found)
        incidents = Incidents(self._db, self._clock)
        matches: list[IncidentMatch] = []
        for incident_id, (total, best) in sorted(by_incident.items(), key=lambda kv: -kv[1][0]):
            # A visible note may name an incident the requester cannot see (a private channel's):
            # such an incident is skipped, never shown.
            incident = await incidents.get_visible(requester, incident_id)
            if incident is None:
                continue
            rows = await self._shared_statements(requester, incident_id)
            line = await self._headline(requester, rows)
            said = next((str(r["text"]) for r in rows if r["kind"] == "status"), None)
            matches.append(
                IncidentMatch(
                    incident=incident,
                    score=total,
                    why=best.text[:200],
                    line=line,
                    url=best.permalink,
                    said_status=said,
                )
            )
            if len(matches) >= max(1, limit):
                break
        return matches

    async def _headline(self, requester: Requester, rows: list[Row]) -> str | None:
        """An incident's root cause line (a later correction of it wins), else its latest
        mitigation, status change or decision; `rows` are its statements, newest first. A
        correction wins only over the statement it is about: "scratch that, roll back to 5 days"
        corrects the rollback target said just before it, not a root cause that names retention."""
        for kind in ("root_cause", "mitigation", "status", "decision"):
            row = next((r for r in rows if r["kind"] == kind), None)
            if row is None:
                continue
            stated = _item(row, parse_iso(row["created_at"]), 0.0)
            for fix in rows:
                if fix["kind"] != "correction" or not corrects(
                    stated.text, stated.id, fix["text"], int(fix["id"]), earlier_kind=kind
                ):
                    continue
                about = await self._what_it_corrects_in_channel(
                    requester, int(fix["id"]), str(fix["text"]), stated.channel_id, [stated]
                )
                if about is not None and about.id == stated.id:
                    return str(fix["text"])
            return stated.text
        return None

    async def _shared_statements(
        self,
        requester: Requester,
        incident_id: str,
        *,
        kinds: tuple[str, ...] = note_store.HEADLINE_KINDS,
        limit: int = 40,
        oldest_first: bool = False,
    ) -> list[Row]:
        """The incident's statements of `kinds`, newest first (`oldest_first`: its first ones),
        without personal rows, whatever the store returned (others read them; the store leaves
        them out too)."""
        rows = await note_store.incident_statements(
            self._db, requester, incident_id, kinds=kinds, limit=limit, oldest_first=oldest_first
        )
        return [r for r in rows if r["scope"] != "user"]

    async def said_in(self, requester: Requester, channel_id: str, ts: str) -> str | None:
        """The text of the message at `ts` in `channel_id`, if the requester may see it: a
        thread's first message is what a vague question in that thread is about."""
        return await note_store.said_in_message(self._db, requester, channel_id=channel_id, ts=ts)

    async def _keyword(
        self, requester: Requester, query: str, limit: int, incident_id: str | None
    ) -> list[int]:
        return await keyword_candidates(
            self._db,
            requester,
            query,
            limit=limit,
            incident_id=incident_id,
            config=self._config.keyword,
        )

    async def _semantic(
        self, requester: Requester, query: str, limit: int, sims: dict[int, float] | None = None
    ) -> list[int]:
        if self._embedder is None or self._vectors is None or not query.strip():
            return []
        try:
            (vector,) = await self._embedder.embed([query])
        except EmbeddingUnavailable:
            log.warning("recall_embedding_unavailable")
            return []
        hits = await self._vectors.nearest(
            self._db,
            vector,
            partitions=visible_partitions(
                requester, public_channel_ids=await public_channels(self._db, requester)
            ),
            k=limit,
            coarse=max(self._config.coarse, limit),
        )
        if sims is not None:
            sims.update(hits)
        return [nid for nid, _ in hits]

    async def _lend_to_neighbours(self, fused: dict[int, float]) -> dict[int, float]:
        """A hit makes the notes around it likelier: an answer sits next to its question.
        Neighbours are the previous and next note of the same partition and channel, joined
        only within an exchange (`memory.notes.exchange`), so they are exactly as visible as the hit
        (and `_rows` re-checks anyway)."""
        rows = await note_store.neighbours(self._db, list(fused), window=EXCHANGE_WINDOW)
        share = self._config.neighbour_share
        out = dict(fused)
        for row in rows:
            lent = share * fused[int(row["id"])]
            for nb in (row["prev"], row["next"]):
                if nb is not None:
                    nb = int(nb)
                    out[nb] = max(out.get(nb, 0.0), fused.get(nb, 0.0) + lent)
        return out

    async def _rows(
        self, requester: Requester, ids: list[int], incident_id: str | None
    ) -> list[Row]:
        return await note_store.visible_rows(self._db, requester, ids, incident_id=incident_id)


#: Replies reporting a shown item done that one answer brings ("done, cordoned …").
FOLLOW_THROUGH_MOST = 2

#: A question that names an item of follow-up work ("who owns the lock follow-up?").
_NAMES_AN_ITEM = re.compile(
    r"\b(?:follow[- ]?ups?|action items?|to-?dos?|tasks?|work|tickets?|post-?mortems?"
    r"|write-?ups?|retros?)\b",
    re.I,
)
#: Those words say it is an item, not what it is about (`topic_words` already leaves out the
#: kind words: follow-up, action item, todo).
_ITEM_WORDS = frozenset(stems("task tasks work ticket tickets"))

#: What "are we still degraded?" asks the state of: the outage itself, named by no report.
_THE_OUTAGE = OUTAGE_WORDS | stems("degraded degradation impacted affected failing erroring")


#: The states of an outage a question with no subject asks after ("is it fixed?", "is it
#: back?"); "is it done?", "is it still running?" ask after what the thread opened with.
_OUTAGE_STATE = re.compile(
    r"\b(?:fixed|resolved|recovered|back|over|down|up|happening|stable|healthy|gone|mitigated"
    r"|degraded|broken)\b",
    re.I,
)
_STATUS_PAGE = re.compile(r"\bstatus[ -]?page\b", re.I)


def _says_how_it_stands(row: Row) -> bool:
    """A status said, a change made, or plain talk that reports what came of one or gives a
    reading ("we run with 1 replica only now"); not "thanks all, back in 5", nor a status that
    is about the status page ("status page updated 14:25")."""
    text = str(row["text"])
    if row["kind"] == "mitigation":
        return True
    if row["kind"] == "status" and not _STATUS_PAGE.search(text):
        return True  # "status: investigating", "all clear"
    return row["kind"] in ("note", "status") and (reports_outcome(text) or reports_a_reading(text))


#: Kinds that say what is to be done, not how things stand.
_TO_BE_DONE = frozenset({"action", "decision"})

#: A question that says it is about an incident ("the search incident", "that outage").
_NAMES_AN_INCIDENT = re.compile(r"\b(?:incident|outage|postmortem|post-mortem|sev ?\d)\b", re.I)


def _leading(led: list[RecallItem], items: list[RecallItem]) -> list[RecallItem]:
    """`led` first, then the rest of `items`."""
    shown = {it.id for it in led}
    return led + [it for it in items if it.id not in shown]


def _first_clause(correction: str) -> str:
    """What a correction states first, without how it opens: "scratch that, roll back to v39
    instead, v40 has the bug" -> "roll back to v39 instead"."""
    return re.split(r"[,;.]\s", without_correction_cue(correction), maxsplit=1)[0]


async def _nothing() -> list[int]:
    return []


def _all_done(keys: set[str], done: set[str]) -> bool:
    """Whether an item naming `keys` is closed: it names some, and every one is `done`."""
    return bool(keys) and keys <= done


def explanations_first(items: list[RecallItem]) -> list[RecallItem]:
    """Asked why: a root cause leads, then what says "because", then the rest, each in order."""
    return sorted(items, key=lambda it: (it.kind != "root_cause", not explains(it.text)))


def only_asks(question: str, text: str) -> bool:
    """Whether `text` asks what it says of `question`: a message with a question in it that
    states none of the question's words outside its questions."""
    if not asks(text):
        return False
    asked = stems(question_topic(question))
    return bool(asked) and not said_of(asked, without_questions(text))


def features(question: str, item: RecallItem, rank: int, subject: str = "") -> Features:
    """What the floor reads of one ranked candidate. `subject`: what the item leaves unsaid
    because its channel says it (`Recall.subjects`), read as part of it. What the item asks is
    no answer: "any customer impact? ETA?" shares the words of "what's the customer impact?"
    and says nothing of it."""
    stated = without_questions(item.text)
    said = f"{_kind_words(item.kind)} {item.author_name} {subject} {stated}"
    return Features(
        similarity=item.similarity,
        coverage=coverage(question, said),
        rank=1.0 / (rank + 1),
    )


def _incidents_read_whole(
    report: str,
    hits: list[RecallItem],
    subjects: dict[int, str],
    requester: Requester,
    floors: tuple[FloorConfig, FloorConfig],
) -> dict[str, tuple[float, RecallItem]]:
    """Past incidents whose ranked messages say a long report together, one part in each:
    "payments-events consumer group is 800k behind and kafka-5 disk is at 94%" was said in
    the lag incident as "consumer group … is 2.1M behind" and "kafka-3 is at 97% disk". An
    incident counts when at least two of its messages each say a word of the report the others
    do not, together at least half of its words (numbers left out: they are this incident's
    readings; a name that holds one, "p99", stays), and the floor passes it on the closest message's meaning, that share and the
    best rank (the words-only floor when none has a vector yet). It is linked by the message
    that says the most of it."""
    words = {
        w for w in stems(report) if not any(c.isdigit() for c in w) or _NAMED_NUMBER.fullmatch(w)
    }
    if len(words) < 2:
        return {}
    grouped: dict[str, list[tuple[int, RecallItem, frozenset[str]]]] = {}
    for rank, hit in enumerate(hits):
        if hit.incident_id is None or hit.channel_id == requester.channel_id:
            continue
        if hit.scope == "user":
            continue
        said = f"{subjects.get(hit.id, '')} {hit.text}"
        covered = frozenset(said_of(words, said))
        grouped.setdefault(hit.incident_id, []).append((rank, hit, covered))
    out: dict[str, tuple[float, RecallItem]] = {}
    for incident_id, group in grouped.items():
        union: set[str] = set()
        contributing = 0
        for _, _, covered in sorted(group, key=lambda g: -len(g[2])):
            if covered - union:
                contributing += 1
                union |= covered
        if contributing < 2 or 2 * len(union) < len(words):
            continue
        similarity = max(hit.similarity for _, hit, _ in group)
        floor = floors[0] if similarity > 0 else floors[1]
        read = Features(
            similarity=similarity,
            coverage=len(union) / len(words),
            rank=1.0 / (group[0][0] + 1),
        )
        p = floor.probability(read)
        if p >= floor.floor:
            best = max(group, key=lambda g: (len(g[2]), -g[0]))[1]
            out[incident_id] = (p, best)
    return out


#: A percentile named with its number ("p99", "p95"): what was measured, as "latency" would
#: say; a reading ("3s"), a version ("v5"), a host ("db01") or a severity ("sev1", "p1") is
#: this incident's own.
_NAMED_NUMBER = re.compile(r"p\d{2,3}")


def _owns(row: Row, name: str, done: AbstractSet[str] = frozenset()) -> bool:
    """Whether the action item or handover `row` names `name` as the owner of an item not
    `done`."""
    return owned_by(str(row["text"]), str(row["author_name"] or ""), name, done=done)


def _kind_words(kind: str) -> str:
    """What a note's kind says about it in words, as questions ask for it ("root cause", "rc";
    "who owns …" asks for an action item, which names its owner); plain notes say nothing."""
    return _KIND_WORDS.get(kind, kind.replace("_", " "))


_KIND_WORDS = {
    "note": "",
    "root_cause": "root cause rc",
    "decision": "decision decided",
    "action": "action item owner owns owned follow up",
}


def _opens(item: RecallItem, requester: Requester, thread: AskedIn) -> bool:
    """Whether `item` is the message that opened the thread the question is asked in."""
    return item.channel_id == requester.channel_id and item.source_ts == thread.thread_ts


def _item(row: Row, created: datetime, score: float, similarity: float = 0.0) -> RecallItem:
    return RecallItem(
        id=int(row["id"]),
        kind=row["kind"],
        text=row["text"],
        scope=row["scope"],
        incident_id=row["incident_id"],
        channel_id=row["channel_id"],
        author_subject_id=row["owner_subject_id"],
        created_at=created,
        permalink=row["permalink"],
        score=score,
        author_name=row["author_name"] or "",
        similarity=similarity,
        source_ts=row["source_ts"],
    )
