"""User controls: export everything about a subject, forget one item or everything, retention TTL.

Forgetting cascades to keyword-index rows, vectors, profile facts, authored notes and messages,
and every episode that quoted them (rebuilt from what others wrote when an `Episodes` is given,
otherwise deleted now and queued for the scheduler's next roll-up). Each deletion leaves one
audit row holding counts per table, never content. When a call returns, the forgotten text is
gone as bytes too (issue 16): secure_delete zeroes freed space, FTS5 secure-delete takes the terms
out of the index, sqlite-vec zeroes deleted vectors, and the WAL is checkpointed and truncated.
Audit rows themselves are kept: they hold no content and prove the deletion happened. Incidents
a subject opened stay (they are the team's record).
"""

from __future__ import annotations

import re
import secrets
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memory.clock import Clock, iso, utc_now
from memory.controls import forget
from memory.controls.export import export_subject
from memory.controls.summary import LATEST_NOTES, MemorySummary, summarise_subject
from memory.errors import InvalidSubjectId, UnknownItem
from memory.scopes import SCOPES
from memory.store import forget as store
from memory.store import guarded as guarded_store
from memory.store.audit import write_audit
from memory.threads import pending_threads

if TYPE_CHECKING:
    from memory.episodes.episodes import Episodes
    from memory.store.db import Database, Tx

_SUBJECT = re.compile(r"^[A-Z0-9]{2,32}/[A-Z0-9]{2,32}$")
_ITEM = re.compile(r"^(note|profile|message|episode):(\d{1,18})$")


@dataclass(frozen=True)
class Receipt:
    """What a deletion removed: rows per table (FTS and vector tables included), no content."""

    action: str
    subject_id: str | None
    at: datetime
    counts: dict[str, int] = field(default_factory=dict)
    episodes_rebuilt: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "subject_id": self.subject_id,
            "at": iso(self.at),
            "counts": dict(sorted(self.counts.items())),
            "episodes_rebuilt": self.episodes_rebuilt,
        }


def check_subject_id(subject_id: str) -> str:
    if not _SUBJECT.match(subject_id or ""):
        raise InvalidSubjectId()
    return subject_id


class Controls:
    """Export, forget and retention over every memory table."""

    def __init__(
        self, db: Database, clock: Clock = utc_now, *, episodes: Episodes | None = None
    ) -> None:
        self._db = db
        self._clock = clock
        self._episodes = episodes

    async def export(self, subject_id: str) -> dict[str, Any]:
        """Everything stored about the subject, as one JSON-ready dict."""
        return await export_subject(self._db, check_subject_id(subject_id), self._clock())

    async def summary(self, subject_id: str, *, latest: int = LATEST_NOTES) -> MemorySummary:
        """Counts per kind and the newest notes: a bounded view, unlike `export`."""
        return await summarise_subject(self._db, check_subject_id(subject_id), latest=latest)

    async def forget_item(self, subject_id: str, item_id: str) -> Receipt:
        """Delete one of the subject's own items ("note:12", "profile:3", "message:9", ...)."""
        check_subject_id(subject_id)
        match = _ITEM.match(item_id or "")
        if not match:
            raise UnknownItem((item_id or "")[:40])
        kind, rowid = match[1], int(match[2])
        now = self._clock()
        counts: Counter[str] = Counter()
        async with self._db.transaction() as tx:
            team_id = await store.owner_team(tx, store.TABLE_OF[kind], rowid, subject_id)
            if team_id is None:
                raise UnknownItem(item_id)
            await self._delete(tx, kind, [rowid], counts, iso(now))
            await _receipt_row(tx, "memory.forget_item", subject_id, team_id, item_id, counts, now)
        return await self._finish("forget_item", subject_id, now, counts)

    async def forget_everything(self, subject_id: str) -> Receipt:
        """Delete every row the subject authored or that is about them, in one transaction."""
        check_subject_id(subject_id)
        now = self._clock()
        counts: Counter[str] = Counter()
        async with self._db.transaction() as tx:
            team = await store.subject_team(tx, subject_id)
            for kind in ("note", "profile", "message", "episode"):
                ids = await store.owned_ids(tx, store.TABLE_OF[kind], subject_id)
                await self._delete(tx, kind, ids, counts, iso(now))
            participated = await store.participated_episodes(tx, subject_id)
            await forget.delete_episodes(tx, participated, counts, iso(now))
            counts["memory_subjects"] += await store.delete_subject(tx, subject_id)
            # Guarded-action audit rows keep the fact (who did what is a record the team keeps)
            # under a random pseudonym, so nothing links them back to this person.
            counts["guarded_audit_pseudonymised"] += await guarded_store.pseudonymise_subject(
                tx, subject_id, f"forgotten-{secrets.token_hex(6)}", at=iso(now)
            )
            team_id = team if team is not None else subject_id.split("/", 1)[0]
            await _receipt_row(
                tx, "memory.forget_everything", subject_id, team_id, None, counts, now
            )
        return await self._finish("forget_everything", subject_id, now, counts)

    async def apply_retention(
        self, days_by_scope: Mapping[str, int | None], now: datetime | None = None
    ) -> Receipt:
        """Delete rows older than each scope's TTL in days (None: keep forever)."""
        now = now or self._clock()
        counts: Counter[str] = Counter()
        async with self._db.transaction() as tx:
            for scope, days in sorted(days_by_scope.items()):
                if scope not in SCOPES or days is None:
                    continue
                cutoff = iso(now - timedelta(days=days))
                for kind in ("note", "profile", "message", "episode"):
                    table = store.TABLE_OF[kind]
                    ids = await store.ids_older_than(tx, table, scope=scope, cutoff=cutoff)
                    await self._delete(tx, kind, ids, counts, iso(now))
            if counts:
                await _receipt_row(tx, "memory.retention", "opsmemory", "*", None, counts, now)
        return await self._finish("retention", None, now, counts)

    async def _delete(
        self, tx: Tx, kind: str, ids: list[int], counts: Counter[str], now: str
    ) -> None:
        if kind == "note":
            await forget.delete_notes(tx, ids, counts)
        elif kind == "profile":
            await forget.delete_profile_facts(tx, ids, counts)
        elif kind == "message":
            await forget.delete_messages(tx, ids, counts, now)
        else:
            await forget.delete_episodes(tx, ids, counts, now)

    async def _finish(
        self, action: str, subject_id: str | None, now: datetime, counts: Counter[str]
    ) -> Receipt:
        """Rebuild episodes for threads that lost content, from what remains; then checkpoint,
        so the pages that held the old text leave the WAL."""
        rebuilt = 0
        if self._episodes is not None:
            for ref in await pending_threads(self._db, now - timedelta(microseconds=1)):
                if await self._episodes.roll_up(ref.team_id, ref.channel_id, ref.thread_ts):
                    rebuilt += 1
        kept = {k: v for k, v in counts.items() if v}
        if kept:
            await self._db.checkpoint()
        return Receipt(action, subject_id, now, kept, rebuilt)


async def _receipt_row(
    tx: Tx,
    action: str,
    subject_id: str,
    team_id: str,
    item_id: str | None,
    counts: Counter[str],
    now: datetime,
) -> None:
    await write_audit(
        tx,
        at=iso(now),
        action=action,
        subject_id=subject_id,
        team_id=team_id,
        channel_id=None,
        scope="user",
        item_id=item_id,
        counts={k: v for k, v in counts.items() if v},
    )
