"""Subjects: one durable id per person, from Slack identity, plus a TTL cache of `users.info` facts.

A subject id is "E123/U456" inside an Enterprise Grid org (so the same person in several
workspaces of the org is one subject) and "T123/U456" otherwise. Display names are never part of
it, so renaming yourself changes nothing. This module imports no Slack: the bot hands
`UserDirectory` an async callable that wraps `users.info`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memory.clock import Clock, iso, utc_now
from memory.errors import InvalidSlackId
from memory.store import subjects as store

if TYPE_CHECKING:
    from memory.store.db import Database, Tx

_SLACK_ID = re.compile(r"^[A-Z0-9]{2,32}$")


@dataclass(frozen=True)
class SlackIdentity:
    """Who someone is in Slack; guests and Slack Connect users are flagged (they cannot write)."""

    team_id: str
    user_id: str
    enterprise_id: str | None = None
    is_guest: bool = False
    is_external: bool = False  # Slack Connect: a user from another organisation


def _check_id(value: str | None, what: str) -> None:
    if value is not None and not _SLACK_ID.match(value):
        raise InvalidSlackId(what)


def subject_id_for(identity: SlackIdentity) -> str:
    """The durable subject id: enterprise id when present, else team id, then the user id."""
    _check_id(identity.team_id, "team")
    _check_id(identity.user_id, "user")
    _check_id(identity.enterprise_id, "enterprise")
    org = identity.enterprise_id or identity.team_id
    return f"{org}/{identity.user_id}"


def is_app_subject(subject_id: str) -> bool:
    """Whether the subject is an app (a Slack bot id, "B…") rather than a person: apps post
    alerts into incident threads but take no part in them."""
    return subject_id.rpartition("/")[2].startswith("B")


@dataclass(frozen=True)
class Author:
    """The person writing memory; `display_name` is shown, never used as identity."""

    subject_id: str
    identity: SlackIdentity
    display_name: str = ""

    @classmethod
    def of(cls, identity: SlackIdentity, display_name: str = "") -> Author:
        return cls(subject_id_for(identity), identity, display_name)


@dataclass(frozen=True)
class UserFacts:
    """The few `users.info` facts opsmemory needs (who may write, how to show them)."""

    identity: SlackIdentity
    display_name: str = ""
    real_name: str = ""
    timezone: str | None = None
    is_bot: bool = False
    deleted: bool = False

    @property
    def subject_id(self) -> str:
        return subject_id_for(self.identity)

    def author(self) -> Author:
        return Author(self.subject_id, self.identity, self.display_name or self.real_name)


FetchUser = Callable[[str, str], Awaitable[UserFacts]]
"""async (team_id, user_id) -> UserFacts; the bot wraps Slack's users.info in one of these."""


@dataclass
class _Entry:
    facts: UserFacts
    expires: datetime


class UserDirectory:
    """Caches `users.info` answers per (team, user) for `ttl`; concurrent misses share one fetch."""

    def __init__(
        self, fetch: FetchUser, *, ttl: timedelta = timedelta(hours=1), clock: Clock = utc_now
    ) -> None:
        self._fetch = fetch
        self._ttl = ttl
        self._clock = clock
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._inflight: dict[tuple[str, str], asyncio.Future[UserFacts]] = {}

    async def get(self, team_id: str, user_id: str) -> UserFacts:
        """Cached facts when fresh; otherwise fetch once (errors propagate and are not cached)."""
        key = (team_id, user_id)
        entry = self._entries.get(key)
        if entry is not None and self._clock() < entry.expires:
            return entry.facts
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[UserFacts] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            facts = await self._fetch(team_id, user_id)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it, no "never retrieved" noise
            raise
        finally:
            self._inflight.pop(key, None)
        future.set_result(facts)
        if self._ttl > timedelta(0):
            self._entries[key] = _Entry(facts, self._clock() + self._ttl)
        return facts

    def forget(self, team_id: str, user_id: str) -> None:
        """Drop one cached entry (e.g. on a `user_change` event)."""
        self._entries.pop((team_id, user_id), None)

    def __len__(self) -> int:
        return len(self._entries)


class Subjects:
    """The `memory_subjects` table: every subject that has written memory, with its last name."""

    def __init__(self, db: Database, clock: Clock = utc_now) -> None:
        self._db = db
        self._clock = clock

    async def remember(self, tx: Tx, author: Author) -> None:
        """Upsert the author inside the caller's write transaction."""
        ident = author.identity
        await store.upsert(
            tx,
            subject_id=author.subject_id,
            enterprise_id=ident.enterprise_id,
            team_id=ident.team_id,
            user_id=ident.user_id,
            display_name=author.display_name,
            now=iso(self._clock()),
        )

    async def display_name(self, subject_id: str) -> str | None:
        """The last display name seen for a subject (None when unknown)."""
        return await store.display_name(self._db, subject_id)
