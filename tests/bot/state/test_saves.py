"""Saving a Slack message once, across crashes: a claim left behind by a dead process stops
blocking, but never lets a message that did get saved be saved again (real SQLite, real notes)."""

from __future__ import annotations

from bot.state.saves import STALE_CLAIM, SourceKey, SourceSaves
from memory.notes import Notes
from memory.redaction.redactor import Redactor
from memory.store import Database
from tests.conftest import FakeClock
from tests.memory.contexts import ctx

KEY = SourceKey("T1", "C1", "1700000000.000100", "note")
STALE = STALE_CLAIM.total_seconds() + 1


async def test_claim_of_a_save_that_died_before_its_note_stops_blocking(
    db: Database, clock: FakeClock
) -> None:
    saves = SourceSaves(db, clock)
    assert await saves.claim(KEY)  # the process dies here: no note, no link
    assert await saves.is_saved(KEY) and not await saves.claim(KEY)
    clock.advance(seconds=STALE)
    assert not await saves.is_saved(KEY)
    assert await saves.claim(KEY)


async def test_save_that_died_after_its_note_never_saves_the_message_twice(
    db: Database, redactor: Redactor, clock: FakeClock
) -> None:
    saves = SourceSaves(db, clock)
    assert await saves.claim(KEY)
    note = await Notes(db, redactor, None, clock=clock).save(
        ctx("C1", source_ts=KEY.source_ts), "expired TLS cert on payments-gw"
    )  # the process dies here: the note exists, the claim was never linked to it
    clock.advance(seconds=STALE)
    assert not await saves.claim(KEY)
    linked = await db.scalar("SELECT note_id FROM bot_saved_sources")
    assert linked == note.id
    assert await saves.is_saved(KEY)
