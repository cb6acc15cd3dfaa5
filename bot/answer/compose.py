"""Answer composition (no Slack here): recall → runbook retrieval → matching skills → a
token-budgeted set of numbered sources, rendered first as a deterministic cited answer.

The LLM step (`bot/answer/llm.py`) may only rephrase over these same sources; `render.py` renders
the result.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, TypeVar

from bot.answer import messages, runbook_text
from knowledge.intent import question_intent
from knowledge.search import see_also
from memory.episodes.done import what_was_done
from memory.episodes.statements import (
    classify,
    finishes_sentence,
    labelled_part,
    names_an_owner,
    points_back,
    strip_label,
    without_correction_cue,
)
from memory.recall.answer_type import holds, says_how_long, wanted
from memory.recall.current import asks_current_state, asks_current_value, subject_of
from memory.recall.earlier import (
    OUTAGE_WORDS,
    asked_kinds,
    asks_what_happened,
    topic_words,
    without_frame,
)
from memory.recall.floor import said_of
from memory.recall.open_items import asks_open_items
from memory.recall.outcomes import OUTCOME_WORDS, asks_outcome, reports_outcome
from memory.recall.own_items import asks_own_items
from memory.recall.recall import AskedIn
from memory.recall.timeline import asks_when, says_recovered
from memory.text import STOP_WORDS, at_word, expand_identifiers, item_references, stems

if TYPE_CHECKING:
    from knowledge.search import Knowledge, RunbookHit
    from memory.episodes.episodes import Episodes
    from memory.profiles.profiles import Profiles
    from memory.recall.recall import IncidentMatch, Recall, RecallItem
    from memory.scopes import Requester
    from skills.loader import SkillIndex

SourceKind = Literal["runbook", "incident", "mine", "episode", "skill"]
T = TypeVar("T")


def _phrase(text: str) -> re.Pattern[str]:
    """A catalogue phrase as a whole-word, case-blind pattern ("roll back" ~ "roll-back")."""
    words = [re.escape(w) for w in re.split(r"[\s_-]+", text.strip()) if w]
    return re.compile(r"\b" + r"[\s_-]?".join(words) + r"\b", re.I)


#: Runbook sections an answer cites at most, and how much of the first one it leads with.
RUNBOOK_CITATIONS = 3
LEAD_CHARS = 900
SEE_ALSO_LABEL = "see also"
#: A question of at most this many content words names nothing to search for on its own.
VAGUE_WORDS = 1
#: Words that ask for help without naming a subject ("next steps?", "any ideas?"): never
#: counted as what a question is about.
_NAMES_NOTHING = stems(
    "next step steps idea ideas suggestion suggestions option options plan thought thoughts "
    "anything thing things happening happened again same help eta update"
)
CONTEXT_CHARS = 400  # of the thread's first message, read with a vague question


#: The least of a source worth citing once cut to fit the budget (a paragraph or two).
MIN_CUT_TOKENS = 200
MIN_CUT_CHARS = 80  # what a cut must keep besides its ellipsis and fences to be cited


def estimate_tokens(text: str) -> int:
    """A cheap, stable token estimate (about 4 characters per token for English)."""
    return len(text) // 4 + 1


@dataclass(frozen=True)
class ThreadKey:
    team_id: str
    channel_id: str
    thread_ts: str


@dataclass(frozen=True)
class Question:
    requester: Requester
    text: str
    thread: ThreadKey
    incident_id: str | None = None
    asked_ts: str | None = None  # the asking message (a reply when not the thread's first)


@dataclass(frozen=True)
class Source:
    """One citable item; `key` ("S1") is what an answer cites, `label` what a person reads."""

    key: str
    kind: SourceKind
    label: str
    text: str
    url: str | None = None
    ref: str = ""  # what it is in storage ("note:12", "episode:3"): "Remember this" re-reads it


@dataclass(frozen=True)
class SimilarIncident:
    incident_id: str
    title: str
    why: str
    url: str | None = None
    when: str = ""  # "12 Mar 2026"
    status: str = ""
    line: str | None = None  # its root cause / resolution line
    channel_id: str | None = None
    said_status: str | None = None  # the latest status said in its thread

    @property
    def headline(self) -> str:
        """What it is known by (its root cause or resolution line, else why it matched); ""
        when that is only its thread's status, said in its facts already."""
        said = self.line or self.why
        if said and self.said_status and strip_label(said) == strip_label(self.said_status):
            return ""
        return said


@dataclass(frozen=True)
class ProposedAction:
    """A catalogue action that a cited runbook section or a cited skill names (the button only
    explains how to request it; nothing is filled in or requested from retrieved text)."""

    kind: str  # the catalogue action's name
    title: str
    source_label: str  # e.g. "runbook rollback-deploy › Steps" (a slug/heading, never free text)


@dataclass(frozen=True)
class Answer:
    summary: str
    sources: tuple[Source, ...] = ()
    similar: tuple[SimilarIncident, ...] = ()
    actions: tuple[ProposedAction, ...] = ()
    generated: bool = False
    notice: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    # The asker's own memory (scope user): shown to the asker alone (an ephemeral addendum),
    # never in `sources`, the summary, the model's prompt or anything others read.
    personal: tuple[Source, ...] = ()
    # Whether past incidents were looked for ("no similar past incidents" is said only then).
    similar_searched: bool = True

    def of_kind(self, *kinds: SourceKind) -> list[Source]:
        return [s for s in self.sources if s.kind in kinds]


@dataclass(frozen=True)
class AnsweringConfig:
    context_tokens: int = 1_800  # what the sources may take in a prompt
    runbook_hits: int = 3
    memories: int = 6
    skills: int = 2
    # (name, title, phrases that name it) per catalogue action, from the catalogue itself.
    actions: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


class Answering:
    """Builds the cited answer from memory, runbooks and skills for one question."""

    def __init__(
        self,
        *,
        recall: Recall,
        knowledge: Knowledge | None,
        skills: SkillIndex | None,
        profiles: Profiles | None,
        episodes: Episodes | None,
        config: AnsweringConfig = AnsweringConfig(),
    ) -> None:
        self._recall, self._knowledge, self._skills = recall, knowledge, skills
        self._profiles, self._episodes, self.config = profiles, episodes, config

    async def compose(self, q: Question) -> Answer:
        """The deterministic cited answer (no LLM): always available, always cited."""
        if asks_to_catch_up(q.text) and (caught := await self._catch_up(q)) is not None:
            return caught
        timings: dict[str, float] = {}
        opening = await self._thread_opening(q)
        # "seen slow api like this before?" points at what the thread opened with, as a
        # question naming nothing does: both are read with it.
        vague = opening is not None and (names_nothing(q.text) or asks_if_seen_before(q.text))
        (memories, similar), hits, mine, episodes = await asyncio.gather(
            self._timed(timings, "recall", self._memories(q, opening, vague=vague)),
            self._timed(timings, "runbooks", self._runbooks(q, opening, vague=vague)),
            self._timed(timings, "profile", self._profile(q)),
            self._timed(timings, "episodes", self._past_threads(q)),
        )
        skills = self._skills.match(q.text, limit=self.config.skills) if self._skills else []
        candidates = [*hits, *memories, *mine, *episodes]
        candidates += [Source("", "skill", f"skill {s.name}", s.description) for s in skills]
        personal = [s for s in candidates if s.kind == "mine"]
        public = [s for s in candidates if s.kind != "mine"]
        budget = self.config.context_tokens
        sources = _budget(public, budget)
        bodies = {f"skill {s.name}": s.body for s in skills}
        actions = _proposals(sources, bodies, self.config.actions)
        runbooks = [s for s in sources if s.kind == "runbook"]
        # A roll-up is memory too: an answer that shows one never says memory had nothing.
        said = [s for s in sources if s.kind == "incident"]
        # Whether what the team did helped is in what it said; no runbook knows.
        what_happened = asks_what_happened(q.text)
        memory_first = (
            what_happened or asks_outcome(q.text) or _memory_covers_more(q.text, said, runbooks)
        )
        # "Any open action items?" asks for the team's own list: no runbook holds it.
        listed = asks_open_items(q.text) and any(
            s.label.startswith(KIND_NAMES["action"]) for s in said
        )
        memory_first = memory_first or listed
        # Beside memory's answer, a runbook that shares one word of the question ("orders"
        # -> out-of-order timestamps), and none that memory's answer lacks, is noise. Asked what
        # the team said or did, with memory silent, a runbook shown instead must be about at
        # least half of what is asked ("was there anything about a leaked token?" is not
        # answered by a certificate runbook near "token"). Either way the answer goes without.
        nothing_said = not said and not [s for s in sources if s.kind == "episode"]
        if runbooks and (
            (said and memory_first and (listed or _adds_nothing(q.text, said[0], runbooks)))
            or (nothing_said and what_happened and not _about_half_of(q.text, runbooks))
        ):
            sources = _budget([s for s in public if s.kind != "runbook"], budget)
            actions = _proposals(sources, bodies, self.config.actions)
            runbooks, said = [], [s for s in sources if s.kind == "incident"]
        summary = _summary(
            runbooks,
            said or [s for s in sources if s.kind == "episode"],
            question=q.text,
            memory_first=memory_first,
            asker=q.requester.name,
        )
        if similar and asks_if_seen_before(q.text):
            summary = _seen_before(similar[0], summary)
        own = _budget(personal, self.config.context_tokens // 3, prefix="Y")
        if own and summary == messages.NOTHING_FOUND and _ABOUT_ME.search(q.text):
            # "What did I tell you to remember?": the answer is the asker's own, sent to them
            # alone; the thread is told where it went, never what it says.
            summary = messages.ONLY_YOURS
        return Answer(
            summary,
            tuple(sources),
            tuple(similar),
            tuple(actions),
            timings_ms=timings,
            personal=tuple(own),
        )

    async def _catch_up(self, q: Question) -> Answer | None:
        """ "Catch me up" asked in a thread: where the thread stands, as its roll-up will say
        (what happened, root cause, decisions, actions with owners, status), from what was said
        in it so far; asked at the channel's top level, where the channel stands. None where
        nothing was said (the question is answered as any)."""
        if self._episodes is None or q.asked_ts is None:
            return None
        started = time.perf_counter()
        head = messages.CATCH_UP
        if q.asked_ts == q.thread.thread_ts:
            # Asked at the channel's top level and naming nothing else ("catch me up on the
            # rollback runbook", "recap the redis thing" ask about those): where the channel
            # stands, as much of it is said outside any thread.
            if stems(_CATCH_UP.sub(" ", q.text)) - _NAMES_NOTHING - _CATCH_UP_FILLER:
                return None
            head = messages.CATCH_UP_CHANNEL
            now = await self._episodes.channel_so_far(
                q.requester, q.thread.team_id, q.thread.channel_id
            )
        else:
            now = await self._episodes.so_far(
                q.requester, q.thread.team_id, q.thread.channel_id, q.thread.thread_ts
            )
        if now is None:
            return None
        took = {"catch_up": (time.perf_counter() - started) * 1000}
        return Answer(f"{head}\n{now.text}", timings_ms=took, similar_searched=False)

    async def _timed(self, timings: dict[str, float], name: str, aw: Awaitable[T]) -> T:
        """Await `aw`, recording how long it took under `name`."""
        started = time.perf_counter()
        try:
            return await aw
        finally:
            timings[name] = (time.perf_counter() - started) * 1000

    async def _memories(
        self, q: Question, opening: str | None, *, vague: bool
    ) -> tuple[list[Source], list[SimilarIncident]]:
        """What memory says that answers the question: only items above the relevance floor,
        from this incident first but from any the asker may see, each labelled with what it
        is, who said it and when, linked to where it was said; and the past incidents like it
        (one search serves both), read with what the thread opened with (`opening`) when the
        question names nothing ("seen this before?")."""
        in_thread = q.asked_ts not in (None, q.thread.thread_ts)
        items, matches = await self._recall.answer(
            q.requester,
            q.text,
            similar=3,
            thread=AskedIn(q.thread.thread_ts, opening) if in_thread else None,
            vague=vague,
            asks_fix=question_intent(q.text) == "fix",
        )
        # Recall returns notes; episodes and profile facts come from their own stages below.
        memories = [
            Source(
                "",
                "mine" if item.scope == "user" else "incident",
                memory_label(item, here=q.incident_id),
                shown_text(item),
                item.permalink,
                ref=f"note:{item.id}",
            )
            for item in items[: self.config.memories]
        ]
        return memories, _similar(matches, here=q.incident_id)

    async def _profile(self, q: Question) -> list[Source]:
        """The asker's own facts that share a word with the question, or the newest when it
        asks what the bot keeps for them ("what did I tell you to remember?"); at most 3."""
        if self._profiles is None:
            return []
        words = _words(q.text)
        facts = await self._profiles.for_requester(q.requester, limit=50)
        about_me = bool(_ABOUT_ME.search(q.text))
        hits = [f for f in facts if about_me or words & _words(f.text)][:3]
        return [Source("", "mine", f"your memory {f.id}", f.text, f.permalink) for f in hits]

    async def _past_threads(self, q: Question) -> list[Source]:
        if self._episodes is None:
            return []
        hits = await self._episodes.relevant(q.requester, q.text, k=2)
        return [
            Source(
                "",
                "episode",
                f"roll-up · {h.episode.incident_id or 'thread'} · {_title(h.episode.title)}",
                h.episode.summary,
                ref=h.episode.id,  # "episode:3"
            )
            for h in hits
        ]

    async def _runbooks(self, q: Question, opening: str | None, *, vague: bool) -> list[Source]:
        """`_runbook_sources`; for a question that asks for a link, only the sections that give
        one ("link to the lag dashboard?" is not answered by the backlog runbook's symptoms),
        unless the link asked for is a runbook's ("link to the queue backlog runbook?")."""
        found = await self._runbook_sources(q, opening, vague=vague)
        if wanted(q.text) != "link" or _NAMES_A_RUNBOOK.search(q.text):
            return found
        return [s for s in found if holds("link", s.text, ())]

    async def _runbook_sources(
        self, q: Question, opening: str | None, *, vague: bool
    ) -> list[Source]:
        """A runbook the question names (slug or alert name) directly; else the search's top
        runbook, its sections in the order the question asks, and close runbooks as see-also.
        An unavailable embedder needs nothing here: the search itself falls back to keyword.

        In a thread, what it opened with (`opening`, an alert) says what the question is about:
        a question that names nothing is searched with it, and so is one whose own words find
        no runbook ("how do we verify the disk is the bottleneck?"); one whose words find a
        runbook is answered by it ("how do I fix a crashlooping pod?" under a CPU alert). A
        question about what the team said or did ("what was the root cause?") is searched by
        its subject alone: runbooks know procedures, not what was said, and its framing words
        ("root cause") match any runbook that uses them; one asking who did or owns something,
        or where the incident stands, gets none (no runbook knows)."""
        if (
            self._knowledge is None
            or asks_current_state(q.text)
            or _asks_a_reading(q.text)
            or asks_own_items(q.text)
            or asks_when(q.text)  # when it began and recovered is in what the team said
        ):
            # whether our lag is gone, or what the asker owes, is in what the team said; no
            # runbook knows
            return []
        if _WHO.match(q.text) and question_intent(q.text) is None:
            # "who covers orders next week?": runbooks rarely name the team's people; one that
            # is about most of what is asked does ("who needs to approve a node drain?"), and
            # one word ("who is on call?" -> "on-call lead") is too little to tell.
            found = await self._runbook_answer(q.text, q.text) if topic_words(q.text) else []
            return found if _about_most_of(q.text, found, at_least=2) else []
        said = asks_what_happened(q.text)
        if said and _SAID_ONLY & set(asked_kinds(q.text)):
            return []  # "whats the status": where it stands is what the team said, even terse
        if said and (not topic_words(q.text) - OUTAGE_WORDS or _asks_who_or_where(q.text)):
            # "what did we decide?", "what's the rc?" under an alert ask what the team said,
            # however near the alert is to a runbook
            return []
        if vague and opening:
            return await self._runbook_answer(f"{opening}\n{q.text}", q.text)
        own = without_frame(q.text) if said else q.text
        found = await self._runbook_answer(own, q.text, gated=True)
        if found or not opening or said:
            return found
        # Read with the opening, the runbook must still show something the question asks
        # about ("the disk"): "anything about payments fraud?" is not answered by the alert's.
        found = await self._runbook_answer(f"{opening}\n{q.text}", q.text)
        shown = stems(" ".join(f"{s.label} {s.text}" for s in found))
        return found if (stems(q.text) - _NAMES_NOTHING) & shown else []

    async def _runbook_answer(
        self, text: str, question: str, *, gated: bool = False
    ) -> list[Source]:
        """The runbook sources for `text` (what is searched) read for `question` (what was
        asked: which section kind leads). `gated`: a runbook the search found (not one named)
        must share enough of the question's words (`_shares_enough`): "ETA for full
        redundancy?" is not about the disk-full runbook, whatever its confidence."""
        assert self._knowledge is not None
        named = await self._knowledge.named_in(text)
        if named is not None:
            return _runbook_sources(await self._knowledge.lookup(named, question), [])
        result = await self._knowledge.search(
            text, limit=self.config.runbook_hits, question=question
        )
        if result.abstained or not result.hits:
            return []
        top, *others = result.hits
        found = _runbook_sources(top, see_also(top, others), confidence=result.confidence)
        near = result.similarity >= MEANS_THE_SAME
        return found if not gated or near or _shares_enough(question, _hit_words(top)) else []

    async def _thread_opening(self, q: Question) -> str | None:
        """The first message of the thread a question is asked in (an alert, a report), its
        first lines, as the asker may see it; None at the top of a channel. A question that
        names nothing ("what do we do now?", "next steps?", "seen this before?") is about it:
        runbook search and similar incidents read it before the question, and memory reads it
        for what "it" is ("why did it fill up?")."""
        if q.asked_ts in (None, q.thread.thread_ts):
            return None
        opened = await self._recall.said_in(q.requester, q.thread.channel_id, q.thread.thread_ts)
        # The opening's first lines say what it is about; a long paste must not make the
        # search refuse the question (its query cap).
        return runbook_text.lead(opened, CONTEXT_CHARS) if opened else None


#: "What did I tell you to remember?", "what do you know about me?": what the bot keeps for the
#: asker, whatever its words.
_ABOUT_ME = re.compile(
    r"\bwhat\b[^?]{0,40}?\b(?:(?:did|have) i (?:tell|told|ask|asked) you to (?:remember|note|keep)"
    r"|(?:did|have) i told you(?=\W*$)|do you (?:know|remember) about me"
    r"|(?:did|have) you remembered(?: for me)?)\b"
    r"|\bremind me what i (?:told|asked) you to remember\b",
    re.I,
)


#: A question that asks for a runbook's own link.
_NAMES_A_RUNBOOK = re.compile(r"\b(?:runbooks?|playbooks?|procedures?|sops?|wiki)\b", re.I)


def _asks_a_reading(question: str) -> bool:
    """ "Whats the lag now?", "what is maxclients set to now?": how a named thing reads now, in
    what the team said; "what do we do now?" asks for a fix, which a runbook may hold."""
    return (
        asks_current_value(question)
        and bool(subject_of(question))
        and question_intent(question) is None
    )


#: Kinds of statement no runbook holds: who owns or does something, where an incident stands.
_SAID_ONLY = frozenset({"action", "status"})
_WHO = re.compile(r"^\W*who\b", re.I)


#: "when was the dns incident resolved?", "what time did we roll back?": when it happened;
#: "how long were we down last time?": how long it lasted.
_WHEN_PAST = re.compile(
    r"^\W*(?:(?:when|(?:at )?what time|how long ago)\s+(?:was|were|did|had|has|have)"
    r"|how long\s+(?:was|were|did|had))\b",
    re.I,
)


def _asks_who_or_where(question: str) -> bool:
    """Whether a question about what happened asks who ("who owns the follow-up?"), when
    ("when was it resolved?") or where the incident stands ("what is the status?"): what the
    team said, never a procedure."""
    return (
        bool(_WHO.match(question))
        or bool(_WHEN_PAST.match(question))
        or bool(_SAID_ONLY & set(asked_kinds(question)))
    )


_IT = r"(?:this|it|that|the same(?: \w+)?)"
_SEEN_BEFORE = re.compile(
    rf"\b(?:seen|had|hit|saw|see|get|got)\s+{_IT}(?:\s+\w+){{0,3}}?\s+(?:before|previously"
    r"|in the past)(?!\s+(?:we|you|they|i|the|a|an|it|\w+ing|\d)\b)"
    rf"|\b{_IT}\s+(?:\w+\s+)?(?:happened|happen|occurred|come up|came up)\s+(?:before|previously"
    r"|in the past)\b"
    rf"|\b(?:anyone|anybody|we|you)\s+(?:ever\s+)?(?:seen|had|hit|saw)\s+{_IT}\b"
    # "have we seen slow api like this before?": a subject, then "like this"
    r"|\b(?:seen|had|hit|saw)\s+(?:[\w-]+\s+){1,4}?like (?:this|that|it)(?: one)?\s+(?:before"
    r"|previously|in the past)\b(?!\s+(?:we|you|they|i|the|a|an|it|\w+ing|\d)\b)"
    r"|\bever (?:seen|had|hit|happened)\b|\b(?:is|was) this the first time\b"
    r"|^\W*(?:(?:are|were) there )?(?:any |similar |previous |past |earlier )+(?:incidents?|outages?)"
    r"(?: like (?:this|it))?\s*\?"
    r"|\bis (?:this|it) (?:a )?recurr\w*|\bsame as last time\b"
    # "has redis maxclients bitten us before?", "has a cert expiry hit us in the past?"
    r"|\b(?:bitten|bit|bite|hit|burned|burnt|caught)\s+(?:us|by (?:this|it|that))\s+"
    r"(?:before|previously|in the past)\b(?!\s+(?:(?:we|you|they|i|the|a|an|it|\w+ing)\b|\d))"
    # "has this kind of redis outage happened before?": any subject, then the question ends
    r"|^\W*(?:has|have|had|did)\b[^?.!]{1,80}?\b(?:happened|happen|occurred|come up|came up)"
    r"\s+(?:before|previously|in the past)\b(?!\s+(?:(?:we|you|they|i|the|a|an|it|\w+ing)\b|\d))",
    re.I,
)


#: How memory's line of a summary opens ("Memory says [S1] (root cause · chen · …): …").
_MEMORY_SAYS = "Memory says ["

_CATCH_UP = re.compile(
    r"\b(?:summar(?:y|ize|ise)|recap|tl;?\s?dr|catch (?:me|us) up|(?:bring|get) me up to speed"
    r"|what did i miss|what have i missed|sitrep)\b"
    # "what happened?", "what's going on?", "where are we?" naming nothing else: the incident
    r"|^\W*(?:(?:so|ok(?:ay)?|hey|hi)\W+)?(?:what(?:'s|’s|s| is)?\s+(?:happened|happening"
    r"|going\s+on)(?:\s+(?:here|so\s+far))?|where\s+are\s+we(?:\s+at)?(?:\s+now)?"
    r"|what(?:'s|’s|s| is)\s+the\s+latest)\W*$",
    re.I,
)


#: What "catch me up please, just joined" says around a catch-up without naming a subject.
_CATCH_UP_FILLER = frozenset(
    stems(
        "please pls quick quickly just joined joining incident outage channel here today far new "
        "happened happening so"
    )
)


def asks_to_catch_up(question: str) -> bool:
    """Whether the question asks for where things stand ("catch me up", "tl;dr?", "summary
    please", "what did I miss?")."""
    return _CATCH_UP.search(question) is not None


def asks_if_seen_before(question: str) -> bool:
    """Whether the question asks if this happened before ("has this happened before?", "seen
    this before?", "is this the first time?"): the answer is the past incident, first."""
    return _SEEN_BEFORE.search(question) is not None


def _seen_before(match: SimilarIncident, summary: str) -> str:
    """The answer's lead for "has this happened before?": the most similar past incident, what
    it was and how it ended, above the rest of the summary. Memory's line stays (it may be what
    this incident's responders said about it), only "memory has nothing" goes."""
    facts = " · ".join(x for x in (match.when, match.status) if x)
    if match.said_status:  # `/incident status` may lag what its thread says
        facts += f"; thread says: {_first_sentence(labelled_part(match.said_status), 60)}"
    said = match.headline
    head = f"Seen before: {match.incident_id} {match.title}" + (f" ({facts})" if facts else "")
    line = _first_sentence(strip_label(said)) if said else ""
    lead = f"{head} — {line}" if line else head
    rest = [
        kept
        for kept in summary.split("\n")
        if kept not in (messages.NOTHING_IN_MEMORY_HERE, messages.NOTHING_FOUND)
        # Memory's line quoting what the lead already says would say it twice.
        and not (line and kept.startswith(_MEMORY_SAYS) and kept.endswith(f"): {line}"))
    ]
    return "\n".join([lead, *rest])


def names_nothing(question: str) -> bool:
    """Whether a question names no subject of its own ("next steps?", "any ideas?", "what do
    we do now?"): at most `VAGUE_WORDS` content words besides those that only ask for help."""
    return len(stems(question) - _NAMES_NOTHING) <= VAGUE_WORDS


def _similar(matches: list[IncidentMatch], *, here: str | None) -> list[SimilarIncident]:
    """Past incidents like the question, as the answer shows them (never this incident)."""
    return [
        SimilarIncident(
            m.incident.id,
            m.incident.title,
            m.why,
            url=m.url,
            when=m.incident.opened_at.strftime("%d %b %Y"),
            status=m.incident.status,
            line=m.line,
            channel_id=m.incident.channel_id,
            said_status=m.said_status,
        )
        for m in matches
        if m.incident.id != here
    ]


def _runbook_sources(
    top: RunbookHit, others: list[RunbookHit], *, confidence: float | None = None
) -> list[Source]:
    """At most RUNBOOK_CITATIONS sections: the top runbook's (the first carries its text for the
    answer to lead with, and the search's confidence that it is the right runbook, so a nearest
    match is not read as a sure one), then one section of each close runbook, "see also"."""
    room = RUNBOOK_CITATIONS - min(len(others), RUNBOOK_CITATIONS - 1)
    sure = "" if confidence is None else f" · confidence {round(100 * confidence)} %"
    out = [
        Source(
            "",
            "runbook",
            f"{top.slug} › {sec.heading}{sure if i == 0 else ''}",
            runbook_text.lead(sec.text, LEAD_CHARS) if i == 0 and sec.text else sec.snippet,
            sec.url,
            ref=f"runbook:{top.slug}#{sec.anchor}",
        )
        for i, sec in enumerate(top.sections[:room])
    ]
    for hit in others[: RUNBOOK_CITATIONS - len(out)]:
        if hit.sections:
            sec = hit.sections[0]
            label = f"{SEE_ALSO_LABEL} {hit.slug} › {sec.heading}"
            ref = f"runbook:{hit.slug}#{sec.anchor}"
            out.append(Source("", "runbook", label, sec.snippet, sec.url, ref=ref))
    return out


def _budget(candidates: list[Source], budget: int, *, prefix: str = "S") -> list[Source]:
    """Keep sources in priority order until the token budget is spent; number what is kept. A
    source longer than what is left is cut to fit (at a line, sentence or word) when a useful
    part fits: a long Mitigation section dropped whole left only its runbook's see-also links."""
    kept: list[Source] = []
    used = 0
    costs = [estimate_tokens(c.label) + estimate_tokens(c.text) for c in candidates]
    for i, source in enumerate(candidates):
        cost = costs[i]
        if used + cost > budget:
            room = budget - used - estimate_tokens(source.label)
            # What follows keeps up to half of what is left (see-also links, memory).
            room -= min(sum(costs[i + 1 :]), room // 2)
            if room < MIN_CUT_TOKENS:
                continue
            cut = runbook_text.lead(source.text, room * 4)
            if len(re.sub(r"```|…|\s", "", cut)) < MIN_CUT_CHARS:
                continue  # nothing of it fits but the ellipsis (a long command, say)
            source = replace(source, text=cut)
            cost = estimate_tokens(source.label) + estimate_tokens(source.text)
        used += cost
        kept.append(replace(source, key=f"{prefix}{len(kept) + 1}"))
    return kept


def _proposals(
    sources: list[Source],
    skill_bodies: dict[str, str],
    vocabulary: tuple[tuple[str, str, tuple[str, ...]], ...],
) -> list[ProposedAction]:
    """Catalogue actions named by a cited runbook section or a cited matching skill. None on an
    answer without a cited runbook (abstained or memory-only): memory never proposes."""
    if not vocabulary or not any(s.kind == "runbook" for s in sources):
        return []
    texts = [(f"runbook {s.label}", s.text) for s in sources if s.kind == "runbook"]
    texts += [(s.label, skill_bodies[s.label]) for s in sources if s.label in skill_bodies]
    out: list[ProposedAction] = []
    for name, title, phrases in vocabulary:
        patterns = [_phrase(p) for p in phrases]
        where = next(
            (label for label, text in texts if any(p.search(text) for p in patterns)), None
        )
        if where is not None:
            out.append(ProposedAction(name, title, where))
    return out


KIND_NAMES = {
    "root_cause": "root cause",
    "decision": "decision",
    "action": "action",
    "mitigation": "mitigation",
    "status": "status",
    "correction": "correction",
    "fact": "fact",
    "preference": "preference",
    "note": "note",
}


def shown_text(item: RecallItem) -> str:
    """The item's words without a leading label its kind already says ("Decision: …" of a
    decision); a plain note keeps all of its words."""
    return item.text if item.kind == "note" else strip_label(item.text)


#: Ends the label of an item a later message (a correction, a handover), shown right above it,
#: replaced.
SUPERSEDED_LABEL = " · superseded by the message above"
#: Ends the label of a reply that reports what came of the item above it ("no change").
OUTCOME_LABEL = " · what came of the item above"
#: Ends the label of a reply that reports the decision or action above it done ("cordoned …").
DONE_LABEL = " · done as the item above said"


def memory_label(item: RecallItem, *, here: str | None) -> str:
    """'root cause · Priya · 12 Mar 02:14 UTC' (+ the incident when it is another one,
    'superseded' when a later correction, shown above it, replaced it, and what came of the
    item above for a reply that reports its effect)."""
    parts = [KIND_NAMES.get(item.kind, item.kind)]
    if item.author_name:
        parts.append(item.author_name)
    parts.append(item.created_at.strftime("%d %b %H:%M UTC"))
    if item.incident_id and item.incident_id != here:
        parts.append(item.incident_id)
    label = " · ".join(parts)
    if item.superseded_by is not None:
        label += SUPERSEDED_LABEL
    if item.follows is not None:
        label += OUTCOME_LABEL
    elif item.done_for is not None:
        label += DONE_LABEL
    return label


def _summary(
    runbooks: list[Source],
    memories: list[Source],
    *,
    question: str = "",
    memory_first: bool = False,
    asker: str = "",
) -> str:
    """The answer's lead: the top runbook section, then what memory says (the sentence of its
    best item that answers `question`) or that it has nothing. A question about what the team
    said or did (`memory_first`) leads with memory, and a runbook under it takes one line: no
    runbook knows who owns a fix, when it landed or what was decided. `asker`: the asker's
    name, which "what do I owe?" asks about (the sentence of a handover naming them answers)."""
    if not memories and asks_own_items(question):
        return messages.NOTHING_YOURS  # no runbook knows what the asker owes
    if not runbooks and not memories:
        return messages.NOTHING_FOUND
    parts = []
    if len(memories) > 1 and (asks_open_items(question) or asks_own_items(question)):
        # "What are the open action items?" is answered by the list, not by its first item.
        parts.append(_open_items(memories))
    elif len(memories) > 1 and (handed := _handover_said(memories[0], memories[1], question)):
        # "Sure, I'll take the renewal job fix over" above the item it took: what the item is
        # stays true, so the lead says it, then who has it now.
        top, item = memories[:2]
        label = item.label.removesuffix(SUPERSEDED_LABEL)
        what = _first_sentence(strip_label(item.text).split("\n", 1)[0].split("```", 1)[0], 160)
        parts.append(
            f"Memory says [{item.key}] ({label}): {what} → [{top.key}] ({top.label}): {handed}"
        )
    elif (
        len(memories) > 1
        and asks_when(question) == ("start", "end")
        and says_recovered(memories[1].text)
    ):
        # "When did it start and when was it fixed?": both, each from the message that says it.
        began, ended = memories[:2]
        parts.append(
            f"Began [{began.key}] ({began.label}): {_answering_sentence(began.text, _BEGAN_WORDS)}\n"
            f"Recovered [{ended.key}] ({ended.label}): {_answering_sentence(ended.text, _ENDED_WORDS)}"
        )
    elif memories:
        top = memories[0]
        # "What do I owe?" asks about the asker: "I'm off shift. open items: AI-1 … (owner
        # marta)" answers marta with its last sentence, not its first.
        asked = f"{question} {asker}" if asker and asks_own_items(question) else question
        # What is true now: a correction is stated without how it opened ("scratch that, …").
        said = _answering_sentence(without_correction_cue(top.text), asked)
        if asks_outcome(question) and reports_outcome(top.text):
            # "defrag done 09:42, db 2.1GB -> 1.4GB. fsync unchanged": the change and its effect
            said = _change_and_effect(top.text)
        parts.append(f"Memory says [{top.key}] ({top.label}): {said}")
        after = memories[1] if len(memories) > 1 else None
        if after is not None and after.label.endswith(OUTCOME_LABEL):
            # "Did it help?" is answered by the reply, not by the change it asks about.
            label = after.label.removesuffix(OUTCOME_LABEL)
            parts.append(f"What came of it [{after.key}] ({label}): {_effect(after.text)}")
        elif after is not None and after.label.endswith(DONE_LABEL):
            # "which nodes did we cordon?": the decision, then the reply that names them.
            label = after.label.removesuffix(DONE_LABEL)
            done = _first_sentence(what_was_done(after.text), 200)
            parts.append(f"Done [{after.key}] ({label}): {done}")
    else:
        parts.append(messages.NOTHING_IN_MEMORY_HERE)
    if runbooks:
        top = runbooks[0]
        # Under memory's answer, or when the budget dropped the top runbook, one line.
        if memory_first or top.label.startswith(SEE_ALSO_LABEL):
            rb = f"See *{top.label}* [{top.key}]: {_runbook_line(top.text)}"
        else:
            # The label names the runbook: its "# Title" line is no answer to lead with.
            named = top.label.split(" · ")[0].split(" › ")
            body = runbook_text.without_leading_headings(top.text, named) or top.text
            rb = f"*{top.label}* [{top.key}]\n{runbook_text.to_mrkdwn(body)}"
        parts.insert(len(parts) if memory_first else 0, rb)
    return "\n".join(parts)


#: A runbook's best passage this close in meaning to the question is about it whatever words
#: they share ("app keeps dying" and the crash-looping runbook); below it, the words decide.
MEANS_THE_SAME = 0.3

#: The words whose sentence says when an incident began, or that it recovered.
_BEGAN_WORDS = "since started began from"
_ENDED_WORDS = "resolved mitigated fixed recovered restored healthy done back normal"


def _handover_said(top: Source, below: Source, question: str) -> str | None:
    """The sentence of `top` that gives the action shown under it (which it superseded) to
    someone, without how the correction opens ("actually, Alice will own AI-4" -> "Alice will
    own AI-4"); None when `top` is no such handover: not a correction, not over an action, or
    one whose shown sentence names no owner or another item than the action's key."""
    if not (
        top.label.startswith(KIND_NAMES["correction"])
        and below.label.startswith(KIND_NAMES["action"])
        and below.label.endswith(SUPERSEDED_LABEL)
    ):
        return None
    said = _answering_sentence(without_correction_cue(top.text), question)
    keys = item_references(below.text, any_case=True)
    if not names_an_owner(said) or (keys and not keys & item_references(said, any_case=True)):
        return None
    return said


#: What an open-items list lists: action items and the handovers (corrections) that move them.
_LISTED_AS_ITEMS = (KIND_NAMES["action"], KIND_NAMES["correction"])


def _open_items(memories: list[Source]) -> str:
    """The open items memory shows, one line each; an item a later message handed over or
    changed is shown with that message after it ("AI-2 dead letter topic → passing AI-2 to
    maya"), as the roll-up does."""
    lines: list[str] = []
    for i, item in enumerate(memories):
        if item.label.endswith((SUPERSEDED_LABEL, OUTCOME_LABEL, DONE_LABEL)):
            continue  # shown with the correction above it, or under the item it reports on
        if not item.label.startswith(_LISTED_AS_ITEMS):
            continue  # the alert or a plain note shown beside the list is no open item
        line = f"[{item.key}] {_first_sentence(item.text, 160)}"
        after = memories[i + 1] if i + 1 < len(memories) else None
        if after is not None and after.label.endswith(SUPERSEDED_LABEL):
            line = f"[{after.key}] {_first_sentence(after.text, 160)} → {line}"
            after = memories[i + 2] if i + 2 < len(memories) else None
        if after is not None and after.label.endswith((OUTCOME_LABEL, DONE_LABEL)):
            line = f"{line} → [{after.key}] {_first_sentence(after.text, 160)}"
        lines.append(f"• {line}")
    return f"Open items memory shows ({len(lines)}):\n" + "\n".join(lines)


def _memory_covers_more(question: str, memories: list[Source], runbooks: list[Source]) -> bool:
    """Whether memory's top item names more of what the question is about than the top
    runbook section does (every word the section names, and more), for a question asking for
    no kind of section (fix, check, meaning): "where is the new payments key?" under a checkout
    alert is answered by the message that names the key, not by the runbook sharing "checkout"."""
    if not memories or not runbooks or question_intent(question) is not None:
        return False
    asked = topic_words(question)
    # Memory must name all the runbook names of it, and more: "prod-eu" alone is no reason.
    return _covered(asked, runbooks[:1]) < asked & stems(memories[0].text)


def _covered(asked: set[str], runbooks: list[Source]) -> set[str]:
    """The topic words `asked` that the runbook sections (label and text) name."""
    return asked & stems(" ".join(f"{s.label} {s.text}" for s in runbooks))


def _adds_nothing(question: str, memory: Source, runbooks: list[Source]) -> bool:
    """Whether the runbook sections shown name at most half of the question's topic words and
    none that memory's answer does not: beside that answer, they add nothing asked about."""
    asked = topic_words(question)
    if asks_outcome(question):
        asked -= OUTCOME_WORDS  # "did the warming help?" is about the warming
    shown = _covered(asked, runbooks)
    return bool(asked) and 2 * len(shown) <= len(asked) and shown <= asked & stems(memory.text)


def _hit_words(hit: RunbookHit) -> str:
    """What a found runbook says, as far as the search returned it: its slug, title and every
    section it returned (headings and text), identifiers split ("disk-filling-up")."""
    sections = " ".join(f"{' '.join(x.heading_path)} {x.heading} {x.text}" for x in hit.sections)
    return expand_identifiers(f"{hit.slug} {hit.title} {sections}")


def _shares_enough(question: str, runbook: str) -> bool:
    """Whether the runbook (`_hit_words`) names enough of what the question asks to be about
    it: two of its topic words, or half of them (one of one or two). One word of three or more ("full" of
    "ETA for full redundancy?"), or none at all, is a coincidence the search's confidence does
    not see."""
    asked = topic_words(question)
    if not asked:
        return True
    shown = said_of(asked, runbook)
    if len(asked) < 3:
        # "anything about SLA credits?" is not the certificate runbook's, however close in
        # meaning the search found it: it names none of the two words
        return bool(shown)
    return len(shown) >= 2 or 2 * len(shown) >= len(asked)


def _about_most_of(question: str, runbooks: list[Source], *, at_least: int = 1) -> bool:
    """Whether the runbook sections shown name more than half of the question's topic words,
    and `at_least` of them."""
    asked = topic_words(question)
    shown = _covered(asked, runbooks)
    return bool(runbooks) and 2 * len(shown) > len(asked) and len(shown) >= at_least


def _about_half_of(question: str, runbooks: list[Source]) -> bool:
    """Whether the top runbook's sections shown name most of the question's topic words, or
    at least two and half of them (a service or host name of the team's is in no runbook). A
    "see also" runbook is not what answers: "memory-leak-oom" names the "leaked" of "a leaked token", and the
    certificate runbook that would lead names neither word."""
    top = [s for s in runbooks if not s.label.startswith(SEE_ALSO_LABEL)]
    asked = topic_words(question)
    shown = _covered(asked, top)
    # One word in common is too little to tell ("the checkout logouts" and an elevated-errors
    # runbook whose symptoms name checkout), unless it is most of what is asked.
    return bool(top) and (
        2 * len(shown) > len(asked) or (len(shown) >= 2 and 2 * len(shown) >= len(asked))
    )


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9][a-z0-9-]{2,}", text.lower()) if w not in STOP_WORDS}


def _runbook_line(text: str) -> str:
    """A runbook section in one line: the first sentence of what it says first."""
    return _first_sentence(runbook_text.first_words(text))


def _first_sentence(text: str, limit: int = 280) -> str:
    return _answering_sentence(text, "", limit)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: A sentence that only acknowledges: it answers nothing on its own.
_ACK = re.compile(
    r"\W*(?:yes|yep|yeah|no|nope|ok(?:ay)?|k|ack|sure|thanks|thx|ty|lgtm|\+1|done|agreed)\W*", re.I
)
#: A full stop that ends no sentence: an abbreviation, an initial, or a list number opening the
#: text or following a colon ("Steps: 1."); "the pool is at 200." ends one.
_NOT_AN_END = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|approx|cf|incl)\.|\b[A-Za-z]\.|(?:^|[:;]\s?)\d{1,2}\.)$",
    re.IGNORECASE,
)


_END_READ = 16  # characters of a sentence read for an end that is none ("e.g.", "Steps: 1.")


def _sentences(text: str) -> list[str]:
    pieces = [x for x in _SENTENCE_END.split(" ".join(text.split())) if x] or [""]
    out = [pieces[0]]
    for piece in pieces[1:]:
        # Nor does one before a field of the sentence: "… after every rebuild. owner Ola" is
        # one statement, and "who owns it?" needs its last two words; nor one before a
        # sentence that only says what it is ("… rebalance storm. thats the root cause imo").
        # (only its last characters are read: a merged sentence grows with every piece)
        tail = out[-1][-_END_READ:]
        if _NOT_AN_END.search(tail) or finishes_sentence(piece) or points_back(piece):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _effect(reply: str, limit: int = 280) -> str:
    """A reply from the sentence that reports an effect on ("all pods healthy... and handshake
    failures are unchanged" from its second; "no change, p99 still 3.8s. throttling is gone
    though so it's not cpu" whole: the why is in what follows), marked as a part when it does
    not start at the first."""
    sentences = _sentences(reply)
    at = _effect_at(sentences)
    said = runbook_text.lead(" ".join(sentences[at:]), limit)
    return said if at == 0 else f"… {said}"


def _change_and_effect(text: str, limit: int = 280) -> str:
    """A message that says both what was done and what came of it, by its first sentence and
    the one that reports the effect: "defrag done on all 3 members 09:42, db 2.1GB -> 1.4GB.
    fsync unchanged"."""
    sentences = _sentences(text)
    at = _effect_at(sentences)
    shown = sentences[: at + 1] if at <= 1 else [sentences[0], "…", sentences[at]]
    return runbook_text.lead(" ".join(shown), limit)


def _effect_at(sentences: list[str]) -> int:
    """The first sentence that reports an effect (the first sentence when none does)."""
    return next((i for i, x in enumerate(sentences) if reports_outcome(x)), 0)


def _answering_sentence(text: str, question: str, limit: int = 280) -> str:
    """The sentence of `text` that shares most content words with `question` (the first on a
    tie, or with no question), never one that asks or only acknowledges when one states: "CDN
    status is green. Edge logs say origin_timeout on the 502s." answers "what did the edge logs
    say?" with its second sentence, marked as a part ("…")."""
    sentences = _sentences(text)
    asked = stems(question)
    # Asked something, a sentence that asks ("did the rollback help?") or only acknowledges
    # ("yes", "ok") answers nothing when another states.
    stating = [
        i
        for i, x in enumerate(sentences)
        if not question or not (x.rstrip().endswith("?") or _ACK.fullmatch(x))
    ] or list(range(len(sentences)))
    # "What did we do about the broker disk?" is answered by the sentence that says what was
    # done ("I set retention.ms to 3 days"), not the one that shares "disk" with it.
    kinds = asked_kinds(question) if question else ()
    # Of sentences that share as many of its words, "how long were we down?" is answered by
    # the one that says a span ("~37 min of errors"), not the one before it ("resolved."); a
    # clock time or a number is as often part of the story ("which did we try first?").
    typed = wanted(question) if question else None
    best = max(
        stating,
        key=lambda i: (
            bool(kinds) and classify(sentences[i]).kind in kinds,
            len(asked & stems(sentences[i])),
            typed == "duration" and says_how_long(sentences[i]),
            -i,
        ),
    )
    sentence = runbook_text.lead(sentences[best], limit)  # a long sentence is cut at a word
    return sentence if best == 0 else f"… {sentence}"


#: How much of a roll-up's title its label shows.
TITLE_CHARS = 60


def _title(title: str) -> str:
    """A roll-up's title for its label: whole, or cut after a word with an ellipsis (never
    "users logged out m")."""
    if len(title) <= TITLE_CHARS:
        return title
    return at_word(title, TITLE_CHARS - 1, share=0.6).rstrip(" ,;:-") + "…"
