"""Runbook search: keyword (FTS5 BM25F), semantic (sqlite-vec) and hybrid, cited to the section.

Retrieved runbook text is data, never instructions: results are bounded in count (limit <= 10,
at most MAX_SECTIONS sections each) and size (snippets of at most SNIPPET_CHARS), and each carries
slug, anchor and content hash so a reader can check exactly what was cited.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from knowledge.chunking import chunk_runbook
from knowledge.corpus import Corpus, normalise_slug
from knowledge.errors import IndexBuildFailed, InvalidQuery
from knowledge.index import Generation, RunbookIndex, provenance_for
from knowledge.index_text import humanise
from knowledge.intent import Intent, heading_kind, question_intent, section_kind
from knowledge.names import RunbookNames, looks_like_a_name
from knowledge.profile import (
    Profile,
    QueryProfile,
    TermStats,
    overlap,
    profile,
    specific_lead_text,
    without_exclusions,
)
from knowledge.ranking import (
    SIGNALS,
    Candidate,
    FusionConfig,
    confidence,
    confidence_features,
    fuse,
    question_shifted,
)
from knowledge.store import fts
from knowledge.store import runbooks as store_runbooks
from knowledge.store import vectors as vector_tables
from knowledge.wording import Vocabulary, asks_question, spelled_out, without_contrasts
from memory.embedding.embedder import Embedder
from memory.errors import EmbeddingUnavailable, InvalidLimit
from memory.store import Database, Row
from memory.text import Mode, at_word, identifier_terms

log = logging.getLogger(__name__)

MAX_LIMIT = 10
MAX_QUERY_CHARS = 4_000
MAX_SECTIONS = 3
SNIPPET_CHARS = 300
#: A cited section's text, lines and code fences kept, so an answer can lead with its commands.
SECTION_TEXT_CHARS = 1_500
#: Another runbook is worth a "see also" only when it scores at least this share of the top one.
SEE_ALSO_FLOOR = 0.8
#: A section shorter than this (after its heading) says nothing on its own: cite another first.
SUBSTANTIVE_CHARS = 40
KEYWORD_DEPTH = 60  # candidate rows read from each keyword index
VECTOR_DEPTH = 60  # nearest chunks read from the vector index
#: The semantic half embeds the question's first 300 characters: alerts and people state the problem
#: first, the rest is detail (instances, paths) the keyword half still reads in full. Embedding
#: cost grows with length; on the shared sets 300 kept every hit@1/hit@3/AUROC unchanged while
#: 400-runbook hybrid p95 fell from 31-35 ms to under 30 (bench/knowledge.py).
QUERY_EMBED_CHARS = 300
#: BM25F column weights (title, headings, body): title and headings outweigh body text.
DOC_WEIGHTS = (4.0, 2.0, 1.0)
CHUNK_WEIGHTS = (2.0, 2.0, 1.0)


@dataclass(frozen=True)
class Section:
    heading_path: tuple[str, ...]
    anchor: str
    text: str
    content_hash: str


@dataclass(frozen=True)
class Runbook:
    slug: str
    title: str
    sections: list[Section]


@dataclass(frozen=True)
class SectionHit:
    heading: str
    anchor: str
    content_hash: str
    snippet: str
    url: str | None
    heading_path: tuple[str, ...] = ()
    text: str = ""  # the section itself, at most SECTION_TEXT_CHARS, line breaks kept
    kind: Intent | None = None  # what the section answers (knowledge.intent.section_kind)


@dataclass(frozen=True)
class RunbookHit:
    slug: str
    title: str
    score: float
    sections: list[SectionHit]


@dataclass(frozen=True)
class SearchResult:
    hits: list[RunbookHit]
    abstained: bool
    confidence: float
    mode: str
    intent: Intent | None = None  # what the question asks; sections of that kind come first
    similarity: float = 0.0  # the top runbook's best chunk cosine to the query (0: no vectors)


class Knowledge:
    """The runbook corpus plus its index, searched from one database."""

    def __init__(
        self,
        db: Database,
        corpus: Corpus | Path,
        embedder: Embedder | None,
        *,
        runbooks_url: str | None = None,
        config: FusionConfig | None = None,
    ) -> None:
        self._db = db
        self._root = corpus.root if isinstance(corpus, Corpus) else corpus
        self._embedder = embedder
        self._url = runbooks_url.rstrip("/") if runbooks_url else None
        self._config = config or FusionConfig()
        self._index = RunbookIndex(db)
        self._lock = asyncio.Lock()
        self._corpus: Corpus | None = corpus if isinstance(corpus, Corpus) else None
        self._generation: Generation | None = None
        self._profiles: dict[str, Profile] = {}
        self._stats = TermStats(())
        self._names = RunbookNames(())
        self._vocabulary = Vocabulary(())

    @property
    def config(self) -> FusionConfig:
        return self._config

    @property
    def generation(self) -> Generation | None:
        return self._generation

    async def corpus(self) -> Corpus:
        if self._corpus is None:
            self._corpus = await asyncio.to_thread(Corpus.load, self._root)
        return self._corpus

    async def ensure_index(self, *, reload: bool = False) -> Generation:
        """Make the current generation match corpus + embedder; concurrent callers share one build."""
        async with self._lock:
            if reload:
                self._corpus = None
            corpus = await self.corpus()
            if self._embedder is not None:
                try:
                    await self._embedder.warm_up()
                except EmbeddingUnavailable:
                    log.warning("runbook_search_keyword_fallback", extra={"reason": "embedder"})
            if not self._profiles or reload:
                (
                    self._profiles,
                    self._stats,
                    self._names,
                    self._vocabulary,
                ) = await asyncio.to_thread(_profiles, corpus)
            wanted = provenance_for(corpus, self._embedder_if_ready())
            current = await self._index.current()
            if current is not None and current.provenance == wanted:
                self._generation = current
                return current
            try:
                self._generation = await self._index.build(corpus, self._embedder_if_ready())
            except IndexBuildFailed:
                log.warning("runbook_index_build_failed")
                raise
            return self._generation

    def _embedder_if_ready(self) -> Embedder | None:
        if self._embedder is None:
            return None
        try:
            self._embedder.dim  # noqa: B018  # Ollama learns dim on warm-up; unknown means down
        except RuntimeError:
            return None
        return self._embedder

    async def get_runbook(self, slug: str) -> Runbook:
        """Title and sections of one runbook; InvalidSlug / UnknownRunbook otherwise."""
        key = normalise_slug(slug)  # rejected before any filesystem access
        corpus = await self.corpus()
        f = corpus.get(key)
        rb = chunk_runbook(f.slug, f.text)
        sections = [Section(c.heading_path, c.anchor, c.text, c.content_hash) for c in rb.chunks]
        return Runbook(slug=rb.slug, title=rb.title, sections=sections)

    async def resolve(self, text: str) -> str | None:
        """The slug `text` names exactly (slug, file name or alert name such as
        `KubePodCrashLooping`), or None."""
        if self._generation is None:
            await self.ensure_index()
        return self._names.resolve(text)

    async def named_in(self, text: str) -> str | None:
        """The slug a message names (a slug- or alert-name-shaped word in it), or None."""
        if self._generation is None:
            await self.ensure_index()
        return self._names.named_in(text)

    async def closest_slugs(self, text: str, n: int = 3) -> list[str]:
        """Up to `n` real slugs closest to `text` (prefix, edit distance, shared words)."""
        if self._generation is None:
            await self.ensure_index()
        return self._names.closest(text, n)

    async def lookup(self, slug: str, question: str = "") -> RunbookHit:
        """One runbook by slug (through `get_runbook`), its sections linked and ordered for
        `question` the way search orders them: the kind the question asks for first."""
        rb = await self.get_runbook(slug)
        rows = [
            (i, 0, json.dumps(list(s.heading_path)), s.anchor, s.content_hash, s.text, i)
            for i, s in enumerate(rb.sections)
        ]
        cand = Candidate(0, rb.slug, rb.title)
        intent = reading_intent(question) if question.strip() else None
        ordered = choose_sections(cand, rows, intent, limit=len(rows))
        return RunbookHit(
            slug=rb.slug,
            title=rb.title,
            score=1.0,
            sections=[self._section_hit(r, rb.slug) for r in ordered],
        )

    async def search(
        self,
        query: str,
        *,
        limit: int = 3,
        mode: Mode | None = None,
        question: str | None = None,
    ) -> SearchResult:
        """The best runbooks for `query`, each with its best sections, or an abstention.
        `question`: what the person asked, when `query` adds context to it (a thread's first
        message); the kind of section to cite first is read from the question alone."""
        if isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidLimit(got=int(limit), cap=MAX_LIMIT)
        text = query.strip()
        if not text or len(text) > MAX_QUERY_CHARS:
            raise InvalidQuery(length=len(text), limit=MAX_QUERY_CHARS)
        gen = self._generation or await self.ensure_index()
        if not self._vocabulary.knows_any(identifier_terms(text)):
            # "what was teh?", "ok wat now": no word of the query is one any runbook uses (nor
            # one typo away from one), so what the embedding finds nearest is chance.
            return SearchResult(hits=[], abstained=True, confidence=0.0, mode=mode or "hybrid")
        ranked, used, _n_terms = await self.rank(text, mode or "hybrid", gen)
        conf = confidence(
            confidence_features(ranked), self._config, used, question=question_shifted(text, ranked)
        )
        if not ranked or conf < self._config.abstain_below:
            return SearchResult(hits=[], abstained=True, confidence=conf, mode=used)
        intent = reading_intent(question.strip() if question else text)
        hits = await self._hits(ranked[:limit], intent)
        return SearchResult(
            hits=hits,
            abstained=False,
            confidence=conf,
            mode=used,
            intent=intent,
            similarity=ranked[0][1].sem_chunk,
        )

    async def rank(
        self, text: str, mode: Mode, gen: Generation, every_signal: bool = False
    ) -> tuple[list[tuple[float, Candidate]], Mode, int]:
        """(fused ranking, mode actually used, number of query terms); exposed for evaluation.
        Signals the mode's ranking gives no weight are skipped unless `every_signal` (the tuner
        fits every mode's weights from one hybrid run)."""
        # Every signal reads what the problem is, not what the query says it is not, in the
        # runbooks' own words: a person's question (not a pasted alert, which already uses the
        # alert's words) has its typos corrected, its chat shorthand spelled out and what it
        # contrasts the problem with dropped (knowledge.wording.without_contrasts).
        text = without_exclusions(text)
        if asks_question(text):
            text = spelled_out(self._vocabulary.corrected(without_contrasts(text)))
        terms = identifier_terms(text)
        cands: dict[int, Candidate] = {}
        used: Mode = mode
        semantic = None
        if mode != "keyword":
            if gen.semantic and self._embedder is not None:
                # Embedding (a worker thread) overlaps the keyword queries (the database thread).
                semantic = asyncio.ensure_future(self._semantic_rows(text, gen))
            else:
                log.warning("runbook_search_keyword_fallback", extra={"reason": "no vectors"})
                used = "keyword"
        keyword_read = lead_read = False
        if used != "semantic" and terms:
            lead_read = every_signal or self._reads_lead(used)
            try:
                await self._keyword(terms, cands)
                if lead_read:
                    await self._keyword_lead(terms, text, cands)
            except BaseException:
                if semantic is not None:
                    semantic.cancel()
                raise
            keyword_read = True
        if semantic is not None:
            try:
                _merge_semantic(await semantic, cands)
            except EmbeddingUnavailable:
                log.warning("runbook_search_keyword_fallback", extra={"reason": "embedder"})
                used = "keyword"
                if terms:  # the keyword ranking reads what this mode skipped
                    if not keyword_read:
                        await self._keyword(terms, cands)
                    if not lead_read:
                        await self._keyword_lead(terms, text, cands)
        if used != "semantic" and terms:
            qp = QueryProfile.of(text, self._stats)
            weights = self._stats.query_weights(qp)
            for cand in cands.values():
                prof = self._profiles.get(cand.slug)
                if prof is not None:
                    cand.overlap = overlap(qp, prof, self._stats, weights)
        return fuse(list(cands.values()), self._config, used), used, len(terms)

    def _reads_lead(self, mode: Mode) -> bool:
        """Whether `mode`'s ranking weighs the lead-only BM25F (hybrid's does not: skip it)."""
        return self._config.weights(mode)[SIGNALS.index("kw_lead")] != 0.0

    async def _keyword_lead(self, terms: list[str], text: str, cands: dict[int, Candidate]) -> None:
        """Document BM25F of the query's lead alone (the whole query's when they are the same)."""
        lead = identifier_terms(specific_lead_text(text))
        if lead and lead != terms:
            for rid, slug, title, score in await self._doc_rows(lead):
                cands.setdefault(rid, Candidate(rid, slug, title)).kw_lead = score
        else:
            for cand in cands.values():
                cand.kw_lead = cand.kw_doc

    async def _keyword(self, terms: list[str], cands: dict[int, Candidate]) -> None:
        """Document and chunk BM25F of the query."""
        for rid, slug, title, score in await self._doc_rows(terms):
            cands.setdefault(rid, Candidate(rid, slug, title)).kw_doc = score
        rows = await fts.chunk_matches(
            self._db, terms, weights=CHUNK_WEIGHTS, limit=KEYWORD_DEPTH * 2
        )
        for cid, rid, slug, title, score in rows:
            cand = cands.setdefault(rid, Candidate(rid, slug, title))
            cand.kw_chunk = max(cand.kw_chunk, score)
            cand.chunk_kw[cid] = score

    async def _doc_rows(self, terms: list[str]) -> list[Row]:
        return await fts.doc_matches(self._db, terms, weights=DOC_WEIGHTS, limit=KEYWORD_DEPTH)

    async def _semantic_rows(self, text: str, gen: Generation) -> tuple[list, list]:
        """(nearest chunk rows, nearest summary rows) for the query's embedding."""
        assert self._embedder is not None and gen.provenance.dim is not None  # checked by caller
        if self._embedder.digest != gen.provenance.embedder_digest:
            raise EmbeddingUnavailable("The index was built with another embedder.")
        qvec = (await self._embedder.embed([humanise(text)[:QUERY_EMBED_CHARS]]))[0]
        qvec = qvec.astype(np.float32).tobytes()
        dim = gen.provenance.dim
        # Two reader connections: the chunk and summary scans run side by side.
        chunk_rows, doc_rows = await asyncio.gather(
            vector_tables.nearest_chunks(self._db, dim, qvec, k=VECTOR_DEPTH),
            vector_tables.nearest_docs(self._db, dim, qvec, k=VECTOR_DEPTH // 2),
        )
        return list(chunk_rows), list(doc_rows)

    async def _hits(
        self, ranked: list[tuple[float, Candidate]], intent: Intent | None
    ) -> list[RunbookHit]:
        """Runbook hits with the sections that answer the question (read in one query)."""
        sections = await store_runbooks.chunks_of(self._db, [c.runbook_id for _, c in ranked])
        return [
            RunbookHit(
                slug=cand.slug,
                title=cand.title,
                score=round(score, 4),
                sections=[
                    self._section_hit(row, cand.slug)
                    for row in choose_sections(cand, sections.get(cand.runbook_id, []), intent)
                ],
            )
            for score, cand in ranked
        ]

    def _section_hit(self, row: Any, slug: str) -> SectionHit:
        """One citation from a chunk row (id, runbook_id, heading_path, anchor, hash, text, ...)."""
        path = tuple(json.loads(row[2]))
        text = row[5]
        snippet = " ".join(_HEADING_MARK.sub("", text).split())  # "### Case" reads as "Case"
        if len(snippet) > SNIPPET_CHARS:
            snippet = at_word(snippet, SNIPPET_CHARS - 1).rstrip() + "…"
        url = None
        if self._url:
            url = f"{self._url}/{slug}.md" + (f"#{row[3]}" if row[3] else "")
        heading = path[-1] if path else "Overview"
        return SectionHit(
            heading=heading,
            anchor=row[3],
            content_hash=row[4],
            snippet=snippet,
            url=url,
            heading_path=path,
            text=_bounded(text),
            kind=section_kind(path, text),
        )


def reading_intent(text: str) -> Intent | None:
    """The kind of section to cite first for `text`: what it asks (knowledge.intent), else, for a
    person's message that only reports a problem ("quota exceeded for payments, cant deploy"),
    the fix: on call, a reported problem asks what to do about it. A pasted alert, and a
    question of a kind not recognised, get the runbook's sections by relevance."""
    intent = question_intent(text)
    if intent is None and reports_a_problem(text) and not looks_like_a_name(text):
        return "fix"  # a bare slug or alert name asks for the runbook itself, opening first
    return intent


_ASKS = re.compile(r"\?|\b(?:what|whats|wat|why|how|which|who|where|when)\b", re.IGNORECASE)


def reports_a_problem(text: str) -> bool:
    """Whether a person's message states a problem without asking anything: a question whose
    kind was not recognised is left to relevance (its wording, not a default, decides)."""
    return asks_question(text) and _ASKS.search(text) is None


#: What a person asking for one kind of section usually needs next, cited after it.
FOLLOW_UP: dict[Intent, Intent] = {
    "fix": "diagnose",
    "diagnose": "fix",
    "meaning": "impact",
    "impact": "fix",
    "escalate": "impact",
    "verify": "diagnose",
}


_HEADING_LINE = re.compile(r"^\s*#{1,6}\s.*$", re.MULTILINE)
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s+", re.MULTILINE)


def says_something(text: str) -> bool:
    """Whether a section has text beyond heading lines (a bare `# Title` is never cited)."""
    return bool(_HEADING_LINE.sub("", text).strip())


_LINK_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\[[^\]\n]+\]\([^)\s]+\)[\s,.;]*)+$")


def only_links(text: str) -> bool:
    """Whether a section is only a list of links ("## Related\n- [high-latency](…)"): where to go
    next, not an answer to lead with."""
    lines = [line for line in _HEADING_LINE.sub("", text).splitlines() if line.strip()]
    return bool(lines) and all(_LINK_LINE.match(line) for line in lines)


def see_also(top: RunbookHit, others: Sequence[RunbookHit]) -> list[RunbookHit]:
    """The other runbooks close enough to the top one to mention (score >= SEE_ALSO_FLOOR of it)."""
    return [h for h in others if top.score > 0 and h.score >= SEE_ALSO_FLOOR * top.score]


def choose_sections(
    cand: Candidate, rows: Sequence[Any], intent: Intent | None, limit: int = MAX_SECTIONS
) -> list[Any]:
    """Up to MAX_SECTIONS of a runbook's sections, best first. Sections of the kind the question
    asks for come first (the top-level one when it has something to say), then the kind usually
    needed next (FOLLOW_UP: a fix question next sees the diagnosis); then relevance, the
    max-normalised BM25 plus cosine of each section. Empty sections come last; when nothing
    matched, the runbook's opening sections are cited in document order."""
    kmax = max(cand.chunk_kw.values(), default=0.0) or 1.0
    rows, members = with_subsections(rows)

    def key(row: Any) -> tuple[float, ...]:
        cid, path, text = row[0], json.loads(row[2]), row[5]
        links = only_links(text)
        substantive = len(text.strip()) >= SUBSTANTIVE_CHARS and not links
        # A list of links says where to go next: read from its words, "[deployment-rollback]
        # (…)" under "Related" would tell people to roll back. Its heading still names a kind.
        kind = section_kind(path, text)
        if links and not any(heading_kind(h) for h in path):
            kind = None
        wanted = intent is not None and kind == intent
        next_up = intent is not None and kind == FOLLOW_UP[intent] and len(path) <= 1
        relevance = max(
            cand.chunk_kw.get(m, 0.0) / kmax + cand.chunk_sem.get(m, 0.0) for m in members[cid]
        )
        return (
            -float(wanted),
            -float(wanted and substantive and len(path) <= 1),
            -float(substantive),
            -float(next_up),
            -relevance,
            row[6],
        )

    chosen: list[Any] = []
    covered: set[Any] = set()
    for row in sorted((r for r in rows if says_something(r[5])), key=key):
        if row[0] in covered:
            continue  # already cited as part of the section it sits under
        chosen.append(row)
        covered.update(members[row[0]])
        if len(chosen) == limit:
            break
    return chosen


def with_subsections(rows: Sequence[Any]) -> tuple[list[Any], dict[Any, list[Any]]]:
    """Rows where a section with next to nothing of its own ("## Mitigation" straight followed by
    its "### ..." cases) carries its subsections' text under their headings: the section a
    person means is the heading and everything under it. Also each row id's member chunk ids
    (itself, plus its subsections for such a section)."""
    ordered = sorted(rows, key=lambda r: r[6])
    paths = [tuple(json.loads(r[2])) for r in ordered]
    out: list[Any] = []
    members: dict[Any, list[Any]] = {}
    for i, row in enumerate(ordered):
        path, own = paths[i], row[5]
        below = []
        if path and len(_HEADING_LINE.sub("", own).strip()) < SUBSTANTIVE_CHARS:
            for j in range(i + 1, len(ordered)):
                if len(paths[j]) <= len(path) or paths[j][: len(path)] != path:
                    break
                below.append(j)
        members[row[0]] = [row[0]] + [ordered[j][0] for j in below]
        if not below:
            out.append(row)
            continue
        parts = [own.strip()] if own.strip() else []
        for j in below:
            depth = "#" * min(6, len(paths[j]) + 1)
            parts.append(f"{depth} {paths[j][-1]}\n\n{ordered[j][5].strip()}")
        out.append((*row[:5], "\n\n".join(parts), *row[6:]))
    return out, members


def _bounded(text: str) -> str:
    """`text` cut at a line end to at most SECTION_TEXT_CHARS; an open code fence is closed."""
    if len(text) <= SECTION_TEXT_CHARS:
        return text
    cut = text[: SECTION_TEXT_CHARS - 5]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    if cut.count("```") % 2:
        cut += "\n```"
    return cut + "\n…"


def _merge_semantic(rows: tuple[list, list], cands: dict[int, Candidate]) -> None:
    chunk_rows, doc_rows = rows
    for cid, rid, slug, title, cos in chunk_rows:
        cand = cands.setdefault(rid, Candidate(rid, slug, title))
        cand.sem_chunk = max(cand.sem_chunk, cos)
        cand.chunk_sem[cid] = cos
    for rid, slug, title, cos in doc_rows:
        cands.setdefault(rid, Candidate(rid, slug, title)).sem_doc = cos


def _profiles(
    corpus: Corpus,
) -> tuple[dict[str, Profile], TermStats, RunbookNames, Vocabulary]:
    """Term profiles of every runbook, the corpus term statistics, the names people may type
    for each runbook and the corpus's words (CPU work, in a thread)."""
    chunked = [chunk_runbook(f.slug, f.text) for f in corpus.files.values()]
    profiles = {rb.slug: profile(rb) for rb in chunked}
    names = RunbookNames((rb.slug, rb.title) for rb in chunked)
    vocabulary = Vocabulary(f.text for f in corpus.files.values())
    return profiles, TermStats(profiles.values(), vocabulary.words), names, vocabulary
