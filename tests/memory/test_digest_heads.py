"""Digest heads of incidents opened before the day: only what the team may read, in SQL and
in code."""

from __future__ import annotations

from datetime import timedelta

from memory.episodes.digest import build_digest
from memory.incidents import Incidents
from memory.scopes import Requester
from memory.store import digest as store
from tests.memory.contexts import ctx


async def test_a_private_incident_is_never_named_by_the_store(db, redactor, clock) -> None:
    """SQL layer: asked for a private channel's incident by id, the public read returns none."""
    incidents = Incidents(db, clock, redactor=redactor)
    private = await incidents.open(
        ctx("G1", private=True), title="payments breach", channel_id="G1"
    )
    public = await incidents.open(ctx("C1"), title="checkout latency", channel_id="C1")
    window = store.Window(since="0", until="9", cap=50)
    rows = await store.incidents_named(
        db, Requester.public_audience("T1"), window, [private.id, public.id]
    )
    assert [r["id"] for r in rows] == [public.id]


async def test_a_head_the_store_returned_for_no_shown_thread_is_dropped(
    db, redactor, clock, monkeypatch
) -> None:
    """Code layer: were the store to return an incident no visible thread or decision of the
    day belongs to (a private one), the digest names it nowhere."""
    incidents = Incidents(db, clock, redactor=redactor)
    await incidents.open(ctx("G1", private=True), title="payments breach", channel_id="G1")
    leaked = await db.fetchall(
        "SELECT id, title, severity, status, channel_id, opened_at, resolved_at"
        " FROM memory_incidents"
    )

    async def unfiltered(*_args: object, **_kwargs: object) -> list[object]:
        return list(leaked)

    monkeypatch.setattr(store, "incidents_named", unfiltered)
    now = clock()
    digest = await build_digest(db, "T1", since=now - timedelta(days=1), until=now)
    assert digest.incidents_active == []
