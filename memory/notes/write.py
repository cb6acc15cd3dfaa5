"""The note write transaction: incident check, note rows, neighbour context, vectors, audit."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from memory.clock import iso
from memory.errors import UnknownIncident
from memory.notes.exchange import WINDOW, in_exchange
from memory.scopes import WriteContext
from memory.store import notes as note_store
from memory.store.audit import AuditEntry, write_audits
from memory.store.vectors import VectorTable

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.store.db import Database, Tx
    from memory.subjects import Subjects


@dataclass(frozen=True)
class NoteRow:
    """A validated, redacted note ready to be written."""

    ctx: WriteContext
    kind: str
    text: str
    incident_id: str | None
    created_at: datetime
    findings: dict[str, int]
    vector: np.ndarray | None


async def write_notes(
    db: Database,
    rows: list[NoteRow],
    *,
    subjects: Subjects,
    embedder: Embedder | None,
    neighbours: int,
    audit_at: datetime,
    context_later: bool = False,
) -> list[int]:
    """Write every row (or none) in one transaction; returns the new note ids in order.

    `context_later`: leave the neighbours' context to `apply_pending_context` (each note's own
    context, read from the notes before it, is still written here)."""
    vectors = VectorTable.of("note", embedder) if embedder is not None else None

    async def body(tx: Tx) -> list[int]:
        ids: list[int] = []
        seen_incidents: set[tuple[str, str]] = set()
        seen_authors: set[str] = set()
        for row in rows:
            ctx = row.ctx
            if row.incident_id and (ctx.team_id, row.incident_id) not in seen_incidents:
                await _require_incident(tx, ctx, row.incident_id)
                seen_incidents.add((ctx.team_id, row.incident_id))
            if ctx.author.subject_id not in seen_authors:
                await subjects.remember(tx, ctx.author)
                seen_authors.add(ctx.author.subject_id)
            ids.append(await _insert_one(tx, row, neighbours, context_later=context_later))
        if vectors is not None:
            await vectors.insert(
                tx,
                [
                    (nid, row.ctx.partition_key, row.vector)
                    for nid, row in zip(ids, rows, strict=True)
                    if row.vector is not None
                ],
            )
        await write_audits(
            tx,
            [
                AuditEntry(
                    at=iso(audit_at),
                    action="note.save",
                    subject_id=row.ctx.author.subject_id,
                    team_id=row.ctx.team_id,
                    channel_id=row.ctx.channel_id,
                    scope=row.ctx.scope,
                    item_id=f"note:{nid}",
                    counts=row.findings,
                )
                for nid, row in zip(ids, rows, strict=True)
            ],
        )
        return ids

    # Every await in the body is on its Tx, so it runs whole on the writer's thread: a note
    # someone waits on holds the write lock for its statements only (bench.ack).
    return await db.run_transaction(body)


async def _require_incident(tx: Tx, ctx: WriteContext, incident_id: str) -> None:
    """The incident exists and the writer may see it: a public one, or the private one whose
    channel this is. Otherwise the same UnknownIncident as a missing id, so a note can neither
    attach to a private incident from elsewhere nor probe whether one exists."""
    if not await note_store.incident_takes_notes_from(
        tx, team_id=ctx.team_id, incident_id=incident_id, channel_id=ctx.channel_id
    ):
        raise UnknownIncident(incident_id)


async def _insert_one(tx: Tx, row: NoteRow, neighbours: int, *, context_later: bool) -> int:
    """Insert one note; link it with the previous notes of its channel and partition."""
    ctx = row.ctx
    part = ctx.partition_key
    previous = []
    if neighbours > 0:
        previous = await note_store.previous_in_channel(
            tx, partition_key=part, channel_id=ctx.channel_id, limit=max(neighbours, WINDOW)
        )
        owners = [p["owner_subject_id"] for p in previous]
        previous = previous[:neighbours] if in_exchange(ctx.author.subject_id, owners) else []
    context = "\n".join(p["text"] for p in reversed(previous))
    nid = await note_store.insert_note(
        tx,
        team_id=ctx.team_id,
        scope=ctx.scope,
        channel_id=ctx.channel_id,
        channel_is_private=ctx.channel_is_private,
        owner_subject_id=ctx.author.subject_id,
        partition_key=part,
        incident_id=row.incident_id,
        kind=row.kind,
        text=row.text,
        context=context,
        author_name=ctx.author.display_name,
        permalink=ctx.permalink,
        source_ts=ctx.source_ts,
        created_at=iso(row.created_at),
        context_targets=[int(p["id"]) for p in previous] if context_later else (),
    )
    if previous and not context_later:
        await note_store.append_context(
            tx, [int(p["id"]) for p in previous], row.text, most=neighbours
        )
    return nid


async def apply_pending_context(db: Database, *, neighbours: int, batch: int = 500) -> int:
    """Give the notes saved with `context_later` their place in their neighbours' context;
    returns how many were applied. One transaction per batch, so a burst costs one rewrite
    per neighbour rather than one per note that follows it."""
    done = 0
    while True:
        async with db.transaction() as tx:
            applied = await note_store.apply_pending_context(tx, most=neighbours, limit=batch)
        done += applied
        if applied < batch:
            return done


class VectorPlan:
    """Texts to embed once each, and which of them make up every note's vector.

    A note's vector is its own embedding ("author: text") plus `weight` times the embedding of
    the note before it in the same partition and channel when the note is in an exchange
    (`memory.notes.exchange`), normalised: a reply ("yes, roll it back") is only findable through what
    it answers. One rule for saving and back-filling.
    """

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str, int] = {}
        self.own: list[int] = []
        self.previous: list[int | None] = []

    def add(self, *, author: str, text: str, previous: tuple[str, str] | None) -> None:
        """One note; `previous` is the (author, text) of the note it follows, if any."""
        self.own.append(self._slot(own_text(author, text)))
        self.previous.append(None if previous is None else self._slot(own_text(*previous)))

    def vectors(self, embedded: np.ndarray, weight: float) -> np.ndarray:
        """Unit vectors, one per added note, from the embeddings of `texts`."""
        out = embedded[self.own].astype(np.float32, copy=True)
        for i, prev in enumerate(self.previous):
            if prev is not None and weight > 0:
                out[i] += weight * embedded[prev]
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)

    def _slot(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.texts)
            self.texts.append(text)
        return self._index[text]


def own_text(author: str, text: str) -> str:
    """What one note contributes to vectors."""
    return f"{author}: {text}".lstrip(": ")


async def index_missing(db: Database, embedder: Embedder, *, batch: int, weight: float) -> int:
    """Embed and index notes that have no vector from this embedder yet, in one pass by id."""
    vectors = VectorTable.of("note", embedder)
    # The scheduled job calls this every minute: two counts (~30 ms at 100k notes) say whether
    # anything is missing before the id lists are compared (~0.1 s warm, ~0.6 s cold).
    notes = await note_store.count_notes(db)
    indexed = await note_store.count_vectors(db, embedder.digest)
    if indexed >= notes:
        return 0
    done, after = 0, 0
    while True:
        missing = await note_store.ids_without_vector(db, embedder.digest, after=after, limit=batch)
        rows = await note_store.for_embedding(db, missing, window=WINDOW)
        if not missing:
            return done
        after = missing[-1]
        if not rows:  # forgotten since the ids were listed
            continue
        plan = VectorPlan()
        for r in rows:
            joined = r["p_text"] is not None and r["exchange"]
            previous = (r["p_author"], r["p_text"]) if joined else None
            plan.add(author=r["author_name"], text=r["text"], previous=previous)
        embedded = plan.vectors(await embedder.embed(plan.texts), weight)
        async with db.transaction() as tx:
            live = await note_store.still_without_vector(
                tx, [r["id"] for r in rows], embedder.digest
            )
            fresh = [
                (r["id"], r["partition_key"], embedded[i])
                for i, r in enumerate(rows)
                if r["id"] in live
            ]
            await vectors.insert(tx, fresh)
        done += len(fresh)
