"""Captured thread messages: every human message in an incident channel, redacted as it arrives.

Stored once per (team, channel, ts), so a double delivery (app_mention + message, retries) is a
no-op; `message_changed` re-redacts and replaces, `message_deleted` removes the row; both drop
the old keyword index entry and the thread's episode, as bytes too. Summaries never need to read
history back from Slack.

Thread messages are memory: with `Notes` given, each captured message of an incident is also
saved as a note of the kind it states (`memory.episodes.statements`: decision, action, root
cause, mitigation, status, correction, or plain talk), with its author, time and permalink, so
recall finds what was said in the thread the way it finds `/incident note` entries. An edit
replaces that note and a deletion removes it, with the same byte-level care.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory.clock import Clock, iso, parse_iso, said_at, utc_now
from memory.episodes.statements import StatementKind, statements_of
from memory.errors import NotChannelMemory, UnknownItem, ValidationError
from memory.notes.notes import NoteDraft
from memory.redaction.redactor import Finding
from memory.scopes import Requester, WriteContext
from memory.store import episodes as episode_store
from memory.store import incidents as incident_store
from memory.store import notes as note_store
from memory.store import subjects as subject_store
from memory.store import threads as store
from memory.store.audit import finding_counts, findings_list_json, write_audit
from memory.subjects import Author, SlackIdentity, Subjects, is_app_subject

if TYPE_CHECKING:
    from memory.notes.notes import Notes
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database, Row, Tx

log = logging.getLogger(__name__)
ID_PREFIX = "message:"
MAX_MESSAGE_CHARS = 40_000  # Slack's own limit on message text


@dataclass(frozen=True)
class CapturedMessage:
    id: str
    team_id: str
    channel_id: str
    channel_is_private: bool
    author_subject_id: str
    ts: str
    thread_ts: str
    text: str
    findings: tuple[Finding, ...]
    permalink: str | None
    created_at: datetime
    edited_at: datetime | None


@dataclass(frozen=True)
class ThreadRef:
    """A thread the scheduler should roll up."""

    team_id: str
    channel_id: str
    thread_ts: str
    changed_at: datetime


def message_id(rowid: int) -> str:
    return f"{ID_PREFIX}{rowid}"


def _message(row: Row) -> CapturedMessage:
    return CapturedMessage(
        id=message_id(row["id"]),
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        channel_is_private=bool(row["channel_is_private"]),
        author_subject_id=row["owner_subject_id"],
        ts=row["ts"],
        thread_ts=row["thread_ts"],
        text=row["text"],
        findings=tuple(Finding(f["entity_type"], f["count"]) for f in json.loads(row["findings"])),
        permalink=row["permalink"],
        created_at=parse_iso(row["created_at"]),
        edited_at=None if row["edited_at"] is None else parse_iso(row["edited_at"]),
    )


class Threads:
    """Reads and writes `memory_thread_messages` (+ its FTS, via triggers)."""

    def __init__(
        self,
        db: Database,
        redactor: Redactor,
        clock: Clock = utc_now,
        *,
        notes: Notes | None = None,
    ) -> None:
        self._db = db
        self._redactor = redactor
        self._clock = clock
        self._notes = notes
        self._subjects = Subjects(db, clock)

    async def capture(
        self,
        ctx: WriteContext,
        *,
        ts: str,
        thread_ts: str | None,
        text: str,
        incident: str | None = None,
        turn: Callable[[], Awaitable[None]] | None = None,
        asks_bot: bool = False,
    ) -> CapturedMessage | None:
        """Store one message (redacted); None when it has no text. A repeat returns the first.

        With an incident and `Notes`, the message also becomes recall evidence (a note).
        `turn`, when given, is awaited after redaction and before the write: the caller's way
        to keep a channel's messages stored in their order while redaction runs side by side.
        `asks_bot`: a question to the bot, stored in its thread but never a note, and left out
        of the thread's roll-up."""
        if ctx.scope != "channel" or ctx.channel_id is None:
            raise NotChannelMemory()
        if not text.strip():
            return None
        redacted = await self._redactor.redact(text[:MAX_MESSAGE_CHARS])  # fail closed
        if turn is not None:
            await turn()
        now = iso(self._clock())
        root = thread_ts or ts
        async with self._db.transaction() as tx:
            row = await store.find_message(tx, ctx.team_id, ctx.channel_id, ts)
            if row is not None:  # a second delivery of the same message
                return _message(row)
            rowid = await store.insert_message(
                tx,
                team_id=ctx.team_id,
                channel_id=ctx.channel_id,
                channel_is_private=ctx.channel_is_private,
                owner_subject_id=ctx.author.subject_id,
                ts=ts,
                thread_ts=root,
                text=redacted.text,
                findings=findings_list_json(redacted.findings),
                permalink=ctx.permalink,
                now=now,
                asks_bot=asks_bot,
            )
            await store.touch_thread(tx, ctx.team_id, ctx.channel_id, root, now)
            await self._subjects.remember(tx, ctx.author)  # roll-ups name who took part
            if redacted.removed_any:  # audit what was removed from captured text (counts only)
                await write_audit(
                    tx,
                    at=now,
                    action="message.capture",
                    subject_id=ctx.author.subject_id,
                    team_id=ctx.team_id,
                    channel_id=ctx.channel_id,
                    scope="channel",
                    item_id=message_id(rowid),
                    counts=finding_counts(redacted.findings),
                )
            row = await store.find_message(tx, ctx.team_id, ctx.channel_id, ts)
        if row is None:  # pragma: no cover - we just inserted it inside this transaction
            raise UnknownItem(ts)
        message = _message(row)
        if incident is not None and not asks_bot:
            await self._remember(ctx, message, incident)
        return message

    async def _remember(self, ctx: WriteContext, message: CapturedMessage, incident: str) -> None:
        """Save the captured (already redacted) message as notes of the kinds it states
        (`statements_of`; an app's post, an alert or a pager's "Assigned to Ana", is plain talk
        whatever its words say: it decides, owns and fixes nothing); a note keeps the words as
        said (a "root cause:" label is searchable), shown without it."""
        if self._notes is None:
            return
        await self._note(replace(ctx, source_ts=message.ts), message.text, incident)

    async def _note(self, ctx: WriteContext, text: str, incident: str) -> None:
        """Save a captured message's statements as notes, one per statement it makes
        (`statement_parts`: a structured update's cause, decision and action items each their
        own), all keyed to the message, so an edit or a delete replaces or removes them all."""
        assert self._notes is not None
        app = is_app_subject(ctx.author.subject_id)
        parts: list[tuple[str, StatementKind]] = [(text, "note")] if app else statements_of(text)
        # Dated when said, not when stored: a delivery Slack retried, or one queued behind a
        # burst, still shows (and answers "what happened at 10:13?") with the writer's time.
        at = said_at(ctx.source_ts, self._clock()) if ctx.source_ts else None
        drafts = [NoteDraft(ctx, said, kind, incident, at=at) for said, kind in parts]
        # Vectors come from the index_vectors job within a minute (keyword recall finds the
        # note at once): embedding every message as it arrives held up draining a burst.
        try:
            await self._notes.save_many(drafts, vectors_later=True)
            return
        except ValidationError:
            if len(drafts) == 1:  # only placeholders left, or too long: stays captured
                log.info("message_not_noted", extra={"channel": ctx.channel_id})
                return
        for draft in drafts:  # a part that is only placeholders must not cost the others
            try:
                await self._notes.save_many([draft], vectors_later=True)
            except ValidationError:
                log.info("message_part_not_noted", extra={"channel": ctx.channel_id})

    async def edit(
        self, team_id: str, channel_id: str, ts: str, new_text: str, *, evidence: bool = True
    ) -> bool:
        """Apply `message_changed`: re-redact and replace; False when the message is unknown.

        The old text goes as bytes before this returns (issue 16): the row is rewritten under
        secure_delete, its FTS terms leave the index, the thread's episode (which may quote it)
        is deleted and queued for the next roll-up, and the WAL is checkpointed. Slack also sends
        `message_changed` when only an unfurl changed: the same text changes nothing.
        `evidence` False (the edit made it a question to the bot): its note goes, none returns.
        """
        if not new_text.strip():
            return await self.delete(team_id, channel_id, ts)
        redacted = await self._redactor.redact(new_text[:MAX_MESSAGE_CHARS])
        now = iso(self._clock())
        async with self._db.transaction() as tx:
            row = await store.find_message(tx, team_id, channel_id, ts)
            if row is None:
                return False
            was_question = bool(row["asks_bot"])
            if row["text"] == redacted.text and was_question == (not evidence):
                return True  # nothing changed: an unfurl, or a question still a question
            await store.update_message(
                tx,
                team_id,
                channel_id,
                ts,
                text=redacted.text,
                findings=findings_list_json(redacted.findings),
                edited_at=now,
                asks_bot=not evidence,
            )
            await episode_store.delete_thread_episode(tx, team_id, channel_id, row["thread_ts"])
            await store.touch_thread(tx, team_id, channel_id, row["thread_ts"], now)
            noted: Row | Mapping[str, Any] | None = await self._forget_note(
                tx, team_id, channel_id, ts
            )
            if noted is None and was_question and evidence:
                # The edit took the bot's mention out: the message is now evidence, a new note.
                noted = await self._as_note_source(tx, row)
        await self._db.checkpoint()
        if noted is not None and evidence:
            await self._renote(noted, redacted.text)
        return True

    async def _as_note_source(self, tx: Tx, row: Row) -> Mapping[str, Any] | None:
        """What `_renote` needs to note a captured message that had no note (it asked the bot);
        None outside an incident channel, where messages are never notes."""
        incident = await incident_store.id_for_channel(tx, row["team_id"], row["channel_id"])
        if incident is None:
            return None
        name = await subject_store.display_name(tx, str(row["owner_subject_id"]))
        return {
            "owner_subject_id": row["owner_subject_id"],
            "team_id": row["team_id"],
            "channel_id": row["channel_id"],
            "channel_is_private": row["channel_is_private"],
            "author_name": name or "",
            "permalink": row["permalink"],
            "source_ts": row["ts"],
            "incident_id": incident,
        }

    async def _forget_note(self, tx: Tx, team_id: str, channel_id: str, ts: str) -> Row | None:
        """Delete the note a captured message became (and its vectors, its text in neighbours'
        context); returns what is needed to save its replacement, None when there was none."""
        from memory.controls.forget import Counts, delete_notes  # controls imports this module

        rows = await note_store.from_message(tx, team_id, channel_id, ts)
        if rows:
            await delete_notes(tx, [int(r["id"]) for r in rows], Counts())
        return rows[0] if rows else None

    async def _renote(self, old: Row | Mapping[str, Any], text: str) -> None:
        """After an edit: the message's note again, with the new text (same author and place)."""
        if self._notes is None:
            return
        org, _, user = str(old["owner_subject_id"]).partition("/")
        team = str(old["team_id"])
        identity = SlackIdentity(team, user, enterprise_id=None if org == team else org)
        author = Author(str(old["owner_subject_id"]), identity, str(old["author_name"]))
        ctx = WriteContext(
            author,
            team,
            old["channel_id"],
            bool(old["channel_is_private"]),
            "channel",
            permalink=old["permalink"],
            source_ts=old["source_ts"],
        )
        await self._note(ctx, text, str(old["incident_id"]))

    async def delete(self, team_id: str, channel_id: str, ts: str) -> bool:
        """Apply `message_deleted`: the row, its FTS entry and the thread's episode go at once,
        as bytes too (secure_delete, FTS secure-delete, then a WAL checkpoint; issue 16)."""
        now = iso(self._clock())
        async with self._db.transaction() as tx:
            row = await store.message_ref(tx, team_id, channel_id, ts)
            if row is None:
                return False
            await self._forget_note(tx, team_id, channel_id, ts)  # found through the row
            await store.delete_message(tx, int(row["id"]))
            await episode_store.delete_thread_episode(tx, team_id, channel_id, row["thread_ts"])
            await store.touch_thread(tx, team_id, channel_id, row["thread_ts"], now)
        await self._db.checkpoint()
        return True

    async def messages(
        self, team_id: str, channel_id: str, thread_ts: str
    ) -> list[CapturedMessage]:
        """A thread's messages in order; for roll-ups run by the system, not for people."""
        rows = await store.thread_messages(self._db, team_id, channel_id, thread_ts)
        return [_message(r) for r in rows]

    async def visible_messages(
        self, requester: Requester, *, channel_id: str, thread_ts: str
    ) -> list[CapturedMessage]:
        """A thread's messages as the requester may see them (nothing from elsewhere's private)."""
        rows = await store.visible_thread_messages(
            self._db, requester, channel_id=channel_id, thread_ts=thread_ts
        )
        return [_message(r) for r in rows]

    async def pending_threads(self, since: datetime) -> list[ThreadRef]:
        """Threads changed after `since` whose episode is missing or older than the change."""
        return await pending_threads(self._db, since)


async def pending_threads(db: Database, since: datetime) -> list[ThreadRef]:
    """Threads changed after `since` whose episode is missing or older than the change."""
    rows = await store.pending_threads(db, iso(since))
    return [
        ThreadRef(r["team_id"], r["channel_id"], r["thread_ts"], parse_iso(r["changed_at"]))
        for r in rows
    ]
