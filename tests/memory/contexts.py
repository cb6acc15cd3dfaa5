"""Authors and WriteContext builders the memory tests share (one place, one set of defaults)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from memory.embedding.embedder import Embedder
from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.recall.recall import Recall
from memory.redaction.redactor import Redactor
from memory.scopes import Scope, WriteContext
from memory.store.db import Database
from memory.subjects import Author, SlackIdentity

ALICE = Author.of(SlackIdentity("T1", "UALICE"), "alice")
BOB = Author.of(SlackIdentity("T1", "UBOB"), "bob")


def ctx(
    channel: str | None = "C1",
    *,
    author: Author | None = None,
    private: bool = False,
    scope: Scope = "channel",
    team: str = "T1",
    user: str = "U1",
    source_ts: str | None = None,
) -> WriteContext:
    """A write in `channel` of `team`; the author is `author`, else "ann" (`team`/`user`)."""
    return WriteContext(
        author or Author.of(SlackIdentity(team, user), "ann"),
        team,
        channel,
        private,
        scope,
        permalink=None if channel is None else f"https://x.slack.com/archives/{channel}/p123",
        source_ts=source_ts,
    )


async def store_returning_personal_rows(db: Database) -> Callable[..., Awaitable[list[Any]]]:
    """A stand-in for a store query that returns every personal note, as a store whose SQL
    filter broke would: what a code-layer check must still keep out of shared answers."""
    mine = await db.fetchall(
        "SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,"
        " n.created_at, n.permalink, n.author_name, n.source_ts FROM memory_notes n"
        " WHERE n.scope = 'user'"
    )
    assert mine, "no personal note to return"

    async def unfiltered(*_args: object, **_kwargs: object) -> list[Any]:
        return list(mine)

    return unfiltered


async def incident_channel(
    db: Database,
    redactor: Redactor,
    embedder: Embedder,
    lines: list[tuple[str, Any]],
    *,
    title: str,
    channel: str = "C1",
) -> Recall:
    """An incident titled `title` opened in `channel`, `lines` (text, kind) saved there as its
    notes in order; the recall that reads them."""
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    inc = await incidents.open(ctx(channel), title=title, channel_id=channel)
    for text, kind in lines:
        await notes.save(ctx(channel), text, kind, incident=inc.id)
    return Recall(db, embedder)
