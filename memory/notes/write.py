"""The note write transaction: incident check, note rows, neighbour context, vectors, audit."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from memory.clock import iso
from memory.errors import UnknownIncident
from memory.notes.exchange import WINDOW, exchange_sql, in_exchange
from memory.scopes import WriteContext
from memory.store.note_vectors import NoteVectors

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


_INSERT = """
INSERT INTO memory_notes (team_id, scope, channel_id, channel_is_private, owner_subject_id,
    partition_key, incident_id, kind, text, context, author_name, permalink, source_ts, created_at)
VALUES (:team, :scope, :channel, :private, :owner, :part, :incident, :kind, :text, :context,
    :author_name, :permalink, :source_ts, :created_at)
"""

_PREVIOUS = """
SELECT id, text, owner_subject_id FROM memory_notes
WHERE partition_key = :part AND channel_id IS :channel
ORDER BY id DESC LIMIT :n
"""


async def write_notes(
    db: Database,
    rows: list[NoteRow],
    *,
    subjects: Subjects,
    embedder: Embedder | None,
    neighbours: int,
    audit_at: datetime,
) -> list[int]:
    """Write every row (or none) in one transaction; returns the new note ids in order."""
    vectors = (
        NoteVectors(dim=embedder.dim, digest=embedder.digest, name=embedder.name)
        if embedder is not None
        else None
    )
    ids: list[int] = []
    seen_incidents: set[tuple[str, str]] = set()
    seen_authors: set[str] = set()
    async with db.transaction() as tx:
        for row in rows:
            ctx = row.ctx
            if row.incident_id and (ctx.team_id, row.incident_id) not in seen_incidents:
                await _require_incident(tx, ctx, row.incident_id)
                seen_incidents.add((ctx.team_id, row.incident_id))
            if ctx.author.subject_id not in seen_authors:
                await subjects.remember(tx, ctx.author)
                seen_authors.add(ctx.author.subject_id)
            ids.append(await _insert_one(tx, row, neighbours))
        if vectors is not None:
            await vectors.insert(
                tx,
                [
                    (nid, row.ctx.partition_key, row.vector)
                    for nid, row in zip(ids, rows, strict=True)
                    if row.vector is not None
                ],
            )
        await tx.executemany(
            "INSERT INTO memory_audit (at, action, subject_id, team_id, channel_id, scope,"
            " item_id, findings) VALUES (?, 'note.save', ?, ?, ?, ?, ?, ?)",
            [
                (
                    iso(audit_at),
                    row.ctx.author.subject_id,
                    row.ctx.team_id,
                    row.ctx.channel_id,
                    row.ctx.scope,
                    f"note:{nid}",
                    json.dumps(dict(sorted(row.findings.items()))),
                )
                for nid, row in zip(ids, rows, strict=True)
            ],
        )
    return ids


async def _require_incident(tx: Tx, ctx: WriteContext, incident_id: str) -> None:
    """The incident exists and the writer may see it: a public one, or the private one whose
    channel this is. Otherwise the same UnknownIncident as a missing id, so a note can neither
    attach to a private incident from elsewhere nor probe whether one exists."""
    found = await tx.fetchone(
        "SELECT 1 FROM memory_incidents WHERE team_id = ? AND id = ?"
        " AND (channel_is_private = 0 OR channel_id IS ?)",
        (ctx.team_id, incident_id, ctx.channel_id),
    )
    if found is None:
        raise UnknownIncident(incident_id)


async def _insert_one(tx: Tx, row: NoteRow, neighbours: int) -> int:
    """Insert one note; link it with the previous notes of its channel and partition."""
    ctx = row.ctx
    part = ctx.partition_key
    previous = []
    if neighbours > 0:
        previous = await tx.fetchall(
            _PREVIOUS, {"part": part, "channel": ctx.channel_id, "n": max(neighbours, WINDOW)}
        )
        owners = [p["owner_subject_id"] for p in previous]
        previous = previous[:neighbours] if in_exchange(ctx.author.subject_id, owners) else []
    context = "\n".join(p["text"] for p in reversed(previous))
    nid = await tx.execute(
        _INSERT,
        {
            "team": ctx.team_id,
            "scope": ctx.scope,
            "channel": ctx.channel_id,
            "private": int(ctx.channel_is_private),
            "owner": ctx.author.subject_id,
            "part": part,
            "incident": row.incident_id,
            "kind": row.kind,
            "text": row.text,
            "context": context,
            "author_name": ctx.author.display_name,
            "permalink": ctx.permalink,
            "source_ts": ctx.source_ts,
            "created_at": iso(row.created_at),
        },
    )
    if previous:
        await tx.execute(
            "UPDATE memory_notes SET context = CASE WHEN context = '' THEN :text"
            " ELSE context || char(10) || :text END,"
            " next_count = next_count + 1"
            " WHERE id IN (SELECT value FROM json_each(:ids)) AND next_count < :n",
            {"text": row.text, "ids": json.dumps([p["id"] for p in previous]), "n": neighbours},
        )
    return nid


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
    vectors = NoteVectors(dim=embedder.dim, digest=embedder.digest, name=embedder.name)
    # The scheduled job calls this every minute: two counts (~30 ms at 100k notes) say whether
    # anything is missing before the id lists are compared (~0.1 s warm, ~0.6 s cold).
    notes = await db.scalar("SELECT count(*) FROM memory_notes")
    indexed = await db.scalar(
        "SELECT count(*) FROM memory_note_vectors WHERE digest = ?", (embedder.digest,)
    )
    if indexed >= notes:
        return 0
    done, after = 0, 0
    while True:
        # EXCEPT reads the two id lists; a NOT EXISTS probe per note read whole rows (~15x slower).
        missing = [
            int(r[0])
            for r in await db.fetchall(
                "SELECT id FROM (SELECT id FROM memory_notes EXCEPT SELECT note_id"
                " FROM memory_note_vectors WHERE digest = :digest) WHERE id > :after"
                " ORDER BY id LIMIT :n",
                {"digest": embedder.digest, "n": batch, "after": after},
            )
        ]
        rows = await db.fetchall(
            "SELECT n.id, n.partition_key, n.author_name, n.text, p.author_name AS p_author,"
            f" p.text AS p_text, {exchange_sql('n')} AS exchange"
            " FROM memory_notes n LEFT JOIN memory_notes p ON p.id ="
            "  (SELECT max(q.id) FROM memory_notes q WHERE q.partition_key = n.partition_key"
            "   AND q.channel_id IS n.channel_id AND q.id < n.id)"
            " WHERE n.id IN (SELECT value FROM json_each(:ids)) ORDER BY n.id",
            {"ids": json.dumps(missing)},
        )
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
            live = {
                int(r[0])
                for r in await tx.fetchall(
                    "SELECT id FROM memory_notes WHERE id IN (SELECT value FROM json_each(?))"
                    " AND NOT EXISTS (SELECT 1 FROM memory_note_vectors v"
                    "  WHERE v.note_id = memory_notes.id AND v.digest = ?)",
                    (json.dumps([r["id"] for r in rows]), embedder.digest),
                )
            }
            fresh = [
                (r["id"], r["partition_key"], embedded[i])
                for i, r in enumerate(rows)
                if r["id"] in live
            ]
            await vectors.insert(tx, fresh)
        done += len(fresh)
