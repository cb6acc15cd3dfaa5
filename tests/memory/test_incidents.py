"""Incident registry: one canonical id form, explicit and channel-name creation (issue 4)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.errors import InvalidIncidentId, RedactionFailed, UnknownIncident
from memory.incidents import Incidents, parse_incident_id
from memory.scopes import Requester
from tests.conftest import FakeClock as Clock
from tests.memory.contexts import ctx


@pytest.mark.parametrize("text", ["inc-42", "INC-0042", "#42", "42", " inc 42 ", "Inc_042"])
def test_incident_id_spellings_share_one_canonical_form(text: str) -> None:
    assert parse_incident_id(text) == "inc-42"


@pytest.mark.parametrize("text", ["", "inc-", "inc-0", "forty-two", "inc-42; drop", "#-1"])
def test_malformed_incident_ids_are_refused(text: str) -> None:
    with pytest.raises(InvalidIncidentId):
        parse_incident_id(text)


async def test_opened_incidents_get_the_next_number_and_are_found_by_any_spelling(
    db, redactor
) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    first = await incidents.open(ctx("C1"), title="db down", channel_id="C1")
    second = await incidents.open(ctx("C2"), title="api slow", severity="SEV1", channel_id="C2")
    assert (first.id, second.id, second.severity) == ("inc-1", "inc-2", "sev1")
    assert (await incidents.get("T1", "INC-0002")).title == "api slow"
    assert (await incidents.for_channel("T1", "C1")).id == "inc-1"
    with pytest.raises(UnknownIncident):
        await incidents.get("T1", "#3")
    with pytest.raises(UnknownIncident):
        await incidents.get("T2", "inc-1")  # numbers are per team


async def test_channel_name_pattern_registers_the_incident_once(db, redactor) -> None:
    incidents = Incidents(db, Clock(), channel_pattern="^inc-", redactor=redactor)
    assert await incidents.recognise_channel("T1", "C5", "general", False) is None
    found = await incidents.recognise_channel("T1", "C5", "inc-77-payments-down", False)
    again = await incidents.recognise_channel("T1", "C5", "inc-77-payments-down", False)
    assert found is not None and again is not None
    assert (found.id, again.id, found.title) == ("inc-77", "inc-77", "payments down")


async def test_resolving_stamps_the_time(db, redactor) -> None:
    clock = Clock()
    incidents = Incidents(db, clock, redactor=redactor)
    await incidents.open(ctx("C1"), title="db down", channel_id="C1")
    clock.now += timedelta(hours=2)
    resolved = await incidents.set_status("T1", "1", "resolved")
    assert resolved.status == "resolved" and resolved.resolved_at == clock.now


async def test_private_incidents_are_listed_only_inside_their_channel(db, redactor) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    await incidents.open(ctx("C9", private=True), title="secret breach", channel_id="C9")
    assert await incidents.list_recent(Requester("T1/U2", "T1", channel_id="C1")) == []
    inside = await incidents.list_recent(Requester("T1/U2", "T1", channel_id="C9"))
    assert [i.id for i in inside] == ["inc-1"]


async def test_incident_titles_are_redacted_before_they_are_stored(db, redactor) -> None:
    incidents = Incidents(db, Clock(), redactor=redactor)
    opened = await incidents.open(ctx("C1"), title="db down, page ops@example.com", channel_id="C1")
    assert opened.title == "db down, page <EMAIL_ADDRESS>"
    stored = await db.scalar("SELECT title FROM memory_incidents")
    assert "example.com" not in stored


async def test_without_a_redactor_no_title_is_stored(db) -> None:
    with pytest.raises(RedactionFailed):
        await Incidents(db, Clock()).open(ctx("C1"), title="db down", channel_id="C1")
    assert await db.scalar("SELECT count(*) FROM memory_incidents") == 0


async def test_opening_a_self_registered_channel_names_its_incident(db, redactor) -> None:
    """inc-42-checkout registers itself on its first message; `/incident open` then sets the
    title and severity of that incident instead of refusing the channel as already tracked."""
    incidents = Incidents(db, Clock(), redactor=redactor)
    auto = await incidents.recognise_channel("T1", "C42", "inc-42-checkout", False)
    assert auto is not None and auto.id == "inc-42"
    opened = await incidents.open(
        ctx("C42"), title="Checkout latency", severity="sev2", channel_id="C42"
    )
    assert (opened.id, opened.title, opened.severity) == ("inc-42", "Checkout latency", "sev2")
    assert await db.scalar("SELECT count(*) FROM memory_incidents") == 1
