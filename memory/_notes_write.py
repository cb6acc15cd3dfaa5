"""The note write transaction: incident check, note rows, neighbour context, vectors, audit."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from memory._vectors import NoteVectors
from memory.clock import iso
from memory.errors import UnknownIncident
from memory.scopes import WriteContext

if TYPE_CHECKING:
    from memory.db import Database, Tx
    from memory.embedder import Embedder
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
SELECT id, text FROM memory_notes
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
            _PREVIOUS, {"part": part, "channel": ctx.channel_id, "n": neighbours}
        )
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


def vector_text(*, previous: str, author: str, text: str, previous_chars: int) -> str:
    """What a note's vector encodes: the tail of the previous note in its partition, then
    "author: text". One rule for saving and for back-filling after an embedder outage."""
    own = f"{author}: {text}".lstrip(": ")
    tail = previous[-previous_chars:] if previous_chars > 0 else ""
    return f"{tail}\n{own}" if tail else own


async def index_missing(
    db: Database, embedder: Embedder, *, batch: int, previous_chars: int
) -> int:
    """Embed and index notes that have no vector from this embedder yet."""
    vectors = NoteVectors(dim=embedder.dim, digest=embedder.digest, name=embedder.name)
    done = 0
    while True:
        rows = await db.fetchall(
            "SELECT n.id, n.partition_key, n.author_name, n.text,"
            " coalesce((SELECT p.text FROM memory_notes p WHERE p.partition_key = n.partition_key"
            "   AND p.channel_id IS n.channel_id AND p.id < n.id ORDER BY p.id DESC LIMIT 1),"
            "  '') AS previous FROM memory_notes n"
            " WHERE NOT EXISTS (SELECT 1 FROM memory_note_vectors v"
            "   WHERE v.note_id = n.id AND v.digest = :digest) ORDER BY n.id LIMIT :n",
            {"digest": embedder.digest, "n": batch},
        )
        if not rows:
            return done
        embedded = await embedder.embed(
            [
                vector_text(
                    previous=r["previous"],
                    author=r["author_name"],
                    text=r["text"],
                    previous_chars=previous_chars,
                )
                for r in rows
            ]
        )
        async with db.transaction() as tx:
            live = {
                int(r[0])
                for r in await tx.fetchall(
                    "SELECT id FROM memory_notes WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps([r["id"] for r in rows]),),
                )
            }
            await vectors.insert(
                tx,
                [
                    (r["id"], r["partition_key"], embedded[i])
                    for i, r in enumerate(rows)
                    if r["id"] in live
                ],
            )
        done += len(rows)
