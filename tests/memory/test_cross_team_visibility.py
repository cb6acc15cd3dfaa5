"""Two workspaces in one database: colliding channel and user ids never cross the team line."""

from __future__ import annotations

import pytest

from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.episodes.episodes import Episodes
from memory.incidents import Incidents
from memory.notes.notes import Notes
from memory.profiles.profiles import Profiles
from memory.recall.recall import Recall
from memory.redaction.redactor import Redactor
from memory.scopes import Requester
from memory.store.db import Database
from memory.subjects import Author, SlackIdentity
from memory.threads import Threads
from tests.memory.contexts import ctx

ROOT = "1764500000.000100"
T1_USER = Author.of(SlackIdentity("T1", "U1"), "ann")
GRID_USER = Author.of(SlackIdentity("T1", "W9", enterprise_id="E5"), "gus")


async def write_team_one(db: Database, redactor: Redactor, embedder, clock) -> None:
    """T1 writes channel memory in C9 (public and private flavours) and personal memory."""
    notes = Notes(db, redactor, embedder, clock=clock)
    await notes.save(ctx("C9", author=T1_USER), "pgbouncer pool exhausted on checkout")
    await notes.save(ctx(None, author=T1_USER, scope="user"), "pgbouncer is my favourite pool")
    await Incidents(db, clock, redactor=redactor).open(
        ctx("C9", author=T1_USER), title="checkout pgbouncer pool", channel_id="C9"
    )
    threads = Threads(db, redactor, clock)
    await threads.capture(
        ctx("C9", author=T1_USER), ts=ROOT, thread_ts=None, text="pgbouncer pool exhausted"
    )
    await Episodes(db, embedder, clock).roll_up("T1", "C9", ROOT)
    await Profiles(db, redactor, embedder, clock).add_fact(
        ctx("C9", author=T1_USER, scope="user", source_ts=ROOT), "I own the pgbouncer pool"
    )


@pytest.mark.parametrize(
    "asker",
    [
        Requester("T2/U1", "T2", channel_id="C9", member_channel_ids=frozenset({"C9"})),
        # Same subject id as T1's author (a Slack Connect person asking from T2's side).
        Requester("T1/U1", "T2", channel_id="C9", sees_workspace=False),
        Requester("T1/U1", "T2", channel_id="C9", member_channel_ids=frozenset({"C9"})),
    ],
)
async def test_other_team_with_colliding_ids_gets_nothing(
    db: Database,
    redactor: Redactor,
    embedder: OnnxMiniLmEmbedder,
    clock,
    asker: Requester,
) -> None:
    await write_team_one(db, redactor, embedder, clock)
    recall = Recall(db, embedder, clock=clock)
    for mode in ("keyword", "semantic", "hybrid"):
        assert await recall.recall(asker, "pgbouncer pool", mode=mode) == [], mode
    assert await recall.similar_incidents(asker, "pgbouncer pool") == []
    episodes = Episodes(db, embedder, clock)
    assert await episodes.search(asker, "pgbouncer pool") == []
    assert await episodes.recent(asker) == []
    assert await Incidents(db, clock).list_recent(asker) == []
    assert await Incidents(db, clock).get_visible(asker, "inc-1") is None
    assert await Profiles(db, redactor, embedder, clock).for_requester(asker) == []
    assert (
        await Threads(db, redactor, clock).visible_messages(asker, channel_id="C9", thread_ts=ROOT)
        == []
    )


async def test_same_team_still_sees_the_channel_and_the_owner_their_own(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    """The control case: the rows above are visible from inside T1, so the test can fail."""
    await write_team_one(db, redactor, embedder, clock)
    inside = Requester("T1/U1", "T1", channel_id="C9")
    texts = [i.text for i in await Recall(db, embedder, clock=clock).recall(inside, "pgbouncer")]
    assert sorted(texts) == [
        "pgbouncer is my favourite pool",
        "pgbouncer pool exhausted on checkout",
    ]
    assert len(await Episodes(db, embedder, clock).search(inside, "pgbouncer pool")) == 1
    assert [i.id for i in await Incidents(db, clock).list_recent(inside)] == ["inc-1"]
    facts = await Profiles(db, redactor, embedder, clock).for_requester(inside)
    assert [f.text for f in facts] == ["I own the pgbouncer pool"]


async def test_grid_member_sees_their_own_items_from_another_workspace_of_the_org(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    """Subjects are durable across one Enterprise Grid org (subjects.py); channels are not."""
    notes = Notes(db, redactor, embedder, clock=clock)
    await notes.save(ctx(None, author=GRID_USER, scope="user"), "kafka lag runbook is mine")
    await notes.save(ctx("C9", author=GRID_USER), "kafka lag in the T1 channel")
    recall = Recall(db, embedder, clock=clock)
    in_t2 = Requester(GRID_USER.subject_id, "T2", enterprise_id="E5", channel_id="C9")
    for mode in ("keyword", "semantic"):
        texts = [i.text for i in await recall.recall(in_t2, "kafka lag", mode=mode)]
        assert texts == ["kafka lag runbook is mine"], mode
    as_guest = Requester(
        GRID_USER.subject_id, "T2", enterprise_id="E5", channel_id="C7", sees_workspace=False
    )
    assert await recall.recall(as_guest, "kafka lag", mode="semantic") == []


async def test_outsider_in_a_dm_who_may_see_no_partition_gets_nothing(
    db: Database, redactor: Redactor, embedder: OnnxMiniLmEmbedder, clock
) -> None:
    """A Slack Connect person DMing from T2 sees no partition at all, and no error."""
    await write_team_one(db, redactor, embedder, clock)
    outsider = Requester("T1/U1", "T2", sees_workspace=False)
    assert await Recall(db, embedder, clock=clock).recall(outsider, "pgbouncer pool") == []
