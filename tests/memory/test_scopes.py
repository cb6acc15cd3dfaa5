"""Scopes: one visibility rule in SQL, mirrored by vector partitions; guests cannot write (issue 4)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from memory.errors import GUEST_WRITE_REFUSED, InvalidScope, PermissionDenied
from memory.scopes import (
    Requester,
    WriteContext,
    partition_key_for,
    visible_partitions,
)
from memory.store.db import Database
from memory.store.visibility import visibility_sql
from memory.subjects import Author, SlackIdentity
from tests.memory.store.scoped_rows import scoped_rows_db, visible

ROWS = [  # (name, scope, team, channel, private, owner)
    ("mine", "user", "T1", None, 0, "T1/U1"),
    ("theirs", "user", "T1", None, 0, "T1/U2"),
    ("private_c9", "channel", "T1", "C9", 1, "T1/U2"),
    ("public_c8", "channel", "T1", "C8", 0, "T1/U2"),
    ("team1", "workspace", "T1", "C8", 0, "T1/U2"),
    ("team2", "workspace", "T2", "C7", 0, "T2/U3"),
    ("t2_public_c8", "channel", "T2", "C8", 0, "T2/U3"),  # Slack Connect: same channel id
    ("t2_private_c9", "channel", "T2", "C9", 1, "T2/U3"),
    ("grid_in_t1", "user", "T1", None, 0, "E5/W9"),
    ("grid_in_t2", "user", "T2", None, 0, "E5/W9"),
]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await scoped_rows_db(tmp_path / "m.db", ROWS)
    yield database
    await database.close()


async def test_private_channel_rows_only_inside_that_channel(db) -> None:
    inside = Requester("T1/U1", "T1", channel_id="C9")
    member_elsewhere = Requester(
        "T1/U1", "T1", channel_id="C8", member_channel_ids=frozenset({"C9"})
    )
    assert "private_c9" in await visible(db, inside)
    assert "private_c9" not in await visible(db, member_elsewhere)
    assert "private_c9" not in await visible(db, Requester("T1/U1", "T1"))
    full_elsewhere = Requester.full_member(
        "T1/U1", "T1", channel_id="C8", member_channel_ids=frozenset({"C9"})
    )
    assert "private_c9" not in await visible(db, full_elsewhere)


async def test_private_channel_rows_reach_its_verified_members_where_no_one_else_reads(
    db,
) -> None:
    """App Home / DM (no channel): a member of the private channel sees it, nobody else."""
    home_member = Requester.full_member("T1/U1", "T1", member_channel_ids=frozenset({"C9"}))
    assert "private_c9" in await visible(db, home_member)
    assert "cp:T1:C9" in visible_partitions(home_member)
    home_other = Requester.full_member("T1/U4", "T1", member_channel_ids=frozenset({"C8"}))
    assert "private_c9" not in await visible(db, home_other)
    assert "cp:T1:C9" not in visible_partitions(home_other)


async def test_a_full_member_sees_every_public_channel_of_the_team_members_or_not(db) -> None:
    full = Requester.full_member("T1/U4", "T1", channel_id="C1")
    assert await visible(db, full) == {"public_c8", "team1"}
    assert "c:T1:C8" in visible_partitions(full, public_channel_ids=["C8"])
    guest = Requester.limited("T1/U4", "T1", channel_id="C1")
    assert await visible(db, guest) == set()
    assert "c:T1:C8" not in visible_partitions(guest, public_channel_ids=["C8"])
    member_guest = Requester.limited(
        "T1/U4", "T1", channel_id="C1", member_channel_ids=frozenset({"C8"})
    )
    assert await visible(db, member_guest) == {"public_c8"}


async def test_public_channel_rows_reach_members_and_user_rows_only_their_owner(db) -> None:
    dm_member = Requester("T1/U1", "T1", member_channel_ids=frozenset({"C8"}))
    assert await visible(db, dm_member) == {"mine", "public_c8", "team1"}
    assert await visible(db, Requester("T1/U4", "T1")) == {"team1"}


async def test_other_workspace_sees_none_of_this_teams_rows(db) -> None:
    assert await visible(db, Requester("T2/U3", "T2")) == {"team2"}


async def test_colliding_channel_and_subject_ids_stay_in_their_team(db) -> None:
    colliding = Requester("T1/U1", "T2", channel_id="C9", member_channel_ids=frozenset({"C8"}))
    assert await visible(db, colliding) == {"team2", "t2_public_c8", "t2_private_c9"}
    assert "u:T1/U1" not in visible_partitions(colliding)


async def test_grid_subject_sees_own_rows_from_any_workspace_of_the_org(db) -> None:
    member = Requester("E5/W9", "T2", enterprise_id="E5")
    assert await visible(db, member) == {"grid_in_t1", "grid_in_t2", "team2"}
    guest = Requester("E5/W9", "T2", enterprise_id="E5", sees_workspace=False)
    assert await visible(db, guest) == set()


async def test_public_audience_sees_public_channels_and_workspace_rows_of_its_team(db) -> None:
    audience = Requester.public_audience("T1")
    assert await visible(db, audience) == {"public_c8", "team1"}
    assert visible_partitions(audience, public_channel_ids=["C8"]) == ["w:T1", "c:T1:C8"]


def test_personal_memory_is_written_in_the_authors_own_workspace() -> None:
    with pytest.raises(InvalidScope):
        WriteContext(Author.of(SlackIdentity("T1", "U1")), "T2", None, False, "user")
    grid = Author.of(SlackIdentity("T1", "W9", enterprise_id="E5"))
    assert WriteContext(grid, "T2", None, False, "user").team_id == "T2"


async def test_guests_see_their_conversation_but_not_workspace_knowledge(db) -> None:
    guest = Requester("T1/U9", "T1", channel_id="C8", sees_workspace=False)
    assert await visible(db, guest) == {"public_c8"}
    assert "w:T1" not in visible_partitions(guest)


def test_partitions_mirror_the_sql_rule() -> None:
    """Every row's partition is searchable exactly when the SQL rule shows the row."""
    requesters = [
        Requester(
            s,
            t,
            enterprise_id=e,
            channel_id=c,
            member_channel_ids=m,
            sees_workspace=w,
            every_public_channel=p,
        )
        for (s, e), t, c, m, w, p in itertools.product(
            [("T1/U1", None), ("E5/W9", "E5")],
            ["T1", "T2"],
            [None, "C8", "C9"],
            [frozenset(), frozenset({"C8", "C9"})],
            [True, False],
            [True, False],
        )
    ]
    public_by_team = {
        t: sorted({r[3] for r in ROWS if r[1] == "channel" and r[2] == t and not r[4]})
        for t in ("T1", "T2")
    }
    for req in requesters:
        parts = set(visible_partitions(req, public_channel_ids=public_by_team[req.team_id]))
        for name, scope, team, channel, private, owner in ROWS:
            key = partition_key_for(
                scope=scope,
                team_id=team,
                channel_id=channel,
                channel_is_private=bool(private),
                owner_subject_id=owner,
            )
            grid_member = req.enterprise_id is not None and req.sees_workspace
            sql_sees = (
                (
                    scope == "user"
                    and owner == req.subject_id
                    and (
                        (grid_member and owner.startswith("E5/"))
                        or (team == req.team_id and owner.startswith(f"{team}/"))
                    )
                )
                or (
                    scope == "channel"
                    and team == req.team_id
                    and (
                        channel == req.channel_id
                        or (
                            not private
                            and (req.every_public_channel or channel in req.member_channel_ids)
                        )
                        or (
                            private and req.channel_id is None and channel in req.member_channel_ids
                        )
                    )
                )
                or (scope == "workspace" and team == req.team_id and req.sees_workspace)
            )
            assert (key in parts) == sql_sees, (name, req)


@pytest.mark.parametrize("flag", ["is_guest", "is_external"])
def test_guests_and_external_people_cannot_write(flag: str) -> None:
    author = Author.of(SlackIdentity(team_id="T1", user_id="U1", **{flag: True}))
    with pytest.raises(PermissionDenied) as caught:
        WriteContext(author, "T1", "C1", channel_is_private=False, scope="channel")
    assert str(caught.value) == GUEST_WRITE_REFUSED


def test_channel_scope_needs_a_channel() -> None:
    with pytest.raises(InvalidScope):
        WriteContext(Author.of(SlackIdentity("T1", "U1")), "T1", None, False, "channel")


def test_alias_is_checked_before_it_reaches_sql() -> None:
    with pytest.raises(ValueError):
        visibility_sql(Requester("T1/U1", "T1"), alias="n; DROP TABLE x")


async def test_visibility_filter_never_drives_a_scan_of_the_whole_team(db) -> None:
    """Reads filter a known id list by visibility; the team must not become the index driver
    (a full scan of a big workspace per recall)."""
    vis, params = visibility_sql(
        Requester("T1/U1", "T1", channel_id="C1", member_channel_ids=frozenset({"C2"})),
        alias="n",
    )
    plan = await db.fetchall(
        "EXPLAIN QUERY PLAN SELECT n.id FROM memory_notes n"
        f" WHERE n.id IN (SELECT value FROM json_each(:ids)) AND {vis}",
        {**params, "ids": "[1, 2, 3]"},
    )
    details = " | ".join(str(row[3]) for row in plan)
    assert "INTEGER PRIMARY KEY" in details
    assert "memory_notes_incident" not in details and "MULTI-INDEX" not in details


def test_workspace_partition_is_searched_by_that_teams_members_only() -> None:
    """Issue 18, item 6: the workspace branch of the partition rule, case by case."""
    key = partition_key_for(
        scope="workspace",
        team_id="T1",
        channel_id="C8",
        channel_is_private=True,
        owner_subject_id="T1/U2",
    )
    assert key == "w:T1"
    assert key in visible_partitions(Requester("T1/U1", "T1"))
    assert key in visible_partitions(Requester("T1/U1", "T1", channel_id="C5"))
    assert key not in visible_partitions(Requester("T1/U9", "T1", sees_workspace=False))
    assert key not in visible_partitions(Requester("T9/U0EXT", "T1", sees_workspace=False))
    assert key not in visible_partitions(Requester("T1/U1", "T2"))


@pytest.mark.parametrize(
    ("scope", "team", "channel", "message"),
    [
        ("team", "T1", "C1", "Scope must be user, channel or workspace."),
        (
            "channel",
            "T1",
            None,
            "Channel memory needs a channel; save it from the incident channel or use scope user.",
        ),
        ("workspace", "", "C1", "Memory needs a Slack team id; pass the workspace's team id."),
        ("user", "T2", None, "Personal memory is saved in your own workspace; save it from there."),
    ],
)
def test_a_refused_write_context_says_the_problem_and_the_fix(
    scope: str, team: str, channel: str | None, message: str
) -> None:
    with pytest.raises(InvalidScope) as refused:
        WriteContext(Author.of(SlackIdentity("T1", "U1")), team, channel, False, scope)  # type: ignore[arg-type]
    assert str(refused.value) == message


def _key(**overrides: Any) -> str:
    """partition_key_for a public channel row of T1/U1 in C8 of T1, with `overrides`."""
    values: dict[str, Any] = {
        "scope": "channel",
        "team_id": "T1",
        "channel_id": "C8",
        "channel_is_private": False,
        "owner_subject_id": "T1/U1",
    }
    return partition_key_for(**{**values, **overrides})


def test_an_unknown_scope_has_no_partition() -> None:
    with pytest.raises(InvalidScope) as refused:
        _key(scope="team", channel_id=None)
    assert str(refused.value) == "Scope must be user, channel or workspace."


def test_channel_partitions_carry_the_team() -> None:
    """Slack Connect: one channel id in two workspaces is two partitions, never one."""
    keys = {_key(team_id=team) for team in ("T1", "T2")}
    assert keys == {"c:T1:C8", "c:T2:C8"}


async def test_a_guest_asking_in_a_channel_never_sees_their_private_channels_there(db) -> None:
    """Others read an answer in a channel: a guest's private channels stay out of it, while
    the channel asked in still shows."""
    guest = Requester.limited("T1/U1", "T1", channel_id="C8", member_channel_ids=frozenset({"C9"}))
    assert await visible(db, guest) == {"mine", "public_c8"}
    assert "cp:T1:C9" not in visible_partitions(guest)
    assert "c:T1:C8" in visible_partitions(guest)


async def test_a_grid_full_member_sees_their_own_rows_from_another_workspace(db) -> None:
    member = Requester.full_member("E5/W9", "T2", enterprise_id="E5")
    assert {"grid_in_t1", "grid_in_t2"} <= await visible(db, member)
    assert "u:E5/W9" in visible_partitions(member)


def test_a_full_member_searches_the_public_channels_they_are_in_beside_the_listed_ones() -> None:
    """The store's list of public channels with rows may lag a channel the asker is in; the
    asker's own public channels are searched all the same."""
    full = Requester.full_member("T1/U1", "T1", member_channel_ids=frozenset({"C5"}))
    keys = visible_partitions(full, public_channel_ids=["C8"])
    assert {"c:T1:C5", "c:T1:C8"} <= set(keys)


def test_channel_scope_without_a_channel_has_no_partition() -> None:
    """A channel row with no channel would share one partition across channels: refused."""
    for missing in (None, ""):
        with pytest.raises(InvalidScope) as refused:
            _key(channel_id=missing)
        assert str(refused.value) == "Channel memory needs a channel."
