"""'Who owns the single-rebuilder lock work now?' asked in another incident's channel: the action
item of the incident search ranks first, with its handover (Recall._with_item_elsewhere)."""

from __future__ import annotations

from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, store_returning_personal_rows

ITEM = "AI-1: implement the single-flight lock and stale copy in feed-api. owner Ben"
TAKEN = "I'll take AI-1 from Ben, it's close to the refresher work anyway"


async def _two_incidents(db, redactor, embedder) -> Recall:  # type: ignore[no-untyped-def]
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    first = await incidents.open(ctx("C1"), title="homepage cache stampede", channel_id="C1")
    for text, kind in [
        ("every homepage rebuild hit the db at once when the key expired", "note"),
        ("decision: single-flight lock on rebuild + stale copy kept for 1h", "decision"),
        (ITEM, "action"),
        ("AI-2: dashboard for rebuild duration. owner Ana", "action"),
        (TAKEN, "correction"),
    ]:
        await notes.save(ctx("C1"), text, kind, incident=first.id)  # type: ignore[arg-type]
    await incidents.open(ctx("C2"), title="api latency", channel_id="C2")
    return Recall(db, embedder)


ELSEWHERE = Requester.full_member("T1/U9", "T1", channel_id="C2")


async def test_who_owns_an_item_asked_elsewhere_gets_the_item_and_its_handover(
    db, redactor, embedder
) -> None:
    recall = await _two_incidents(db, redactor, embedder)
    items = await recall.relevant(ELSEWHERE, "Who owns the single-rebuilder lock work now?")
    texts = [i.text for i in items]
    assert TAKEN in texts and ITEM in texts, texts
    assert texts.index(TAKEN) < texts.index(ITEM)  # the handover says who has it now
    assert all(i.channel_id == "C1" for i in items)


async def test_a_question_naming_no_item_gets_no_action_item_from_elsewhere(
    db, redactor, embedder
) -> None:
    """ "Who owns the feed-api lock?" names no follow-up: an action item is no owner of a
    service, and is shown only if the floor keeps it on its own."""
    recall = await _two_incidents(db, redactor, embedder)
    with_item = await recall.relevant(ELSEWHERE, "who owns the single-rebuilder lock work?")
    without = await recall.relevant(ELSEWHERE, "who owns the single-rebuilder lock?")
    assert ITEM in [i.text for i in with_item]
    assert ITEM not in [i.text for i in without]


async def test_a_personal_item_the_store_returned_is_never_shown_from_elsewhere(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the incident's statements to include personal notes, none is shown."""
    recall = await _two_incidents(db, redactor, embedder)
    await Notes(db, redactor, embedder).save(
        ctx("C1", scope="user"), "AI-9: my own single-rebuilder lock work notes", "action"
    )
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    items = await recall.relevant(ELSEWHERE, "Who owns the single-rebuilder lock work now?")
    assert all(i.scope != "user" for i in items)


async def test_the_postmortem_of_an_incident_named_by_its_title_is_an_item_asked_elsewhere(
    db, redactor, embedder
) -> None:
    """ "Who owns the postmortem for the kafka lag incident?": the title's words name the
    incident, the postmortem is the item, so its owner line is enough."""
    incidents, notes = Incidents(db, redactor=redactor), Notes(db, redactor, embedder)
    kafka = await incidents.open(ctx("C3"), title="checkout kafka lag", channel_id="C3")
    for text, kind in [
        ("lag climbing since ~09:40, consumers processing 20 msg/s", "note"),
        ("so consumers blow past the poll interval -> rebalance storm", "root_cause"),
        ("status: resolved 10:31.", "status"),
        ("postmortem owner: olu", "action"),
    ]:
        await notes.save(ctx("C3"), text, kind, incident=kafka.id)  # type: ignore[arg-type]
    await incidents.open(ctx("C4"), title="checkout slow", channel_id="C4")
    asker = Requester.full_member("T1/U9", "T1", channel_id="C4")
    items = await Recall(db, embedder).relevant(
        asker, "who owns the postmortem for the kafka lag incident?"
    )
    assert items and items[0].text == "postmortem owner: olu"
