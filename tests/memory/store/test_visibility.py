"""The visibility SQL's workspace branch: a team's workspace rows reach its members, never its
guests, people from other organisations, or another team (issue 18, item 6)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memory.scopes import Requester
from memory.store.db import Database
from memory.store.visibility import public_channels, visibility_sql
from tests.memory.store.scoped_rows import scoped_rows_db, visible

ROWS = [  # (name, scope, team, channel, private, owner)
    ("t1_workspace", "workspace", "T1", None, 0, "T1/U2"),
    ("t1_workspace_from_private", "workspace", "T1", "G9", 1, "T1/U2"),
    ("t2_workspace", "workspace", "T2", None, 0, "T2/U3"),
]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await scoped_rows_db(tmp_path / "v.db", ROWS)
    yield database
    await database.close()


@pytest.mark.parametrize("channel", [None, "C1", "G9"])
async def test_a_team_member_sees_the_teams_workspace_rows_wherever_they_ask(
    db: Database, channel: str | None
) -> None:
    """Workspace rows need no channel membership; a promoted row keeps no channel tie."""
    member = Requester("T1/U1", "T1", channel_id=channel)
    assert await visible(db, member) == {"t1_workspace", "t1_workspace_from_private"}


async def test_a_guest_of_the_team_sees_no_workspace_rows(db: Database) -> None:
    guest = Requester("T1/U9", "T1", channel_id="C1", sees_workspace=False)
    assert await visible(db, guest) == set()


async def test_someone_from_another_organisation_sees_no_workspace_rows(db: Database) -> None:
    """Slack Connect: asking in T1's channel, their identity names their own org."""
    external = Requester("T9/U0EXT", "T1", channel_id="C1", sees_workspace=False)
    assert await visible(db, external) == set()


async def test_another_teams_member_sees_only_their_own_teams_workspace_rows(
    db: Database,
) -> None:
    assert await visible(db, Requester("T2/U3", "T2", channel_id="G9")) == {"t2_workspace"}
    # The same user id asking as a member of T2 gets nothing of T1.
    assert await visible(db, Requester("T1/U1", "T2")) == {"t2_workspace"}


async def test_the_public_audience_of_a_team_reads_its_workspace_rows(db: Database) -> None:
    assert await visible(db, Requester.public_audience("T1")) == {
        "t1_workspace",
        "t1_workspace_from_private",
    }


def test_an_alias_that_is_not_a_plain_identifier_never_reaches_sql() -> None:
    with pytest.raises(ValueError) as refused:
        visibility_sql(Requester("T1/U1", "T1"), alias="r; DROP TABLE rows")
    assert str(refused.value) == "bad SQL alias 'r; DROP TABLE rows'"


async def test_public_channels_lists_a_teams_public_channels_with_memory_only(
    tmp_path: Path,
) -> None:
    """The public partitions a full member searches: public channels of their team that hold
    notes or an incident; never a private channel, another team's channel (even one sharing
    the prefix), and nothing at all for someone who does not see every public channel."""
    db = await Database.open(tmp_path / "p.db")
    try:
        notes = [  # (team, channel, private, partition)
            ("T1", "C1", 0, "c:T1:C1"),
            ("T1", "C1", 0, "c:T1:C1"),
            ("T1", "C2", 0, "c:T1:C2"),
            ("T1", "G3", 1, "cp:T1:G3"),
            ("T10", "C4", 0, "c:T10:C4"),  # "c:T1" is its prefix, not its team
            ("T2", "C5", 0, "c:T2:C5"),
            ("T1", None, 0, "u:T1/U1"),
            ("T1", None, 0, "w:T1"),
        ]
        incidents = [("T1", "inc-1", 1, "C6", 0), ("T1", "inc-2", 2, "G7", 1)]
        incidents += [("T2", "inc-1", 1, "C8", 0)]
        async with db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO memory_notes (team_id, scope, channel_id, channel_is_private,"
                " owner_subject_id, partition_key, kind, text, created_at)"
                " VALUES (?, 'channel', ?, ?, 'T1/U1', ?, 'note', 'x', '2026-01-01T00:00:00Z')",
                notes,
            )
            await tx.executemany(
                "INSERT INTO memory_incidents (team_id, id, number, channel_id,"
                " channel_is_private, owner_subject_id, title, severity, status, opened_at)"
                " VALUES (?, ?, ?, ?, ?, 'T1/U1', 't', 'sev3', 'open', '2026-01-01T00:00:00Z')",
                incidents,
            )
        full = Requester.full_member("T1/U1", "T1")
        assert sorted(await public_channels(db, full)) == ["C1", "C2", "C6"]
        other_team = Requester.full_member("T2/U3", "T2")
        assert sorted(await public_channels(db, other_team)) == ["C5", "C8"]
        guest = Requester.limited("T1/U9", "T1", member_channel_ids=frozenset({"C1"}))
        assert await public_channels(db, guest) == []
    finally:
        await db.close()
