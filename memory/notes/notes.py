"""Notes: validate at the edge, redact (fail closed), embed, then write note, indexes and audit
in one transaction (`memory.notes.write`); the order of work and why is in `Notes.save_many`.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from memory.clock import Clock, utc_now
from memory.errors import (
    EmbeddingUnavailable,
    EmptyText,
    InvalidKind,
    NoteTooLong,
    OnlySecrets,
)
from memory.incidents import parse_incident_id
from memory.notes.exchange import WINDOW as EXCHANGE_WINDOW
from memory.notes.exchange import in_exchange
from memory.notes.write import (
    NoteRow,
    VectorPlan,
    apply_pending_context,
    index_missing,
    write_notes,
)
from memory.scopes import Requester, WriteContext
from memory.store import notes as note_store
from memory.subjects import Subjects

if TYPE_CHECKING:
    from memory.embedding.embedder import Embedder
    from memory.redaction.redactor import Finding, Redactor
    from memory.store.db import Database

log = logging.getLogger(__name__)

NoteKind = Literal[
    "note",
    "decision",
    "action",
    "root_cause",
    "mitigation",
    "status",
    "fact",
    "preference",
    "correction",
]
NOTE_KINDS: tuple[str, ...] = get_args(NoteKind)
_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*>")
_FILLER = " \t\n.,;:-_*`'\"()[]{}=/"  # what may surround secrets in a note that is only secrets


@dataclass(frozen=True)
class NotePolicy:
    max_chars: int = 4_000
    context_neighbours: int = 2  # notes before and after that join a note's keyword context
    # Share of the previous note's embedding in a note's vector (a reply's question).
    previous_weight: float = 0.5


@dataclass(frozen=True)
class NoteDraft:
    """One note to save; `at` keeps the original time when importing history."""

    ctx: WriteContext
    text: str
    kind: NoteKind = "note"
    incident: str | None = None
    at: datetime | None = None


@dataclass(frozen=True)
class Note:
    id: int
    kind: str
    text: str
    scope: str
    incident_id: str | None
    channel_id: str | None
    author_subject_id: str
    created_at: datetime
    permalink: str | None
    findings: tuple[Finding, ...] = field(default=())


@dataclass(frozen=True)
class ShownNote:
    """A note as stored, re-read for "Remember this" (its scope decides whether it may be saved)."""

    id: int
    scope: str
    kind: str
    text: str


class Notes:
    """The write path for incident notes.

    Search context: each note's keyword index also carries the text of its neighbours in the
    same channel and visibility partition (`NotePolicy.context_neighbours` before and after),
    because a reply ("yes, roll it back") is only findable through what it answers. The context
    is built from already-redacted notes of the same partition, so it never widens who can match
    what. For the same reason a note's vector is its own embedding ("author: text") plus a share
    of the embedding of the previous note of its partition (`NotePolicy.previous_weight`),
    normalised. Both join only notes in an exchange (`memory.notes.exchange`): a run of one
    author's notes is kept apart. Mixing embeddings embeds each text once, where embedding
    "previous note's tail + text" cost twice the tokens.
    """

    def __init__(
        self,
        db: Database,
        redactor: Redactor,
        embedder: Embedder | None,
        policy: NotePolicy = NotePolicy(),
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self._redactor = redactor
        self._embedder = embedder
        self._policy = policy
        self._clock = clock
        self._subjects = Subjects(db, clock)

    async def save(
        self, ctx: WriteContext, text: str, kind: NoteKind = "note", incident: str | None = None
    ) -> Note:
        """Save one note; raises ValidationError, UnknownIncident, RedactionFailed."""
        (note,) = await self.save_many([NoteDraft(ctx, text, kind, incident)])
        return note

    async def save_many(
        self,
        drafts: Sequence[NoteDraft],
        *,
        vectors_later: bool = False,
        context_later: bool = False,
    ) -> list[Note]:
        """Save a batch in one redaction pass, one embedding batch and one transaction.

        Validate every draft, redact every text (any failure writes nothing), embed outside the
        transaction (slow CPU work must not hold the write lock), then one transaction writes
        notes, keyword index (triggers), vectors and audit rows, so a note is searchable both
        ways as soon as the call returns. If the embedder is unavailable the note is still saved
        keyword-only and `index_missing_vectors` (a scheduled job) fills the gap later.

        `vectors_later` (bulk imports): skip embedding; the notes are keyword-searchable on
        return and the vector job (`index_missing_vectors`) embeds them. The queue is the notes
        table itself, so a crash loses nothing: whatever has no vector is found and embedded.

        `context_later` (a person waiting on an ack): the note's own row, keyword index and
        context are written now; adding its text to the context of the notes before it waits
        for `apply_pending_context`, queued in the notes table like the vectors.
        """
        if not drafts:
            return []
        cleaned = [self._validate(d) for d in drafts]
        redacted = await self._redactor.redact_many([text for text, _ in cleaned])
        for r in redacted:
            if r.removed_any and not _PLACEHOLDER.sub("", r.text).strip(_FILLER):
                raise OnlySecrets()
        vectors = None if vectors_later else await self._vectors(drafts, [r.text for r in redacted])
        now = self._clock()
        rows = [
            NoteRow(
                ctx=d.ctx,
                kind=d.kind,
                text=r.text,
                incident_id=incident_id,
                created_at=d.at or now,
                findings=dict(Counter({f.entity_type: f.count for f in r.findings})),
                vector=None if vectors is None else vectors[i],
            )
            for i, (d, (_, incident_id), r) in enumerate(
                zip(drafts, cleaned, redacted, strict=True)
            )
        ]
        ids = await write_notes(
            self._db,
            rows,
            subjects=self._subjects,
            embedder=self._embedder if vectors is not None else None,
            neighbours=self._policy.context_neighbours,
            audit_at=now,
            context_later=context_later,
        )
        return [
            Note(
                id=nid,
                kind=row.kind,
                text=row.text,
                scope=row.ctx.scope,
                incident_id=row.incident_id,
                channel_id=row.ctx.channel_id,
                author_subject_id=row.ctx.author.subject_id,
                created_at=row.created_at,
                permalink=row.ctx.permalink,
                findings=r.findings,
            )
            for nid, row, r in zip(ids, rows, redacted, strict=True)
        ]

    async def apply_pending_context(self) -> int:
        """Add notes saved with `context_later` to their neighbours' context; returns how many."""
        return await apply_pending_context(self._db, neighbours=self._policy.context_neighbours)

    async def shown(self, requester: Requester, note_ids: Sequence[int]) -> list[ShownNote]:
        """These notes as stored, those the requester may see, in the order asked for."""
        rows = await note_store.visible_rows(self._db, requester, list(note_ids), incident_id=None)
        by_id = {
            int(r["id"]): ShownNote(int(r["id"]), r["scope"], r["kind"], r["text"]) for r in rows
        }
        return [by_id[i] for i in note_ids if i in by_id]

    async def index_missing_vectors(self, batch: int = 256) -> int:
        """Embed notes saved while the embedder was down; returns how many were indexed."""
        if self._embedder is None:
            return 0
        return await index_missing(
            self._db,
            self._embedder,
            batch=batch,
            weight=self._policy.previous_weight,
        )

    async def _vectors(self, drafts: Sequence[NoteDraft], texts: list[str]) -> np.ndarray | None:
        """One vector per draft (see `VectorPlan`); None when the embedder is off or down."""
        if self._embedder is None:
            return None
        # The newest notes of each partition and channel: (subject id, display name, text).
        recent: dict[tuple[str, str | None], list[tuple[str, str, str]]] = {}
        plan = VectorPlan()
        for draft, text in zip(drafts, texts, strict=True):
            key = (draft.ctx.partition_key, draft.ctx.channel_id)
            if key not in recent:
                recent[key] = await note_store.recent_authors(
                    self._db, partition_key=key[0], channel_id=key[1], limit=EXCHANGE_WINDOW
                )
            author = draft.ctx.author
            before = recent[key]
            previous = None
            if before and in_exchange(author.subject_id, [b[0] for b in before]):
                previous = (before[0][1], before[0][2])
            plan.add(author=author.display_name, text=text, previous=previous)
            recent[key] = [(author.subject_id, author.display_name, text), *before][
                :EXCHANGE_WINDOW
            ]
        try:
            embedded = await self._embedder.embed(plan.texts)
        except EmbeddingUnavailable:
            log.warning("note_embedding_unavailable", extra={"count": len(drafts)})
            return None
        return plan.vectors(embedded, self._policy.previous_weight)

    def _validate(self, draft: NoteDraft) -> tuple[str, str | None]:
        if draft.kind not in NOTE_KINDS:
            raise InvalidKind(NOTE_KINDS)
        text = (draft.text or "").strip()
        if not text:
            raise EmptyText()
        if len(text) > self._policy.max_chars:
            raise NoteTooLong(limit=self._policy.max_chars, got=len(text))
        incident = parse_incident_id(draft.incident) if draft.incident is not None else None
        return text, incident
