"""SQL of `memory_notes`: the note write path, neighbour links and the reads recall makes of it.

The keyword index (`memory_notes_fts`) follows the table through triggers; its queries are in
`memory.store.notes_fts`, the vectors in `memory.store.vectors`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory.store.visibility import Audience, visibility_sql

if TYPE_CHECKING:
    from memory.store.db import Database, Row, Tx

_INSERT = """
INSERT INTO memory_notes (team_id, scope, channel_id, channel_is_private, owner_subject_id,
    partition_key, incident_id, kind, text, context, author_name, permalink, source_ts, created_at,
    context_targets)
VALUES (:team, :scope, :channel, :private, :owner, :part, :incident, :kind, :text, :context,
    :author_name, :permalink, :source_ts, :created_at, :targets)
"""

_PREVIOUS = """
SELECT id, text, owner_subject_id FROM memory_notes
WHERE partition_key = :part AND channel_id IS :channel
ORDER BY id DESC LIMIT :n
"""

_APPEND_CONTEXT = """
UPDATE memory_notes SET context = CASE WHEN context = '' THEN :text
    ELSE context || char(10) || :text END,
    next_count = next_count + 1
WHERE id IN (SELECT value FROM json_each(:ids)) AND next_count < :n
"""

_RECENT = """
SELECT owner_subject_id, author_name, text FROM memory_notes
WHERE partition_key = :part AND channel_id IS :channel ORDER BY id DESC LIMIT :n
"""

# EXCEPT reads the two id lists; a NOT EXISTS probe per note read whole rows (~15x slower).
_WITHOUT_VECTOR = """
SELECT id FROM (SELECT id FROM memory_notes EXCEPT SELECT note_id
    FROM memory_note_vectors WHERE digest = :digest) WHERE id > :after
ORDER BY id LIMIT :n
"""

_FOR_EMBEDDING = """
SELECT n.id, n.partition_key, n.author_name, n.text, p.author_name AS p_author,
    p.text AS p_text, {exchange} AS exchange
FROM memory_notes n LEFT JOIN memory_notes p ON p.id =
    (SELECT max(q.id) FROM memory_notes q WHERE q.partition_key = n.partition_key
     AND q.channel_id IS n.channel_id AND q.id < n.id)
WHERE n.id IN (SELECT value FROM json_each(:ids)) ORDER BY n.id
"""

_STILL_WITHOUT_VECTOR = """
SELECT id FROM memory_notes WHERE id IN (SELECT value FROM json_each(:ids))
AND NOT EXISTS (SELECT 1 FROM memory_note_vectors v
    WHERE v.note_id = memory_notes.id AND v.digest = :digest)
"""

_VISIBLE_ROWS = """
SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,
       n.created_at, n.permalink, n.author_name, n.source_ts
FROM memory_notes n
WHERE n.id IN (SELECT value FROM json_each(:ids)) AND {vis} {incident}
"""

_LATER_CORRECTIONS = """
SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,
       n.created_at, n.permalink, n.author_name, n.source_ts
FROM memory_notes n
WHERE n.team_id = :team AND n.channel_id = :channel AND n.id > :after
  AND n.kind IN ('correction', 'action') AND n.scope <> 'user' AND {vis}
ORDER BY n.id LIMIT :n
"""

_EARLIER_IN_CHANNEL = """
SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,
       n.created_at, n.permalink, n.author_name, n.source_ts
FROM memory_notes n
WHERE n.team_id = :team AND n.channel_id = :channel AND n.id < :before
  AND n.kind <> 'correction' AND n.scope <> 'user' AND {vis}
ORDER BY n.id DESC LIMIT :n
"""

# The notes made from the messages said after the message `:anchor` was made from: the replies
# of its thread (an incident channel holds several alerts' threads at once), and, for a message
# said in the channel itself, the channel's next messages too. Read from the thread index, so
# a thread of three messages in a channel of thousands reads three (`+` keeps the channel's
# next messages read in ts order, and CROSS JOIN the messages before their notes), and only
# notes of the anchor's own partition (never a personal one, whose partition is its owner's).
_REPLIES = """
WITH anchor AS (
    SELECT a.team_id, a.channel_id, a.partition_key, t.ts, t.thread_ts
    FROM memory_notes a
    JOIN memory_thread_messages t ON t.team_id = a.team_id AND t.channel_id = a.channel_id
        AND t.ts = a.source_ts
    WHERE a.id = :anchor
),
later AS (
    SELECT ts FROM (
        SELECT m.ts FROM anchor x JOIN memory_thread_messages m ON m.team_id = x.team_id
            AND m.channel_id = x.channel_id AND m.thread_ts = x.thread_ts AND m.ts > x.ts
        ORDER BY m.ts LIMIT :n)
    UNION ALL
    SELECT ts FROM (
        SELECT m.ts FROM anchor x JOIN memory_thread_messages m ON m.team_id = x.team_id
            AND m.channel_id = x.channel_id AND m.ts > x.ts AND +m.thread_ts = m.ts
        WHERE x.thread_ts = x.ts
        ORDER BY m.ts LIMIT :n)
)
SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,
       n.created_at, n.permalink, n.author_name, n.source_ts
FROM anchor x
CROSS JOIN later l
CROSS JOIN memory_notes n ON n.team_id = x.team_id AND n.channel_id = x.channel_id
    AND n.source_ts = l.ts AND n.partition_key = x.partition_key
WHERE n.scope <> 'user' AND {vis}
ORDER BY l.ts, n.id LIMIT :n
"""

# Each hit's previous note (when the hit is in an exchange) and next note (when that one is).
_NEIGHBOURS = """
WITH hit AS (
    SELECT n.id, {hit_exchange} AS joined,
        (SELECT max(p.id) FROM memory_notes p WHERE p.partition_key = n.partition_key
            AND p.channel_id IS n.channel_id AND p.id < n.id) AS prev,
        (SELECT min(p.id) FROM memory_notes p WHERE p.partition_key = n.partition_key
            AND p.channel_id IS n.channel_id AND p.id > n.id) AS next
    FROM memory_notes n WHERE n.id IN (SELECT value FROM json_each(:ids))
)
SELECT hit.id, CASE WHEN hit.joined THEN hit.prev END AS prev,
    CASE WHEN {next_exchange} THEN hit.next END AS next
FROM hit LEFT JOIN memory_notes x ON x.id = hit.next
"""


def exchange_sql(note: str, *, window: int) -> str:
    """SQL truth value of `memory.notes.exchange.in_exchange` for the memory_notes row aliased
    `note`: someone else wrote one of the `window` notes before it in its partition and channel."""
    return (
        "EXISTS (SELECT 1 FROM (SELECT e.owner_subject_id AS owner FROM memory_notes e"
        f" WHERE e.partition_key = {note}.partition_key AND e.channel_id IS {note}.channel_id"
        f" AND e.id < {note}.id ORDER BY e.id DESC LIMIT {int(window)}) w"
        f" WHERE w.owner IS NOT {note}.owner_subject_id)"
    )


async def incident_takes_notes_from(
    tx: Tx, *, team_id: str, incident_id: str, channel_id: str | None
) -> bool:
    """The incident exists and a note from `channel_id` may attach to it: a public incident, or
    the private one whose channel this is."""
    found = await tx.fetchone(
        "SELECT 1 FROM memory_incidents WHERE team_id = :team AND id = :id"
        " AND (channel_is_private = 0 OR channel_id IS :channel)",
        {"team": team_id, "id": incident_id, "channel": channel_id},
    )
    return found is not None


async def insert_note(
    tx: Tx,
    *,
    team_id: str,
    scope: str,
    channel_id: str | None,
    channel_is_private: bool,
    owner_subject_id: str,
    partition_key: str,
    incident_id: str | None,
    kind: str,
    text: str,
    context: str,
    author_name: str,
    permalink: str | None,
    source_ts: str | None,
    created_at: str,
    context_targets: Sequence[int] = (),
) -> int:
    """One note row (its keyword index follows by trigger); returns the new id.

    `context_targets`: earlier notes that are still to take this note's text into their
    context (`apply_pending_context`); empty when the caller appends it at once."""
    return await tx.execute(
        _INSERT,
        {
            "team": team_id,
            "scope": scope,
            "channel": channel_id,
            "private": int(channel_is_private),
            "owner": owner_subject_id,
            "part": partition_key,
            "incident": incident_id,
            "kind": kind,
            "text": text,
            "context": context,
            "author_name": author_name,
            "permalink": permalink,
            "source_ts": source_ts,
            "created_at": created_at,
            "targets": json.dumps(list(context_targets)) if context_targets else None,
        },
    )


async def previous_in_channel(
    tx: Tx, *, partition_key: str, channel_id: str | None, limit: int
) -> list[Row]:
    """(id, text, owner_subject_id) of the newest notes of a partition and channel, newest first."""
    return await tx.fetchall(_PREVIOUS, {"part": partition_key, "channel": channel_id, "n": limit})


async def append_context(tx: Tx, note_ids: Sequence[int], text: str, *, most: int) -> None:
    """Add `text` to the neighbour context of these notes, each taking at most `most` followers."""
    await tx.execute(_APPEND_CONTEXT, {"text": text, "ids": json.dumps(list(note_ids)), "n": most})


_PENDING_CONTEXT = """
SELECT id, text, context_targets FROM memory_notes
WHERE context_targets IS NOT NULL ORDER BY id LIMIT :n
"""

_NEXT_COUNTS = (
    "SELECT id, next_count FROM memory_notes WHERE id IN (SELECT value FROM json_each(:ids))"
)

_APPEND_MANY = """
UPDATE memory_notes SET context = CASE WHEN context = '' THEN :text
    ELSE context || char(10) || :text END,
    next_count = next_count + :k
WHERE id = :id
"""

_CLEAR_TARGETS = """
UPDATE memory_notes SET context_targets = NULL WHERE id IN (SELECT value FROM json_each(:ids))
"""


async def apply_pending_context(tx: Tx, *, most: int, limit: int) -> int:
    """Append the text of up to `limit` pending notes (oldest first) to the context of their
    targets, rewriting each target once however many notes it takes; returns how many notes
    were applied. Targets forgotten meanwhile are skipped, and each target keeps at most
    `most` followers, as when the text is appended at save time."""
    pending = await tx.fetchall(_PENDING_CONTEXT, {"n": limit})
    if not pending:
        return 0
    texts: dict[int, list[str]] = {}
    for row in pending:
        for target in json.loads(row["context_targets"]):
            texts.setdefault(int(target), []).append(row["text"])
    counts = await tx.fetchall(_NEXT_COUNTS, {"ids": json.dumps(list(texts))})
    for row in counts:
        take = texts[int(row["id"])][: max(0, most - int(row["next_count"]))]
        if take:
            await tx.execute(
                _APPEND_MANY, {"id": row["id"], "text": "\n".join(take), "k": len(take)}
            )
    await tx.execute(_CLEAR_TARGETS, {"ids": json.dumps([int(r["id"]) for r in pending])})
    return len(pending)


async def recent_authors(
    db: Database, *, partition_key: str, channel_id: str | None, limit: int
) -> list[tuple[str, str, str]]:
    """(owner_subject_id, author_name, text) of the newest notes of a partition and channel."""
    rows = await db.fetchall(_RECENT, {"part": partition_key, "channel": channel_id, "n": limit})
    return [(r[0], r[1], r[2]) for r in rows]


async def count_notes(db: Database) -> int:
    return int(await db.scalar("SELECT count(*) FROM memory_notes") or 0)


async def count_vectors(db: Database, digest: str) -> int:
    """Notes with an exact vector from this embedder."""
    return int(
        await db.scalar(
            "SELECT count(*) FROM memory_note_vectors WHERE digest = :digest", {"digest": digest}
        )
        or 0
    )


async def ids_without_vector(db: Database, digest: str, *, after: int, limit: int) -> list[int]:
    """Ids above `after` of notes without a vector from this embedder, ascending."""
    rows = await db.fetchall(_WITHOUT_VECTOR, {"digest": digest, "n": limit, "after": after})
    return [int(r[0]) for r in rows]


async def for_embedding(db: Database, note_ids: Sequence[int], *, window: int) -> list[Row]:
    """Each note with the author and text of the note before it in its partition and channel,
    and whether it is in an exchange (`exchange_sql`)."""
    return await db.fetchall(
        _FOR_EMBEDDING.format(exchange=exchange_sql("n", window=window)),
        {"ids": json.dumps(list(note_ids))},
    )


async def still_without_vector(tx: Tx, note_ids: Sequence[int], digest: str) -> set[int]:
    """Those of these notes that still exist and still have no vector from this embedder."""
    rows = await tx.fetchall(
        _STILL_WITHOUT_VECTOR, {"ids": json.dumps(list(note_ids)), "digest": digest}
    )
    return {int(r[0]) for r in rows}


async def visible_rows(
    db: Database, audience: Audience, note_ids: Sequence[int], *, incident_id: str | None
) -> list[Row]:
    """The notes of these ids the audience may see (of one incident, when given)."""
    vis, params = visibility_sql(audience, alias="n")
    incident = "AND n.incident_id = :incident" if incident_id else ""
    return await db.fetchall(
        _VISIBLE_ROWS.format(vis=vis, incident=incident),
        {**params, "ids": json.dumps(list(note_ids)), "incident": incident_id},
    )


async def neighbours(db: Database, note_ids: Sequence[int], *, window: int) -> list[Row]:
    """(id, prev, next) per note: the previous note of its partition and channel when the note
    is in an exchange, the next one when that one is (else NULL)."""
    sql = _NEIGHBOURS.format(
        hit_exchange=exchange_sql("n", window=window),
        next_exchange=exchange_sql("x", window=window),
    )
    return await db.fetchall(sql, {"ids": json.dumps(list(note_ids))})


# The author's own notes only, and none a person saved on purpose (the message shortcut,
# "Remember this"): those carry the message's ts too, but they are the saver's words.
_FROM_MESSAGE = """
SELECT n.id, n.team_id, n.channel_id, n.channel_is_private, n.owner_subject_id, n.incident_id,
       n.author_name, n.permalink, n.source_ts
FROM memory_notes n
JOIN memory_thread_messages m ON m.team_id = n.team_id AND m.channel_id = n.channel_id
    AND m.ts = n.source_ts AND m.owner_subject_id = n.owner_subject_id
WHERE n.team_id = :team AND n.channel_id = :channel AND n.source_ts = :ts AND n.scope = 'channel'
  AND NOT EXISTS (SELECT 1 FROM bot_saved_sources s WHERE s.note_id = n.id)
ORDER BY n.id
"""


async def from_message(tx: Tx, team_id: str, channel_id: str, ts: str) -> list[Row]:
    """Channel notes a captured message became (matched on its Slack key and author; read
    before the message row goes)."""
    return await tx.fetchall(_FROM_MESSAGE, {"team": team_id, "channel": channel_id, "ts": ts})


# All the notes a message became (a structured update is several), in the order said; a
# colleague's saved note on the message is their words, not the message's.
_SAID_IN = """
SELECT group_concat(text, char(10)) FROM (
    SELECT n.text FROM memory_notes n
    WHERE n.team_id = :team AND n.channel_id = :channel AND n.source_ts = :ts AND {vis}
      AND n.scope <> 'user'
      AND NOT EXISTS (SELECT 1 FROM bot_saved_sources s WHERE s.note_id = n.id)
    ORDER BY n.id
)
"""


async def said_in_message(
    db: Database, audience: Audience, *, channel_id: str, ts: str
) -> str | None:
    """What the captured message at `ts` says, as the audience may see it (never personal)."""
    vis, params = visibility_sql(audience, alias="n")
    row = await db.fetchone(
        _SAID_IN.format(vis=vis),
        {**params, "team": audience.team_id, "channel": channel_id, "ts": ts},
    )
    return None if row is None or row[0] is None else str(row[0])


async def later_corrections(
    db: Database, audience: Audience, *, channel_id: str, after_id: int, limit: int
) -> list[Row]:
    """Shared corrections said in a channel after note `after_id`, and the action items (one
    that claims work, "sure, I'll take the postmortem", hands it over), as the audience may
    see them: a personal note never marks a shared statement superseded where others read it."""
    vis, params = visibility_sql(audience, alias="n")
    return await db.fetchall(
        _LATER_CORRECTIONS.format(vis=vis),
        {
            **params,
            "team": audience.team_id,
            "channel": channel_id,
            "after": after_id,
            "n": limit,
        },
    )


async def earlier_in_channel(
    db: Database, audience: Audience, *, channel_id: str, before_id: int, limit: int
) -> list[Row]:
    """The last `limit` shared statements said in a channel before note `before_id` (no
    corrections, never personal rows), newest first, as the audience may see them: what a
    correction said there may be about."""
    vis, params = visibility_sql(audience, alias="n")
    return await db.fetchall(
        _EARLIER_IN_CHANNEL.format(vis=vis),
        {
            **params,
            "team": audience.team_id,
            "channel": channel_id,
            "before": before_id,
            "n": limit,
        },
    )


async def replies_to(db: Database, audience: Audience, note_id: int, *, limit: int) -> list[Row]:
    """The first `limit` shared notes made from the messages after the one note `note_id` was
    made from — its thread's replies, and for a message said in the channel itself the
    channel's next messages too — as the audience may see them; none when it may not see the
    note itself, or the note was made from no message. Never personal rows: what came of a
    change is shown where others read."""
    # The replies share the note's partition and channel, so they are exactly as visible as it.
    vis, params = visibility_sql(audience, alias="n")
    return await db.fetchall(_REPLIES.format(vis=vis), {**params, "anchor": note_id, "n": limit})


_HEADLINE = """
SELECT n.id, n.kind, n.text, n.scope, n.incident_id, n.channel_id, n.owner_subject_id,
       n.permalink, n.created_at, n.author_name, n.source_ts
FROM memory_notes n
WHERE n.team_id = :team AND n.incident_id = :incident AND {vis} AND n.scope <> 'user'
  AND n.kind IN ({kinds}){in_thread}
ORDER BY n.id {order}
LIMIT :n
"""
#: Only notes made from a message of one thread (a captured message's key is its ts).
_IN_THREAD = """
  AND EXISTS (SELECT 1 FROM memory_thread_messages m WHERE m.team_id = n.team_id
              AND m.channel_id = n.channel_id AND m.ts = n.source_ts AND m.thread_ts = :thread)"""


HEADLINE_KINDS = ("root_cause", "mitigation", "status", "decision", "correction")


async def incident_statements(
    db: Database,
    audience: Audience,
    incident_id: str,
    *,
    limit: int = 40,
    kinds: Sequence[str] = HEADLINE_KINDS,
    thread_ts: str | None = None,
    oldest_first: bool = False,
) -> list[Row]:
    """An incident's newest statements of `kinds` (by default what a headline is made of: root
    causes, mitigations, status changes, decisions and corrections), newest first, that the
    audience may see; only those said in the thread `thread_ts`, when given; `oldest_first`:
    its first statements instead, oldest first. Never personal (scope `user`) rows: the result
    is shown where others read, even when the owner asks."""
    vis, params = visibility_sql(audience, alias="n")
    named = {f"kind{i}": k for i, k in enumerate(kinds)}
    sql = _HEADLINE.format(
        vis=vis,
        kinds=", ".join(f":{k}" for k in named) or "NULL",
        in_thread=_IN_THREAD if thread_ts is not None else "",
        order="ASC" if oldest_first else "DESC",
    )
    args = {**params, **named, "team": audience.team_id, "incident": incident_id, "n": limit}
    return await db.fetchall(sql, args if thread_ts is None else {**args, "thread": thread_ts})
