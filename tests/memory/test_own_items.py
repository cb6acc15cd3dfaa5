"""The asker's own action items: "what do I owe here?" reads which open items name the asker."""

from __future__ import annotations

import pytest

from memory.notes.notes import Notes
from memory.recall.own_items import asks_own_items, owned_by
from memory.scopes import Requester
from memory.store import notes as note_store
from tests.memory.contexts import ctx, incident_channel, store_returning_personal_rows

KIM = Requester.full_member("T1/UKIM", "T1", channel_id="C1", name="kim")


@pytest.mark.parametrize(
    "asked",
    [
        "what do I owe here?",
        "anything on me?",
        "what are my action items?",
        "what's on me",
        "am I on the hook for anything?",
        "do I own anything?",
        "whats on me?",
    ],
)
def test_questions_for_the_askers_own_items(asked: str) -> None:
    assert asks_own_items(asked)


@pytest.mark.parametrize(
    "asked",
    [
        "what do I do now?",
        "who owns the postmortem?",
        "what did I say about the cache?",
        "what do I have to do to free disk on db-3?",  # a procedure
        "do I have any access to the prod db?",
        "my follow-up: how do we free disk space?",
    ],
)
def test_other_questions_are_not_about_the_askers_items(asked: str) -> None:
    assert not asks_own_items(asked)


def test_an_item_is_owned_by_whom_it_names() -> None:
    asked = "@kim can you add a TTL to cart keys before re-release? by friday"
    assert owned_by(asked, "dev", "kim") and not owned_by(asked, "dev", "lena")
    assert owned_by("action item: lena to set maxmemory-policy", "maya", "lena")
    assert not owned_by("action item: lena to set maxmemory-policy", "maya", "kim")
    assert owned_by("I'll take the postmortem", "kim", "Kim")  # said by the asker
    assert not owned_by("action item: switch to volatile-lru", "maya", "kim")
    assert not owned_by("@kim can you add a TTL? by friday", "dev", "")  # no name: nobody's
    assert owned_by("AI-7: @kim to rotate the password", "dev", "kim")  # after its key
    assert owned_by("AI-2: @joe add an alert on coredns restarts", "ivy", "joe")
    assert not owned_by("AI-2: @joe add an alert on coredns restarts", "ivy", "ivy")
    # A severity or a status code before a mention is no item key.
    assert not owned_by("SEV-1: @joe is IC", "ivy", "joe")
    assert not owned_by("HTTP-503: @kai seeing these", "ivy", "kai")
    # A list item signed with its owner, as stored (its list marker gone).
    assert owned_by("alert when any cert expires in < 14d — @ben", "ana", "ben")
    assert not owned_by("alert when any cert expires in < 14d — @ben", "ana", "kim")
    assert owned_by("alert when any cert expires in < 14d—@ben", "ana", "ben")  # no space
    # A real name of two words ("Kim Lee", no display name set) is one person, not any "Kim".
    asked_of_kim_lee = "@Kim Lee can you rotate the key by friday"
    assert owned_by(asked_of_kim_lee, "dev", "Kim Lee")
    assert not owned_by(asked_of_kim_lee, "dev", "Kim")
    assert owned_by("rotate the key — @Kim Lee", "dev", "Kim Lee")
    assert not owned_by("action item: @Kim Lee to rotate the key", "dev", "Kim")


async def _channel(db, redactor, embedder):  # type: ignore[no-untyped-def]
    return await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("@kim can you add a TTL to cart keys in cart-svc? by friday", "action"),
            ("action item: lena to set maxmemory-policy volatile-lru", "action"),
            ("decision: roll back cart-svc to 2.13.4", "decision"),
            ("AI-7 @kim to rotate the session db password by friday", "action"),
            ("AI-7 done, rotated and rolled out", "mitigation"),
        ],
        title="checkout logouts",
    )


async def test_what_do_i_owe_is_answered_by_the_askers_items_only(db, redactor, embedder) -> None:
    recall = await _channel(db, redactor, embedder)
    items = await recall.relevant(KIM, "what do I owe here?")
    assert [i.text for i in items] == ["@kim can you add a TTL to cart keys in cart-svc? by friday"]
    raj = Requester.full_member("T1/URAJ", "T1", channel_id="C1", name="raj")
    assert await recall.relevant(raj, "what do I owe here?") == []


async def test_a_personal_item_the_store_returned_is_never_listed(
    db, redactor, embedder, monkeypatch
) -> None:
    """Code layer: were the incident's statements query to return a personal note, it is
    dropped; the answer is posted in the thread."""
    recall = await _channel(db, redactor, embedder)
    mine = ctx("C1", scope="user", user="UKIM")
    await Notes(db, redactor, embedder).save(mine, "@kim to call the bank by friday", "action")
    monkeypatch.setattr(note_store, "incident_statements", await store_returning_personal_rows(db))
    assert await recall.relevant(KIM, "what do I owe here?") == []


async def test_an_item_handed_over_by_its_key_is_owed_by_who_took_it(
    db, redactor, embedder
) -> None:
    """ "AI-1: @kai revert the autopath config", then kai: "I'll hand AI-1 over to @joe, AI-3
    stays with me": joe owes AI-1 (shown with the handover) and AI-2, which named him first;
    kai still owes AI-3. A correction that hands nothing over moves nothing."""
    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [
            ("AI-1: @kai revert the autopath config in the Corefile", "action"),
            ("AI-2: @joe add an alert on coredns restarts", "action"),
            ("AI-3: @kai write the postmortem", "action"),
            ("I'll hand AI-1 over to @joe, AI-3 stays with me", "correction"),
            ("correction: AI-2 is about the coredns restarts alert, not the pods'", "correction"),
        ],
        title="coredns servfail",
    )
    joe = Requester.full_member("T1/UJOE", "T1", channel_id="C1", name="joe")
    owed = [i.text for i in await recall.relevant(joe, "what do I owe?")]
    assert "AI-2: @joe add an alert on coredns restarts" in owed, owed
    assert "AI-1: @kai revert the autopath config in the Corefile" in owed, owed
    assert not [t for t in owed if t.startswith("AI-3")], owed  # only the key handed over
    kai = Requester.full_member("T1/UKAI", "T1", channel_id="C1", name="kai")
    still = [i.text for i in await recall.relevant(kai, "what do I owe?")]
    assert still == ["AI-3: @kai write the postmortem"], still


def test_a_list_of_items_in_one_message_is_read_one_item_at_a_time() -> None:
    listed = "AI-1: @bo add the node-loss alert, AI-2: @cy revert the heap in chef"
    assert owned_by(listed, "ana", "bo") and owned_by(listed, "ana", "cy")
    assert not owned_by(listed, "ana", "ana")
    signed = "AI-1 revert the heap in chef (cy), AI-2 alert on node loss (owner: bo)"
    assert owned_by(signed, "ana", "cy") and owned_by(signed, "ana", "bo")
    assert not owned_by("AI-3 check latency (EU only)", "ana", "eu")


def test_hosts_are_no_item_keys_to_split_a_request_at() -> None:
    """ "node-1", "db-2" name hosts: a request naming two is one item, still the asker's."""
    assert owned_by("@kim can you restart node-1 and node-2 by friday", "ana", "kim")
    assert owned_by("@kim can you fail over db-1 to db-2 by friday", "ana", "kim")


async def test_an_item_of_a_list_said_done_is_no_longer_owed(db, redactor, embedder) -> None:
    listed = "action items: AI-1 revert the heap (bob), AI-2 alert on node loss (boss)"
    recall = await incident_channel(
        db,
        redactor,
        embedder,
        [(listed, "action"), ("AI-1 done, heap reverted", "mitigation")],
        title="search timeouts",
    )
    bob = Requester.full_member("T1/UBOB", "T1", channel_id="C1", name="bob")
    boss = Requester.full_member("T1/UBOSS", "T1", channel_id="C1", name="boss")
    assert await recall.relevant(bob, "what do I owe?") == []
    assert [i.text for i in await recall.relevant(boss, "what do I owe?")] == [listed]


@pytest.mark.parametrize(
    "listed",
    [
        "AI-1 foo (kim), AI-2 bar (bo)",
        "AI-1 foo (kim). AI-2 bar (bo)",
        "AI-1 foo (kim) AI-2 bar (bo)",
        "AI-1: foo (kim) | AI-2: bar (bo)",
        "  • AI-1 foo (kim)\n  • AI-2 bar (bo)",
        "1. AI-1 foo (kim)\n2. AI-2 bar (bo)",
    ],
)
def test_items_listed_in_one_message_each_have_their_owner(listed: str) -> None:
    assert owned_by(listed, "ana", "kim") and owned_by(listed, "ana", "bo")
    assert not owned_by(listed, "ana", "ana")


def test_an_item_that_mentions_a_done_one_is_still_owed() -> None:
    said = "AI-1 revert heap (bo), AI-2 verify AI-1 in staging (kim)"
    assert owned_by(said, "ana", "kim", done={"ai-1"})
    assert not owned_by(said, "ana", "bo", done={"ai-1"})


@pytest.mark.parametrize(
    "listed",
    [
        "follow-ups: move PDF rendering out (sam), alert on rebalance rate (felix), add a check (noor)",
        "follow-ups:\n• move PDF rendering out (sam)\n• alert on rebalance rate (felix)",
        "move PDF rendering out (sam); alert on rebalance rate (felix)",
    ],
)
def test_items_without_keys_each_signed_by_their_owner_are_read_one_at_a_time(
    listed: str,
) -> None:
    assert owned_by(listed, "noor", "sam") and owned_by(listed, "noor", "felix")
    assert not owned_by(listed, "noor", "dana")


def test_a_parenthesis_inside_one_item_splits_nothing() -> None:
    said = "bump the pool (see PR 12), then restart order-confirm (sam)"
    assert owned_by(said, "noor", "sam")
