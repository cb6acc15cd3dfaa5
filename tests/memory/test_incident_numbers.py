"""Incident numbers no channel name can poison (issue 18): the sequence ignores names, a name
keeps its number only when sane and free, and a database the old numbering poisoned migrates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory.errors import InvalidIncidentId
from memory.incidents import (
    MAX_CHANNEL_NUMBER,
    Incidents,
    channel_number,
    channel_title,
    parse_incident_id,
)
from memory.recall.recall import Recall
from memory.scopes import Requester, partition_key_for
from memory.store.db import Database
from memory.store.migrations import apply_migrations, load_migrations
from tests.conftest import FakeClock as Clock
from tests.memory.contexts import ctx

DEFAULT = re.compile("^inc-")
NUMBERING = 9  # memory/store/schema/0009_incident_numbers.sql


@pytest.mark.parametrize(
    ("name", "claimed"),
    [
        ("inc-123-checkout-latency", 123),
        ("inc-0042-payments", 42),  # leading zeros, as people type ids
        ("inc-7-and-8-and-9", 7),  # only the first word after the prefix counts
        (f"inc-{MAX_CHANNEL_NUMBER}", MAX_CHANNEL_NUMBER),
        (f"inc-{MAX_CHANNEL_NUMBER + 1}", None),
        ("inc-9999999999999-poison", None),
        ("inc-" + "9" * 5000, None),  # past int()'s digit limit, still no error
        ("inc-" + "0" * 60 + "5", 5),
        ("inc-0", None),
        ("inc-000", None),
        ("inc--5", None),
        ("inc-١٢٣-arabic-digits", None),
        ("inc-１２３-fullwidth", None),
        ("inc-123abc", None),
        ("inc-checkout-42", None),
        ("general-2", None),
        ("", None),
    ],
)
def test_a_channel_name_claims_only_a_sane_ascii_number_right_after_the_prefix(
    name: str, claimed: int | None
) -> None:
    assert channel_number(name, DEFAULT) == claimed


def test_a_pattern_without_its_separator_still_reads_the_number() -> None:
    assert channel_number("inc-5-db", re.compile("^inc")) == 5
    assert channel_number("inc5", re.compile("^inc")) == 5
    assert channel_number("inc--5", re.compile("^inc")) is None


@pytest.mark.parametrize("text", ["inc-١٢٣", "#１２", "inc-1000000000", "9" * 5000])
def test_ids_with_non_ascii_digits_or_past_the_range_are_refused(text: str) -> None:
    with pytest.raises(InvalidIncidentId):
        parse_incident_id(text)


async def test_a_huge_number_in_a_channel_name_does_not_move_the_numbering(
    db: Database, redactor
) -> None:
    """The reported bug: inc-999999999… made every later incident inc-1000000000."""
    incidents = Incidents(db, Clock(), redactor=redactor)
    poisoned = await incidents.recognise_channel("T1", "C1", "inc-999999999-poison", False)
    top = await incidents.recognise_channel("T1", "C2", f"inc-{MAX_CHANNEL_NUMBER}-x", False)
    later = [
        await incidents.open(ctx(f"C{n}"), title="db down", channel_id=f"C{n}") for n in (3, 4)
    ]
    assert poisoned is not None and top is not None
    ids = [poisoned.id, top.id, *(i.id for i in later)]
    assert ids == ["inc-1", f"inc-{MAX_CHANNEL_NUMBER}", "inc-2", "inc-3"]
    assert [parse_incident_id(i) for i in ids] == ids


async def test_opening_in_a_numbered_channel_keeps_the_channels_number(
    db: Database, redactor
) -> None:
    """The clash: `/incident open` in inc-123-checkout-latency said "Opened inc-1"."""
    incidents = Incidents(db, Clock(), redactor=redactor)
    opened = await incidents.open(
        ctx("C1"),
        title="Checkout latency",
        channel_id="C1",
        channel_name="inc-123-checkout-latency",
    )
    assert opened.id == "inc-123"
    plain = await incidents.open(ctx("C2"), title="api slow", channel_id="C2", channel_name="war")
    assert plain.id == "inc-1"  # a channel's number never advances the sequence


async def test_a_number_the_bot_already_gave_is_not_taken_by_a_channel_name(
    db: Database, redactor
) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    for n in (1, 2, 3):
        await incidents.open(ctx(f"C{n}"), title="db down", channel_id=f"C{n}")
    clash = await incidents.recognise_channel("T1", "C9", "inc-2-checkout", False)
    assert clash is not None and clash.id == "inc-4"


async def test_two_channels_claiming_one_number_get_it_first_come(db: Database, redactor) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    first = await incidents.recognise_channel("T1", "C1", "inc-42-checkout", False)
    second = await incidents.recognise_channel("T1", "C2", "inc-0042-checkout-again", False)
    other_team = await incidents.recognise_channel("T2", "C3", "inc-42-elsewhere", False)
    assert first is not None and second is not None and other_team is not None
    assert (first.id, second.id, other_team.id) == ("inc-42", "inc-1", "inc-42")


async def test_the_sequence_skips_numbers_channels_claimed(db: Database, redactor) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    for n in (1, 2, 4):
        await incidents.recognise_channel("T1", f"C{n}", f"inc-{n}", False)
    opened = [
        (await incidents.open(ctx(f"D{n}"), title="x", channel_id=f"C1{n}")).id for n in range(3)
    ]
    assert opened == ["inc-3", "inc-5", "inc-6"]


async def test_a_database_the_old_numbering_poisoned_migrates_without_loss(
    tmp_path: Path, redactor
) -> None:
    """Incidents past inc-999999999 could never be named; they are renumbered after the
    highest sane number, their notes and episodes follow, and the audit says so."""
    db = await Database.open(tmp_path / "old.db", migrate=False)
    try:
        await apply_migrations(db, [m for m in load_migrations() if m.version < NUMBERING])
        await _poison(db)
        await apply_migrations(db)
        rows = await db.fetchall("SELECT channel_id, id FROM memory_incidents ORDER BY channel_id")
        assert [tuple(r) for r in rows] == [
            ("C1", "inc-3"),
            ("C2", "inc-999999999"),
            ("C3", "inc-4"),
            ("C4", "inc-5"),
        ]
        episode = await db.scalar("SELECT incident_id FROM memory_episodes")
        assert episode == "inc-4"
        assert await db.fetchall("PRAGMA foreign_key_check") == []
        moves = await db.fetchall(
            "SELECT item_id FROM memory_audit WHERE action = 'incident.renumber' ORDER BY 1"
        )
        assert [r[0] for r in moves] == ["inc-4", "inc-5"]
        recall = Recall(db, None, clock=Clock())
        alice = Requester("T1/UALICE", "T1", channel_id="C3")
        found = await recall.recall(alice, "failover replica", incident="inc-4")
        assert [i.text for i in found] == ["failover to the replica worked"]
        opened = await Incidents(db, Clock(), redactor=redactor).open(
            ctx("C5"), title="next", channel_id="C5"
        )
        assert opened.id == "inc-6"
    finally:
        await db.close()


async def _poison(db: Database) -> None:
    """What the old numbering left: a channel inc-999999999, two bot incidents past it."""
    for channel, number in (
        ("C1", 3),
        ("C2", 999_999_999),
        ("C3", 1_000_000_000),
        ("C4", 1_000_000_001),
    ):
        await db.execute(
            "INSERT INTO memory_incidents (team_id, id, number, channel_id, channel_is_private,"
            " owner_subject_id, title, severity, status, opened_at)"
            " VALUES ('T1', :id, :n, :c, 0, 'opsmemory', 't', 'sev3', 'open', '2026-01-01T00:00:00.000000Z')",
            {"id": f"inc-{number}", "n": number, "c": channel},
        )
    key = partition_key_for(
        scope="channel",
        team_id="T1",
        channel_id="C3",
        channel_is_private=False,
        owner_subject_id="T1/UALICE",
    )
    await db.execute(
        "INSERT INTO memory_notes (team_id, scope, channel_id, channel_is_private,"
        " owner_subject_id, partition_key, incident_id, kind, text, created_at)"
        " VALUES ('T1', 'channel', 'C3', 0, 'T1/UALICE', :key, 'inc-1000000000', 'note',"
        " 'failover to the replica worked', '2026-01-01T00:00:00.000000Z')",
        {"key": key},
    )
    await db.execute(
        "INSERT INTO memory_episodes (team_id, channel_id, channel_is_private, owner_subject_id,"
        " thread_ts, incident_id, title, summary, message_count, started_at, ended_at,"
        " created_at, updated_at) VALUES ('T1', 'C3', 0, 'T1/UALICE', '1.1', 'inc-1000000000',"
        " 't', 's', 1, 'a', 'b', 'c', 'd')"
    )


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("inc-123-checkout-5xx", "checkout 5xx"),
        ("inc-0042_payments_down", "payments down"),
        ("inc-db-failover", "db failover"),
        ("inc-7", "inc-7"),
    ],
)
def test_a_channel_title_drops_the_prefix_and_its_number(name: str, title: str) -> None:
    """Digests and similar incidents said "123 checkout 5xx": the number is the id, not title."""
    assert channel_title(name, DEFAULT) == title


async def test_a_recognised_channel_is_titled_without_its_number(db: Database, redactor) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    found = await incidents.recognise_channel("T1", "C1", "inc-123-checkout-5xx", False)
    assert found is not None and (found.id, found.title) == ("inc-123", "checkout 5xx")
