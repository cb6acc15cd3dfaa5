"""Subjects: durable ids across display names and Grid workspaces; the users.info TTL cache (issue 4)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from memory.store.db import Database
from memory.subjects import (
    Author,
    InvalidSlackId,
    SlackIdentity,
    Subjects,
    UserDirectory,
    UserFacts,
    subject_id_for,
)
from tests.conftest import FakeClock as Clock


def test_grid_user_is_one_subject_across_workspaces() -> None:
    a = SlackIdentity(team_id="T1", user_id="W9", enterprise_id="E5")
    b = SlackIdentity(team_id="T2", user_id="W9", enterprise_id="E5")
    assert subject_id_for(a) == subject_id_for(b) == "E5/W9"


def test_subject_without_enterprise_uses_team() -> None:
    assert subject_id_for(SlackIdentity(team_id="T1", user_id="U2")) == "T1/U2"


def test_display_name_is_not_part_of_identity() -> None:
    ident = SlackIdentity(team_id="T1", user_id="U2")
    assert Author.of(ident, "alice").subject_id == Author.of(ident, "alice-renamed").subject_id


def test_malformed_ids_are_refused() -> None:
    with pytest.raises(InvalidSlackId):
        subject_id_for(SlackIdentity(team_id="T1", user_id="u2/../x"))


async def test_user_facts_are_cached_until_the_ttl_expires() -> None:
    clock, calls = Clock(), []

    async def fetch(team: str, user: str) -> UserFacts:
        calls.append((team, user))
        return UserFacts(SlackIdentity(team, user), display_name=f"n{len(calls)}")

    directory = UserDirectory(fetch, ttl=timedelta(minutes=10), clock=clock)
    assert (await directory.get("T1", "U1")).display_name == "n1"
    clock.now += timedelta(minutes=9)
    assert (await directory.get("T1", "U1")).display_name == "n1"
    clock.now += timedelta(minutes=2)
    assert (await directory.get("T1", "U1")).display_name == "n2"
    assert len(calls) == 2


async def test_concurrent_misses_share_one_fetch_and_errors_are_not_cached() -> None:
    calls = 0

    async def fetch(team: str, user: str) -> UserFacts:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        if calls == 1:
            raise RuntimeError("slack down")
        return UserFacts(SlackIdentity(team, user))

    directory = UserDirectory(fetch, clock=Clock())
    results = await asyncio.gather(
        *(directory.get("T1", "U1") for _ in range(3)), return_exceptions=True
    )
    assert calls == 1 and all(isinstance(r, RuntimeError) for r in results)
    assert (await directory.get("T1", "U1")).identity.user_id == "U1"
    assert calls == 2


async def test_subjects_keep_the_latest_display_name(tmp_path) -> None:
    db = await Database.open(tmp_path / "m.db")
    try:
        subjects = Subjects(db, Clock())
        ident = SlackIdentity(team_id="T1", user_id="U1")
        async with db.transaction() as tx:
            await subjects.remember(tx, Author.of(ident, "old"))
            await subjects.remember(tx, Author.of(ident, "new"))
            await subjects.remember(tx, Author.of(ident, ""))
        assert await subjects.display_name("T1/U1") == "new"
    finally:
        await db.close()
