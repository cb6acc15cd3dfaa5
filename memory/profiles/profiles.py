"""Profiles: per-person facts and preferences (stack, tools, constraints, on-call role).

Facts are user-scoped (only their subject ever sees them), redacted before they are stored (fail
closed), deduplicated by normalised containment and embedding near-duplicates, and corrections
supersede older facts while keeping them as history. Thresholds live in `fact_matching`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal

import numpy as np

from memory.clock import Clock, iso, parse_iso, utc_now
from memory.errors import (
    EmbeddingUnavailable,
    EmptyText,
    FactOnlySecrets,
    FactTooLong,
    UnknownItem,
)
from memory.profiles.dedup import Candidate, Decision, decide
from memory.profiles.extraction import Chat, SourceMessage, extract_facts
from memory.profiles.fact_matching import Category, guess_category, has_content, normalise
from memory.redaction.redactor import Finding
from memory.scopes import Requester, partition_key_for
from memory.store import profiles as store
from memory.store import vectors
from memory.store.audit import finding_counts, findings_list_json, write_audit

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.redaction.redactor import Redactor
    from memory.scopes import WriteContext
    from memory.store.db import Database, Row, Tx

log = logging.getLogger(__name__)

FactKind = Literal["fact", "preference", "correction"]
Outcome = Literal["added", "duplicate", "replaced", "corrected"]
MAX_FACT_CHARS = 500
ID_PREFIX = "profile:"


@dataclass(frozen=True)
class ProfileFact:
    """One stored fact; `outcome` says what `add_fact` did (not stored)."""

    id: str
    subject_id: str
    kind: FactKind
    category: str
    text: str
    origin: str
    source_channel_id: str | None
    source_ts: str | None
    permalink: str | None
    created_at: datetime
    superseded_by: str | None
    superseded_at: datetime | None
    findings: tuple[Finding, ...] = ()
    outcome: Outcome = "added"

    @property
    def current(self) -> bool:
        return self.superseded_at is None


@dataclass(frozen=True)
class _NewFact:
    text: str
    norm: str
    kind: FactKind
    category: str
    origin: str
    source_channel_id: str | None
    source_ts: str | None
    findings: tuple[Finding, ...]
    vector: np.ndarray | None
    supersedes: int | None = None


def fact_id(rowid: int) -> str:
    return f"{ID_PREFIX}{rowid}"


def parse_fact_id(item_id: str) -> int:
    """'profile:12' -> 12; UnknownItem for anything else."""
    if not item_id.startswith(ID_PREFIX) or not item_id[len(ID_PREFIX) :].isdigit():
        raise UnknownItem(item_id[:40])
    return int(item_id[len(ID_PREFIX) :])


def _row_to_fact(row: Row, outcome: Outcome = "added") -> ProfileFact:
    return ProfileFact(
        id=fact_id(row["id"]),
        subject_id=row["owner_subject_id"],
        kind=row["kind"],
        category=row["category"],
        text=row["text"],
        origin=row["origin"],
        source_channel_id=row["source_channel_id"],
        source_ts=row["source_ts"],
        permalink=row["permalink"],
        created_at=parse_iso(row["created_at"]),
        superseded_by=None if row["superseded_by"] is None else fact_id(row["superseded_by"]),
        superseded_at=None if row["superseded_at"] is None else parse_iso(row["superseded_at"]),
        findings=tuple(Finding(f["entity_type"], f["count"]) for f in json.loads(row["findings"])),
        outcome=outcome,
    )


class Profiles:
    """Reads and writes `memory_profile_facts` (+ its FTS and vectors)."""

    def __init__(
        self,
        db: Database,
        redactor: Redactor,
        embedder: Embedder | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self._redactor = redactor
        self._embedder = embedder
        self._clock = clock

    async def add_fact(
        self,
        ctx: WriteContext,
        text: str,
        kind: FactKind = "fact",
        *,
        category: Category | None = None,
        source_ts: str | None = None,
        supersedes: str | None = None,
    ) -> ProfileFact:
        """Redact, deduplicate and store one fact from an explicit command."""
        trimmed = text.strip()
        if not trimmed:
            raise EmptyText("The fact")
        if len(trimmed) > MAX_FACT_CHARS:
            raise FactTooLong(limit=MAX_FACT_CHARS, got=len(trimmed))
        target = None if supersedes is None else parse_fact_id(supersedes)
        redacted = await self._redactor.redact(trimmed)  # RedactionFailed: nothing written
        if not has_content(redacted.text):
            raise FactOnlySecrets()
        new = _NewFact(
            text=redacted.text,
            norm=normalise(redacted.text),
            kind=kind,
            category=category or guess_category(redacted.text),
            origin="command",
            source_channel_id=ctx.channel_id,
            source_ts=source_ts or ctx.source_ts,
            findings=redacted.findings,
            vector=(await self._embed([redacted.text]))[0],
            supersedes=target,
        )
        return (await self._store(ctx, [new]))[0]

    async def extract_from_messages(
        self, ctx: WriteContext, chat: Chat, messages: Sequence[SourceMessage]
    ) -> list[ProfileFact]:
        """LLM extraction over the author's own messages; invalid output stores nothing."""
        subject = ctx.author.subject_id
        own = [m for m in messages if m.author_subject_id == subject]
        if not own:
            return []
        clean = await self._redactor.redact_many([m.text for m in own])
        own = [replace(m, text=r.text) for m, r in zip(own, clean, strict=True)]
        facts = await extract_facts(chat, subject, own)
        if not facts:
            return []
        redacted = await self._redactor.redact_many([f.text for f in facts])
        channel_of = {m.ts: m.channel_id for m in own}
        kept = [(f, r) for f, r in zip(facts, redacted, strict=True) if has_content(r.text)]
        if not kept:
            return []
        vecs = await self._embed([r.text for _, r in kept])
        new = [
            _NewFact(
                text=r.text,
                norm=normalise(r.text),
                kind=f.kind,
                category=f.category,
                origin="extraction",
                source_channel_id=channel_of.get(f.source_ts) or ctx.channel_id,
                source_ts=f.source_ts,
                findings=r.findings,
                vector=vecs[i],
            )
            for i, (f, r) in enumerate(kept)
        ]
        return await self._store(ctx, new)

    async def facts(self, subject_id: str) -> list[ProfileFact]:
        """The subject's current facts, oldest first (for export, App Home and answers)."""
        rows = await store.current_facts(self._db, subject_id)
        return [_row_to_fact(r) for r in rows]

    async def history(self, subject_id: str) -> list[ProfileFact]:
        """Every fact the subject has, superseded ones included, oldest first."""
        rows = await store.all_facts(self._db, subject_id)
        return [_row_to_fact(r) for r in rows]

    async def for_requester(self, requester: Requester, limit: int = 20) -> list[ProfileFact]:
        """Current facts the requester may see (their own), through the one visibility filter."""
        rows = await store.visible_current_facts(self._db, requester, limit=limit)
        return [_row_to_fact(r) for r in rows]

    async def delete(self, subject_id: str, item_id: str) -> None:
        """Delete one of the subject's own facts (history row, FTS and vector)."""
        rowid = parse_fact_id(item_id)
        async with self._db.transaction() as tx:
            team_id = await store.owner_team(tx, rowid, subject_id)
            if team_id is None:
                raise UnknownItem(item_id)
            await store.delete(tx, rowid)
            await vectors.delete_items(tx, "profile", [rowid])
            await write_audit(
                tx,
                at=iso(self._clock()),
                action="profile.delete",
                subject_id=subject_id,
                team_id=team_id,
                channel_id=None,
                scope="user",
                item_id=item_id,
            )

    async def _embed(self, texts: list[str]) -> list[np.ndarray | None]:
        if self._embedder is None:
            return [None] * len(texts)
        try:
            return list(await self._embedder.embed(texts))
        except EmbeddingUnavailable:
            log.warning("profile_embedding_unavailable", extra={"texts": len(texts)})
            return [None] * len(texts)

    async def _store(self, ctx: WriteContext, items: list[_NewFact]) -> list[ProfileFact]:
        """Dedup and write every item in one transaction: all stored, or none."""
        subject = ctx.author.subject_id
        now = iso(self._clock())
        partition = partition_key_for(
            scope="user",
            team_id=ctx.team_id,
            channel_id=None,
            channel_is_private=False,
            owner_subject_id=subject,
        )
        results: list[ProfileFact] = []
        async with self._db.transaction() as tx:
            for item in items:
                current = await self._candidates(tx, subject, partition)
                decision = decide(item.norm, item.kind, item.vector, current, item.supersedes)
                rowid = await self._apply(tx, ctx, item, decision, now, partition)
                row = await store.get(tx, rowid)
                assert row is not None  # we just wrote or matched it inside this transaction
                results.append(_row_to_fact(row, decision.outcome))
        return results

    async def _candidates(self, tx: Tx, subject: str, partition: str) -> list[Candidate]:
        rows = await store.current_norms(tx, subject)
        vecs = {}
        if self._embedder is not None:
            vecs = await vectors.vectors_in_partition(tx, "profile", self._embedder, partition)
        return [Candidate(int(r["id"]), r["norm"], vecs.get(int(r["id"]))) for r in rows]

    async def _apply(
        self, tx: Tx, ctx: WriteContext, item: _NewFact, decision: Decision, now: str, part: str
    ) -> int:
        if decision.outcome == "duplicate":
            assert decision.keep is not None  # decide() always names the kept fact
            return decision.keep
        if decision.target_missing:
            raise UnknownItem(fact_id(item.supersedes or 0))
        rowid = await store.insert(
            tx,
            team_id=ctx.team_id,
            channel_id=ctx.channel_id,
            channel_is_private=ctx.channel_is_private,
            owner_subject_id=ctx.author.subject_id,
            kind=item.kind,
            category=item.category,
            text=item.text,
            norm=item.norm,
            origin=item.origin,
            source_channel_id=item.source_channel_id,
            source_ts=item.source_ts,
            permalink=ctx.permalink if item.origin == "command" else None,
            findings=findings_list_json(item.findings),
            now=now,
        )
        await write_audit(
            tx,
            at=now,
            action="profile.add",
            subject_id=ctx.author.subject_id,
            team_id=ctx.team_id,
            channel_id=ctx.channel_id,
            scope="user",
            item_id=fact_id(rowid),
            counts=finding_counts(item.findings),
        )
        if decision.supersede:
            await store.supersede(tx, new=rowid, old=decision.supersede, now=now)
            await vectors.delete_items(tx, "profile", decision.supersede)
        if item.vector is not None and self._embedder is not None:
            await vectors.upsert(
                tx, "profile", self._embedder, item_id=rowid, partition_key=part, vector=item.vector
            )
        return rowid
