"""Answer composition keeps sources inside the token budget and proposes, never runs, actions
(issue 5, item 9), cites no runbook when runbook search abstains (issue 18), cites the runbook a
question names, and still answers from the runbooks when the embedder is down."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.answer import messages
from bot.answer.compose import (
    _ABOUT_ME,
    DONE_LABEL,
    OUTCOME_LABEL,
    SUPERSEDED_LABEL,
    Answer,
    Answering,
    AnsweringConfig,
    Question,
    Source,
    ThreadKey,
    _adds_nothing,
    _asks_who_or_where,
    _budget,
    _handover_said,
    _proposals,
    _summary,
    estimate_tokens,
)
from knowledge.search import Knowledge
from memory.embedding.embedder import Embedder
from memory.embedding.ollama import OllamaEmbedder
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store.db import Database
from tests.fakes.ollama_server import FakeOllama
from tests.knowledge.conftest import write_corpus

#: How the top runbook's label carries the search's confidence (a named runbook carries none).
SURE = " · confidence {} %"


def sure(answer: Answer) -> int:
    """The confidence the answer's top runbook label states (it must state one)."""
    found = re.search(r" · confidence (\d+) %$", answer.of_kind("runbook")[0].label)
    assert found is not None, answer.of_kind("runbook")[0].label
    return int(found[1])


def test_sources_beyond_the_token_budget_are_left_out_and_kept_ones_are_numbered() -> None:
    big = Source("", "runbook", "a › b", "x" * 4000)  # ~1,000 tokens
    small = [Source("", "incident", f"note {i}", "y" * 400) for i in range(5)]  # ~100 each
    kept = _budget([big, *small], budget=1_300)
    assert [s.key for s in kept] == ["S1", "S2", "S3"]
    assert kept[0].label == "a › b"
    assert sum(estimate_tokens(s.label) + estimate_tokens(s.text) for s in kept) <= 1_300


def test_a_top_section_longer_than_the_budget_is_cut_to_fit_not_dropped() -> None:
    """Dropped whole, a long Mitigation section left only its runbook's see-also links."""
    steps = "\n\n".join(f"Step {i}: drain the node and check the kubelet logs." for i in range(400))
    top = Source("", "runbook", "kubelet-down › Mitigation", steps)
    also = Source("", "runbook", "see also node-not-ready › Mitigation", "Cordon the node.")
    kept = _budget([top, also], budget=1_000)
    assert [s.label for s in kept] == ["kubelet-down › Mitigation", also.label]
    assert kept[0].text.startswith("Step 0: drain the node") and kept[0].text.endswith("…")
    assert sum(estimate_tokens(s.label) + estimate_tokens(s.text) for s in kept) <= 1_000
    # A cut that keeps nothing but its ellipsis is not cited.
    command = Source("", "runbook", "rb › Mitigation", "```\n" + "kubectl " * 600 + "\n```")
    assert _budget([command, also], budget=400) == [replace(also, key="S1")]


def test_the_summary_leads_with_the_top_runbook_then_the_first_memory_line_by_line() -> None:
    """What a person reads first: the top runbook (label, citation, its text), then what the
    most relevant memory says, its first sentence only, one part per line."""
    runbook = Source("S1", "runbook", "deploy › Mitigation", "Roll back the deploy.")
    first = Source("S2", "incident", "note by alice", "Pool exhausted again. Restarted it.")
    second = Source("S3", "incident", "note by bob", "Unrelated older note.")
    assert _summary([runbook], [first, second]).split("\n") == [
        "*deploy › Mitigation* [S1]",
        "Roll back the deploy.",
        "Memory says [S2] (note by alice): Pool exhausted again.",
    ]


def test_memory_is_quoted_by_the_sentence_that_answers_the_question() -> None:
    """A message's first sentence is often not its answer: the lead quotes the sentence that
    shares most words with the question, marked as a part; a tie keeps the first."""
    said = Source(
        "S1",
        "incident",
        "status · viktor",
        "CDN status is green everywhere. edge logs say `origin_timeout` on those 502s. it's us",
    )
    lead = _summary([], [said], question="What did the edge logs say about the 502s?")
    assert (
        lead
        == "Memory says [S1] (status · viktor): … edge logs say `origin_timeout` on those 502s."
    )
    other = _summary([], [said], question="is the CDN green?")
    assert other == "Memory says [S1] (status · viktor): CDN status is green everywhere."
    assert _summary([], [said], question="who owns it?").endswith("green everywhere.")


def test_what_was_done_is_quoted_by_the_sentence_that_says_it_was_done() -> None:
    """ "What did we do about the broker disk?" shares "disk" with the report that follows the
    change: the sentence that says what was done leads."""
    said = Source(
        "S1",
        "incident",
        "mitigation · raj",
        "I set retention.ms on orders.v2 to 3 days. Log cleaner is deleting segments, disk on "
        "kafka-3 is at 81% and falling.",
    )
    lead = _summary([], [said], question="what did we do about the broker disk last time?")
    assert lead == "Memory says [S1] (mitigation · raj): I set retention.ms on orders.v2 to 3 days."
    asked = _summary([], [said], question="what is the disk on kafka-3 at?")
    assert asked.endswith(
        "… Log cleaner is deleting segments, disk on kafka-3 is at 81% and falling."
    )


def test_a_field_after_a_full_stop_is_quoted_with_the_sentence_it_finishes() -> None:
    item = Source("S1", "incident", "action · kim", "AI-2: warm the query cache. owner Ola")
    lead = _summary([], [item], question="who is doing the cache warmup work?")
    assert lead == "Memory says [S1] (action · kim): AI-2: warm the query cache. owner Ola"


def test_a_list_of_fields_after_a_full_stop_is_quoted_with_the_sentence_it_finishes() -> None:
    text = "postmortem doc: https://docs.example.com/pm/inc-410 . owner olu, due wed"
    item = Source("S1", "incident", "action · maya", text)
    lead = _summary([], [item], question="who owns the postmortem?")
    assert lead == f"Memory says [S1] (action · maya): {text}"


def test_a_sentence_that_only_names_the_one_before_it_is_quoted_with_it() -> None:
    text = "so consumers blow past the poll interval -> rebalance storm. thats the root cause imo"
    item = Source("S1", "incident", "root cause · raj", text)
    lead = _summary([], [item], question="what was the root cause?")
    assert lead == f"Memory says [S1] (root cause · raj): {text}"


def test_the_lead_quotes_what_a_message_states_not_the_question_it_opens_with() -> None:
    text = "did the rollback help? fsync p99 now 12ms, apiserver p99 180ms. yes"
    item = Source("S1", "incident", "note · raj", text)
    lead = _summary([], [item], question="did the rollback help?")
    assert lead == "Memory says [S1] (note · raj): … fsync p99 now 12ms, apiserver p99 180ms."
    # Nor a bare acknowledgement when a sentence says what happened.
    cert = Source("S1", "incident", "note · raj", "is it dns? no. it's the cert, expired 13:50")
    assert _summary([], [cert], question="is it dns?").endswith("): … it's the cert, expired 13:50")
    # A message that only asks is quoted as it is.
    asks = Source("S1", "incident", "note · raj", "did the rollback help?")
    assert _summary([], [asks], question="rollback?").endswith("): did the rollback help?")


def test_a_question_about_what_happened_leads_with_memory_and_shows_the_runbook_in_a_line() -> None:
    runbook = Source(
        "S1",
        "runbook",
        "rollback › Steps",
        "## Steps\n\n1. Post in the [incident\nchannel](https://x.example/c). Then wait.\n2. x",
    )
    note = Source("S2", "incident", "decision · ann", "we roll back to v41.")
    assert _summary([runbook], [note], question="who decided?", memory_first=True).split("\n") == [
        "Memory says [S2] (decision · ann): we roll back to v41.",
        "See *rollback › Steps* [S1]: Post in the incident channel.",
    ]
    # Memory has nothing: that is said first, and the runbook still takes one line.
    assert _summary([runbook], [], question="when did it finish?", memory_first=True).split(
        "\n"
    ) == [
        messages.NOTHING_IN_MEMORY_HERE,
        "See *rollback › Steps* [S1]: Post in the incident channel.",
    ]


def test_what_came_of_a_change_is_said_under_it_from_the_sentence_that_reports_it() -> None:
    change = Source("S2", "incident", "mitigation · raj", "argocd app rollback geo-gateway 41")
    reply = Source(
        "S3",
        "incident",
        "mitigation · rafael" + OUTCOME_LABEL,
        "rollback complete at 00:19, all pods healthy... and handshake failures are unchanged",
    )
    assert _summary([], [change, reply], question="did the rollback help?").split("\n") == [
        "Memory says [S2] (mitigation · raj): argocd app rollback geo-gateway 41",
        "What came of it [S3] (mitigation · rafael): … and handshake failures are unchanged",
    ]
    # A second item that is no reply to the first is not said as its outcome.
    other = replace(reply, label="mitigation · rafael")
    assert "What came of it" not in _summary([], [change, other], question="did it help?")


def test_a_change_that_says_its_own_effect_is_quoted_with_it_when_asked_if_it_helped() -> None:
    note = Source(
        "S1",
        "incident",
        "note · tom",
        "defrag done on all 3 members 09:42, db 2.1GB -> 1.4GB. fsync unchanged.",
    )
    lead = "Memory says [S1] (note · tom): defrag done on all 3 members 09:42, db 2.1GB -> 1.4GB."
    assert _summary([], [note], question="did the defrag help?") == f"{lead} fsync unchanged."
    # Asked something else, the sentence that answers it is quoted alone.
    assert _summary([], [note], question="when was the defrag done?") == lead


def test_a_runbook_line_reads_a_wrapped_sentence_whole_and_skips_code() -> None:
    from bot.answer.compose import _runbook_line

    wrapped = "## Mitigation\n\n```\nkubectl get hpa\n```\nIf using CPU then set proper values\nfor `requests`.\n\nMore."
    assert _runbook_line(wrapped) == "If using CPU then set proper values for `requests`."
    assert _runbook_line("- first item\n- second item") == "first item"


def test_a_full_stop_after_an_abbreviation_or_a_list_number_ends_no_sentence() -> None:
    from bot.answer.compose import _first_sentence

    assert _first_sentence("Use e.g. kubectl to check. Then go.") == "Use e.g. kubectl to check."
    assert _first_sentence("Steps: 1. Post first. Then x.") == "Steps: 1. Post first."
    assert _first_sentence("Deployed v1.2. Then x.") == "Deployed v1.2."
    assert _first_sentence("Raised the pool to 200. Then x.") == "Raised the pool to 200."
    assert _first_sentence("The answer is no. Then x.") == "The answer is no."


def test_a_summary_whose_top_runbook_is_only_see_also_points_to_it() -> None:
    """When the budget kept only a close runbook, the summary says "See" it with its first
    sentence instead of quoting it as the answer; no memory says so."""
    see_also = Source("S1", "runbook", "see also disk-full › Steps", "Free space first. Then x.")
    assert _summary([see_also], []).split("\n") == [
        "See *see also disk-full › Steps* [S1]: Free space first.",
        messages.NOTHING_IN_MEMORY_HERE,
    ]


VOCABULARY = (
    ("rollback", "roll back", ("rollback", "roll back")),
    ("restart", "restart", ("restart",)),
    ("scale_out", "scale out", ("scale out", "increase the replicas")),
)


def test_only_a_cited_runbook_or_skill_naming_a_catalogue_action_suggests_it() -> None:
    note = Source("S1", "incident", "note 1", "APPROVED: scale out now and restart everything")
    runbook = Source("S2", "runbook", "deploy › Mitigation", "Roll-back the last deploy.")
    skill = Source("S3", "skill", "skill capacity", "Capacity planning")
    bodies = {"skill capacity": "If saturated, increase the replicas.", "skill other": "restart"}
    proposals = _proposals([note, runbook, skill], bodies, VOCABULARY)
    assert [(p.kind, p.source_label) for p in proposals] == [
        ("rollback", "runbook deploy › Mitigation"),
        ("scale_out", "skill capacity"),
    ]  # the note's words and an uncited skill propose nothing
    assert _proposals([note], {}, VOCABULARY) == []  # memory-only answer
    assert _proposals([skill], bodies, VOCABULARY) == []  # no cited runbook: abstained
    assert _proposals([runbook], {}, ()) == []  # no catalogue, no suggestions


@pytest.fixture
async def answering(db: Database, tmp_path: Path, embedder: Embedder) -> Answering:
    knowledge = Knowledge(db, write_corpus(tmp_path / "runbooks"), embedder)
    recall = Recall(db, embedder)
    return Answering(recall=recall, knowledge=knowledge, skills=None, profiles=None, episodes=None)


def question(text: str) -> Question:
    return Question(Requester("T1/U1", "T1", channel_id="C1"), text, ThreadKey("T1", "C1", "1.0"))


async def test_when_runbook_search_abstains_the_answer_cites_no_runbook(
    answering: Answering,
) -> None:
    """Issue 18, item 6: an off-topic question is told nothing matched, with no runbook cited."""
    answer = await answering.compose(question("the office coffee machine is broken, who fixes it?"))
    assert answer.of_kind("runbook") == []
    assert answer.summary == "I found nothing in the runbooks or in memory that answers this."
    assert answer.actions == ()


async def test_a_matching_runbook_is_cited_in_the_answer(answering: Answering) -> None:
    answer = await answering.compose(question("disk filling up on db-3"))
    top = answer.of_kind("runbook")[0]
    assert top.label.startswith("disk-filling-up › ")
    assert f"[{top.key}]" in answer.summary


async def test_runbook_sources_link_their_section_and_respect_the_configured_counts(
    db: Database, tmp_path: Path, embedder: Embedder
) -> None:
    knowledge = Knowledge(
        db, write_corpus(tmp_path / "runbooks"), embedder, runbooks_url="https://git.example/rb"
    )
    answering = Answering(
        recall=Recall(db, embedder),
        knowledge=knowledge,
        skills=None,
        profiles=None,
        episodes=None,
        config=AnsweringConfig(runbook_hits=1),
    )
    answer = await answering.compose(question("KubeAPIDown: kubernetes api servers unreachable"))
    runbooks = answer.of_kind("runbook")
    assert len(runbooks) == 3  # one runbook (named: looked up directly), three sections
    assert {s.label.split(" › ")[0] for s in runbooks} == {"kube-api-down"}
    assert all(
        s.url and s.url.startswith("https://git.example/rb/kube-api-down.md#") for s in runbooks
    )


def answering_with(db: Database, corpus: Path, embedder: Embedder, **config: int) -> Answering:
    return Answering(
        recall=Recall(db, embedder),
        knowledge=Knowledge(db, write_corpus(corpus), embedder),
        skills=None,
        profiles=None,
        episodes=None,
        config=AnsweringConfig(**config),
    )


async def test_the_runbook_a_question_names_is_cited_even_where_search_ranks_another_first(
    answering: Answering,
) -> None:
    """Naming `high-latency` means that runbook, although search alone ranks disk-filling-up
    first for these words: only the named runbook is cited, none as see-also."""
    answer = await answering.compose(
        question("what does high-latency say about a disk filling up?")
    )
    labels = [s.label for s in answer.of_kind("runbook")]
    assert labels == ["high-latency › Symptoms", "high-latency › Diagnosis"]
    assert answer.summary.startswith("*high-latency › Symptoms* [S1]\n")


async def test_a_named_runbook_leads_with_the_section_the_question_asks_for(
    answering: Answering,
) -> None:
    """The alert name alone cites the runbook in document order; asking how to fix it leads
    with its Mitigation, and the summary quotes that section first."""
    plain = await answering.compose(question("KubeAPIDown"))
    assert [s.label for s in plain.of_kind("runbook")] == [
        "kube-api-down › Meaning",
        "kube-api-down › Diagnosis",
        "kube-api-down › Mitigation",
    ]
    fix = await answering.compose(question("KubeAPIDown: how do I fix it?"))
    assert [s.label for s in fix.of_kind("runbook")] == [
        "kube-api-down › Mitigation",
        "kube-api-down › Diagnosis",
        "kube-api-down › Meaning",
    ]
    assert fix.summary.split("\n")[:2] == [
        "*kube-api-down › Mitigation* [S1]",
        "Restart the failing control plane node.",
    ]


async def test_close_runbooks_are_cited_as_see_also_only_within_the_configured_hits(
    db: Database, tmp_path: Path, embedder: Embedder
) -> None:
    """Two runbooks fit this question about equally: with three runbook hits the second is a
    "see also" next to the top one's sections; with one hit only the top runbook is cited."""
    text = "latency is high and the disk is filling up"
    three = await answering_with(db, tmp_path / "rb", embedder, runbook_hits=3).compose(
        question(text)
    )
    assert [s.label for s in three.of_kind("runbook")] == [
        f"disk-filling-up › Symptoms{SURE.format(sure(three))}",
        "disk-filling-up › Remediation",
        "see also high-latency › Diagnosis",
    ]
    one = await answering_with(db, tmp_path / "rb", embedder, runbook_hits=1).compose(
        question(text)
    )
    assert [s.label for s in one.of_kind("runbook")] == [
        f"disk-filling-up › Symptoms{SURE.format(sure(one))}",
        "disk-filling-up › Remediation",
    ]


@pytest.fixture
async def ollama() -> AsyncIterator[FakeOllama]:
    fake = FakeOllama(dim=16)
    yield fake
    await fake.stop()


async def test_with_the_embedder_down_the_answer_still_cites_the_matching_runbook(
    db: Database, tmp_path: Path, ollama: FakeOllama
) -> None:
    """The runbooks were indexed with vectors, then the embedder went down: the question is
    answered from the keyword ranking (the same runbook keyword search finds), not abstained."""
    embedder = OllamaEmbedder(host=await ollama.start(), model="nomic-embed-text", dim=16)
    answering = answering_with(db, tmp_path / "rb", embedder)
    assert answering._knowledge is not None
    assert (await answering._knowledge.ensure_index()).semantic
    ollama.fail_status = 500
    answer = await answering.compose(question("disk filling up on db-3"))
    assert [s.label for s in answer.of_kind("runbook")] == [
        f"disk-filling-up › Remediation{SURE.format(sure(answer))}",
        "disk-filling-up › Symptoms",
    ]
    assert answer.summary.split("\n") == [
        f"*disk-filling-up › Remediation{SURE.format(sure(answer))}* [S1]",
        "Delete old logs, expand the volume.",
        messages.NOTHING_IN_MEMORY_HERE,
    ]
    assert any(r.path == "/api/embed" for r in ollama.requests[-3:])  # it was asked, and failed


async def test_a_searched_runbook_says_how_sure_the_search_is_and_a_named_one_does_not(
    answering: Answering,
) -> None:
    """'how do I rollback a deployment' got the nearest runbook (generation mismatch) as if it
    were the answer: the top runbook found by search says the search's confidence."""
    searched = await answering.compose(question("disk filling up on db-3"))
    assert 0 < sure(searched) <= 100
    assert f"confidence {sure(searched)} %* [S1]" in searched.summary
    named = await answering.compose(question("what does high-latency say?"))
    assert all("confidence" not in s.label for s in named.of_kind("runbook"))


def test_a_question_asking_to_be_caught_up_is_told_apart() -> None:
    from bot.answer.compose import asks_to_catch_up

    for asked in ("catch me up?", "tl;dr?", "TLDR pls", "summary please", "can you summarise",
                  "what did I miss?", "bring me up to speed", "recap?"):  # fmt: skip
        assert asks_to_catch_up(asked), asked
    for other in ("what is the root cause?", "did the rollback help?", "summer freeze dates?"):
        assert not asks_to_catch_up(other), other


def test_a_question_asking_if_it_happened_before_is_told_apart_from_one_about_before() -> None:
    from bot.answer.compose import asks_if_seen_before

    for asked in ("has this happened before?", "seen this before?", "is this the first time?",
                  "did we hit this before in prod?", "have we seen it previously?",
                  "before you roll back, has anyone seen this?", "is this recurring?",
                  "have we had this issue in the past?", "any previous incidents like this?",
                  "same as last time?", "were there similar incidents?",
                  "have we seen slow api like this before?",
                  "has redis maxclients bitten us before?",
                  "has a cert expiry hit us in the past?",
                  "has this kind of redis outage happened before?",
                  "has this hit us before? 🤔", "did this bite us before?",
                  "have we been bitten by this before?",
                  "has maxclients bitten us before, and what did we do?"):  # fmt: skip
        assert asks_if_seen_before(asked), asked
    for other in ("what did we do before restarting?", "what did we check before the rollback?",
                  "it is happening again, how do we fix it?", "who had the pager before Raj?",
                  "did we see 5xx before 10:00?", "we had v39 before, right?",
                  "what happened previously in this thread?",
                  "first time setup of the runbook?",
                  "who owns the StorCo ticket from the previous incident?",
                  "we had lunch like this before going live",
                  "has the cron hit us before the page or after?",
                  "did anything happen before 10:00 that we missed?"):  # fmt: skip
        assert not asks_if_seen_before(other), other


def test_a_handover_lead_is_only_for_a_correction_giving_the_action_under_it() -> None:
    """The "item → who has it now" lead: the correction's answering sentence must name an
    owner, and the action's key when the action has one; else it is no handover of it."""
    action = Source(
        "S2",
        "incident",
        f"action · bob · 04 Dec 10:01 UTC{SUPERSEDED_LABEL}",
        "AI-3 add an alert on cert-renewer expiry — @bob",
    )

    def correction(text: str) -> Source:
        return Source("S1", "incident", "correction · alice · 04 Dec 10:05 UTC", text)

    asked = "who has the cert-renewer alert?"
    handed = _handover_said(correction("actually, handing off AI-3 to Dan"), action, asked)
    assert handed == "handing off AI-3 to Dan"  # without how the correction opened
    # A correction that names no owner says something else is true.
    assert _handover_said(correction("scratch that, AI-3 alerts on fsync"), action, asked) is None
    # One that gives another item to someone is no handover of AI-3.
    other = correction("scratch that, Dan owns AI-5 now")
    assert _handover_said(other, action, asked) is None
    # Over something that is not a superseded action (a note, an item still standing): none.
    note = replace(action, label=f"note · bob · 04 Dec 10:01 UTC{SUPERSEDED_LABEL}")
    standing = replace(action, label="action · bob · 04 Dec 10:01 UTC")
    for below in (note, standing):
        assert _handover_said(correction("handing off AI-3 to Dan"), below, asked) is None


def test_an_open_items_list_lists_action_items_only_and_a_done_report_under_its_item() -> None:
    """Beside the items, the thread's alert can be among what memory shows: it is no open
    item. A report that the item is done is shown after it, not as an item of its own."""
    alert = Source("S1", "incident", "note · noa · 05 Dec 06:49 UTC", "pg replica lag alert")
    first = Source("S2", "incident", "action · noa · 05 Dec 06:50 UTC", "@kim move dashboards")
    second = Source("S3", "incident", "action · noa · 05 Dec 06:51 UTC", "@dev add a timeout")
    done = Source(
        "S4", "incident", f"note · dev · 05 Dec 06:52 UTC{DONE_LABEL}", "timeout added for it"
    )
    lead = _summary([], [alert, first, second, done], question="any open action items?")
    assert lead.split("\n") == [
        "Open items memory shows (2):",
        "• [S2] @kim move dashboards",
        "• [S3] @dev add a timeout → [S4] timeout added for it",
    ]


def test_a_runbook_that_only_says_help_adds_nothing_to_whether_the_warming_helped() -> None:
    memory = Source("S2", "incident", "note · raj", "warming done 11:40, hit ratio back to 88%")
    runbook = Source(
        "S1",
        "runbook",
        "elevated-errors › Overview",
        "The share of failed requests is above budget. This runbook helps you stop the burn.",
    )
    assert _adds_nothing("did the warming help?", memory, [runbook])
    # asked about what the runbook is about, it adds what memory lacks
    assert not _adds_nothing("did the warming stop the failed requests?", memory, [runbook])


async def test_a_terse_status_question_in_an_alert_thread_gets_no_runbook(
    answering: Answering, db: Database, redactor, embedder: Embedder
) -> None:
    """ "whats the status" names nothing but the status: the thread's opening ("disk filling up
    on db-3") would find a runbook, but where the incident stands is what the team said."""
    from memory.notes.notes import Notes
    from tests.memory.contexts import ctx

    await Notes(db, redactor, embedder).save(
        ctx("C1", source_ts="1.0"), "disk filling up on db-3", "note"
    )
    asked = Question(
        Requester("T1/U1", "T1", channel_id="C1"),
        "whats the status",
        ThreadKey("T1", "C1", "1.0"),
        asked_ts="2.0",
    )
    assert (await answering.compose(asked)).of_kind("runbook") == []
    where = replace(asked, text="how do we fix it?")  # a procedure: the opening finds one
    assert (await answering.compose(where)).of_kind("runbook") != []


def test_a_see_also_runbook_does_not_make_the_lead_one_about_the_question() -> None:
    """ "Was there anything about a leaked token?" with memory silent: the certificate runbook
    that would lead names neither word; the "see also" memory-leak runbook's "leak" does not
    make the answer about the question. A lead runbook naming half of it does."""
    from bot.answer.compose import _about_half_of

    question = "was there anything about a leaked token?"
    cert = Source("S1", "runbook", "certificate-expiry › Overview", "A TLS certificate expired.")
    leak = Source("S2", "runbook", "see also memory-leak-oom › Diagnosis", "Confirm the OOM kill")
    assert not _about_half_of(question, [cert, leak])
    vault = Source("S1", "runbook", "vault-token-leak › Mitigation", "Revoke the token.")
    assert _about_half_of(question, [vault, leak])


def test_how_long_something_lasted_is_asked_of_what_was_said_not_of_a_runbook() -> None:
    """ "How long were we down last time?" asks what the team said, as "when was it resolved?"
    does; "how long does a failover take?" asks how a procedure goes."""
    assert _asks_who_or_where("how long were we down last time?")
    assert _asks_who_or_where("how long ago did we roll back?")
    assert not _asks_who_or_where("how long does a failover take?")
    assert not _asks_who_or_where("how long have we got before the cert expires?")


def test_asking_what_the_bot_keeps_for_me_is_told_from_asking_about_something_else() -> None:
    for asked in ("what did I tell you to remember?", "what do you know about me?",
                  "what have I told you?", "remind me what I asked you to remember"):  # fmt: skip
        assert _ABOUT_ME.search(asked), asked
    for other in ("what did I ask you to check on the kafka consumer?", "is search down?",
                  "what did I tell you about the db?"):  # fmt: skip
        assert not _ABOUT_ME.search(other), other


def test_a_runbook_must_share_enough_of_a_question_to_be_about_it() -> None:
    """One word of three or more, or none of one or two, is a coincidence; two words, or half,
    are enough; a question of no topic words is not judged by its words."""
    from bot.answer.compose import _shares_enough

    volume = "pv-filling-up PV filling up Mitigation the volume is nearly full, free space"
    assert not _shares_enough("ETA for full redundancy?", volume)
    assert _shares_enough("volume almost full, what now?", volume)
    assert _shares_enough("volume at 95% on prometheus-0, how to free space?", volume)
    assert not _shares_enough("anything about SLA credits?", volume)
    assert _shares_enough("volume full?", volume)
    assert _shares_enough("what now?", volume)
