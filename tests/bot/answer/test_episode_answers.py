"""Roll-ups in answers: one that answers the question is memory (the answer never says memory
had nothing above it); one that only shares a word with the question is not shown."""

from __future__ import annotations

from bot.answer import messages
from bot.answer.compose import Answer, Answering, Question, ThreadKey
from memory.embedding.embedder import Embedder
from memory.episodes.episodes import Episodes
from memory.recall.recall import Recall
from memory.redaction.redactor import Redactor
from memory.scopes import Requester
from memory.store.db import Database
from memory.threads import Threads
from tests.memory.contexts import ALICE, BOB, ctx

ROOT = "1700000000.000100"
ASKER = Requester("T1/UASK", "T1", channel_id="CNEW", member_channel_ids=frozenset({"COLD"}))


async def _answering(db: Database, redactor: Redactor, embedder: Embedder) -> Answering:
    threads = Threads(db, redactor)  # no notes: only the roll-up can answer
    for i, (author, text) in enumerate(
        [
            (ALICE, "billing-api pods throw HikariPool connection timeouts"),
            (BOB, "root cause: recon-worker held 96 postgres sessions idle in transaction"),
            (ALICE, "mitigation: paused recon-worker, errors stopped"),
        ]
    ):
        await threads.capture(
            ctx("COLD", author=author), ts=f"170000000{i}.000100", thread_ts=ROOT, text=text
        )
    episodes = Episodes(db, embedder)
    assert await episodes.roll_up("T1", "COLD", ROOT) is not None
    return Answering(
        recall=Recall(db, embedder), knowledge=None, skills=None, profiles=None, episodes=episodes
    )


async def _asked(db: Database, redactor: Redactor, embedder: Embedder, question: str) -> Answer:
    """The answer to `question`, asked from a new incident channel after the roll-up."""
    answering = await _answering(db, redactor, embedder)
    return await answering.compose(Question(ASKER, question, ThreadKey("T1", "CNEW", "1")))


async def test_an_answer_from_a_roll_up_leads_with_it(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    answer = await _asked(db, redactor, embedder, "why did billing-api throw Hikari timeouts?")
    assert [s.kind for s in answer.sources] == ["episode"]
    assert answer.summary.startswith("Memory says [S1] (roll-up")
    assert messages.NOTHING_FOUND not in answer.summary


async def test_a_roll_up_sharing_one_word_with_the_question_is_not_shown(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    answer = await _asked(db, redactor, embedder, "who leaked the card numbers into the pods?")
    assert answer.sources == ()
    assert answer.summary == messages.NOTHING_FOUND


async def test_a_long_roll_up_title_is_cut_after_a_word(
    db: Database, redactor: Redactor, embedder: Embedder
) -> None:
    """The label names the roll-up by its title: a long one ends on a whole word and says it
    was cut, never "… users logged out m"."""
    opening = "sessions are getting dropped on checkout, users logged out mid-payment again"
    threads = Threads(db, redactor)
    for i, text in enumerate([opening, "root cause: cart-svc writes carts without a TTL"]):
        await threads.capture(
            ctx("COLD", author=ALICE), ts=f"170000000{i}.000100", thread_ts=ROOT, text=text
        )
    episodes = Episodes(db, embedder)
    assert await episodes.roll_up("T1", "COLD", ROOT) is not None
    answering = Answering(
        recall=Recall(db, embedder), knowledge=None, skills=None, profiles=None, episodes=episodes
    )
    question = Question(
        ASKER, "why were sessions dropped on checkout?", ThreadKey("T1", "CNEW", "1")
    )
    (source,) = (await answering.compose(question)).sources
    title = source.label.split(" · ", 2)[2]
    assert title.endswith("…") and len(title) <= 60, title
    assert opening.startswith(title[:-1]) and opening[len(title) - 1] == " ", title
