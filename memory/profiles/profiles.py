"""Profiles: per-person facts and preferences (stack, tools, constraints, on-call role).

Facts are user-scoped (only their subject ever sees them), redacted before they are stored (fail
closed), deduplicated by normalised containment and embedding near-duplicates, and corrections
supersede older facts while keeping them as history. Thresholds live in `_fact_matching`.
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
from memory.errors import EmbeddingUnavailable, EmptyText, UnknownItem, ValidationError
from memory.profiles.dedup import Candidate, Decision, decide
from memory.profiles.extraction import Chat, SourceMessage, extract_facts
from memory.profiles.fact_matching import Category, guess_category, has_content, normalise
from memory.redaction.redactor import Finding
from memory.scopes import Requester, partition_key_for, visibility_sql
from memory.store import item_vectors as vectors
from memory.store.audit import findings_json, write_audit

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


class FactTooLong(ValidationError):
    def __init__(self, *, limit: int, got: int) -> None:
        self.limit, self.got = limit, got
        super().__init__(
            f"Profile facts can be at most {limit:,} characters; this one has {got:,}."
        )


class FactOnlySecrets(ValidationError):
    def __init__(self) -> None:
        super().__init__(
            "That fact held only secrets or personal data, so nothing was saved; "
            "write it without them."
        )


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


_COLUMNS = """id, owner_subject_id, kind, category, text, origin, source_channel_id, source_ts,
    permalink, created_at, superseded_by, superseded_at, findings"""


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
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM memory_profile_facts"
            " WHERE owner_subject_id = :s AND superseded_at IS NULL ORDER BY created_at, id",
            {"s": subject_id},
        )
        return [_row_to_fact(r) for r in rows]

    async def history(self, subject_id: str) -> list[ProfileFact]:
        """Every fact the subject has, superseded ones included, oldest first."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM memory_profile_facts"
            " WHERE owner_subject_id = :s ORDER BY created_at, id",
            {"s": subject_id},
        )
        return [_row_to_fact(r) for r in rows]

    async def for_requester(self, requester: Requester, limit: int = 20) -> list[ProfileFact]:
        """Current facts the requester may see (their own), through the one visibility filter."""
        where, params = visibility_sql(requester, alias="f")
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM memory_profile_facts AS f"
            f" WHERE {where} AND f.superseded_at IS NULL ORDER BY f.created_at DESC LIMIT :limit",
            {**params, "limit": limit},
        )
        return [_row_to_fact(r) for r in rows]

    async def delete(self, subject_id: str, item_id: str) -> None:
        """Delete one of the subject's own facts (history row, FTS and vector)."""
        rowid = parse_fact_id(item_id)
        async with self._db.transaction() as tx:
            row = await tx.fetchone(
                "SELECT team_id FROM memory_profile_facts WHERE id = ? AND owner_subject_id = ?",
                (rowid, subject_id),
            )
            if row is None:
                raise UnknownItem(item_id)
            await tx.execute(
                "UPDATE memory_profile_facts SET superseded_by = NULL WHERE superseded_by = ?",
                (rowid,),
            )
            await tx.execute("DELETE FROM memory_profile_facts WHERE id = ?", (rowid,))
            await vectors.delete_items(tx, "profile", [rowid])
            await write_audit(
                tx,
                at=iso(self._clock()),
                action="profile.delete",
                subject_id=subject_id,
                team_id=row["team_id"],
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
                row = await tx.fetchone(
                    f"SELECT {_COLUMNS} FROM memory_profile_facts WHERE id = ?", (rowid,)
                )
                assert row is not None  # we just wrote or matched it inside this transaction
                results.append(_row_to_fact(row, decision.outcome))
        return results

    async def _candidates(self, tx: Tx, subject: str, partition: str) -> list[Candidate]:
        rows = await tx.fetchall(
            "SELECT id, norm FROM memory_profile_facts"
            " WHERE owner_subject_id = ? AND superseded_at IS NULL",
            (subject,),
        )
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
        rowid = await tx.execute(
            """
            INSERT INTO memory_profile_facts
                (team_id, channel_id, channel_is_private, owner_subject_id, kind, category, text,
                 norm, origin, source_channel_id, source_ts, permalink, findings, created_at)
            VALUES (:team, :channel, :private, :owner, :kind, :category, :text,
                    :norm, :origin, :src_channel, :src_ts, :permalink, :findings, :now)
            """,
            {
                "team": ctx.team_id,
                "channel": ctx.channel_id,
                "private": int(ctx.channel_is_private),
                "owner": ctx.author.subject_id,
                "kind": item.kind,
                "category": item.category,
                "text": item.text,
                "norm": item.norm,
                "origin": item.origin,
                "src_channel": item.source_channel_id,
                "src_ts": item.source_ts,
                "permalink": ctx.permalink if item.origin == "command" else None,
                "findings": json.dumps(
                    [{"entity_type": f.entity_type, "count": f.count} for f in item.findings]
                ),
                "now": now,
            },
        )
        await tx.execute(
            "INSERT INTO memory_audit (at, action, subject_id, team_id, channel_id, scope,"
            " item_id, findings) VALUES (?, 'profile.add', ?, ?, ?, 'user', ?, ?)",
            (
                now,
                ctx.author.subject_id,
                ctx.team_id,
                ctx.channel_id,
                fact_id(rowid),
                findings_json(item.findings),
            ),
        )
        if decision.supersede:
            marks = [{"new": rowid, "now": now, "old": old} for old in decision.supersede]
            await tx.executemany(
                "UPDATE memory_profile_facts SET superseded_by = :new, superseded_at = :now"
                " WHERE id = :old",
                marks,
            )
            await vectors.delete_items(tx, "profile", decision.supersede)
        if item.vector is not None and self._embedder is not None:
            await vectors.upsert(
                tx, "profile", self._embedder, item_id=rowid, partition_key=part, vector=item.vector
            )
        return rowid
