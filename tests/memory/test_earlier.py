"""Questions about an earlier incident's statements are recognised by their wording."""

from __future__ import annotations

import pytest

from memory.recall.earlier import about_an_earlier_incident, asked_kinds


def test_the_kind_asked_for_and_the_pointer_back_are_read_from_the_wording() -> None:
    assert asked_kinds("what did we decide last time?") == ("decision",)
    assert asked_kinds("what was the root cause of the previous outage?") == ("root_cause",)
    assert asked_kinds("which action items came out of it?") == ("action",)
    assert asked_kinds("who is on call?") == ()
    # An owner asked for is an action item's; "why did it…" asks for the cause.
    assert asked_kinds("who owns it?") == ("action",)
    assert asked_kinds("who is doing the encoder fix?") == ("action",)
    assert asked_kinds("why did it fill up") == ("root_cause",)
    assert asked_kinds("why should we page on this?") == ()
    assert about_an_earlier_incident("what did we decide last time?")
    assert about_an_earlier_incident("root cause of the previous incident")
    # "before" alone is about this incident's own timeline, not an earlier incident.
    assert not about_an_earlier_incident("what did we decide before the rollback?")


def test_a_question_about_what_the_team_said_or_did_is_told_from_how_to_questions() -> None:
    from memory.recall.earlier import asks_what_happened

    for asked in (
        "who owns the CPU requests follow-up?",
        "when did the page fire?",
        "what did we decide?",
        "what was the root cause?",
        "what did we do last time?",
        "how did we fix it the previous time?",
        "who is on the db?",
        "how long did the rollback take?",
        "what caused the outage?",
        "what's the root cause?",
        "what happened?",
        "who's on call?",
        "who's handling comms?",
        "who approved the rollback?",
        "who restarted the db?",
        "did we restart the pods?",
        "what did bob say about the cache?",
        "what have we tried so far?",
        "how long has it been down?",
        "who said we can roll back?",
        "when did we decide we should fail over?",
        "which alert fired?",
        "which deploy broke checkout?",
    ):
        assert asks_what_happened(asked), asked
    for asked in (
        "the HPA is pinned at max replicas, what should we adjust?",
        "how do I fix a crashlooping pod?",
        "what does KubeHpaMaxedOut mean?",
        "what do we do now?",
        "the cert expires tomorrow, how do we fix it?",
        "is there a workaround?",
        "how do I mitigate CPU throttling?",
        "how long does a rollback take?",
        "who should I escalate to?",
        "when should I page the DBA?",
        "what should we do, it happened last time too",
        "what does this alert mean?",
        "how do I fix this issue?",
        "next steps?",
        "is there a runbook for pgbouncer?",
        "can we scale it out?",
        "pods crashlooping, what do we do?",
        "how do we roll back checkout?",
        "what is KubeHpaMaxedOut?",
        "which pods are crashlooping?",
        "which pods need a restart?",  # "need" ends in -ed without being past
        "what services need restarting?",
        "which feed is stale?",
        "what is expected here?",
        "which runbook covers disk full?",
    ):
        assert not asks_what_happened(asked), asked


def test_topic_words_drop_the_asking_span_not_the_same_word_elsewhere() -> None:
    from memory.recall.earlier import topic_words
    from memory.text import stems

    assert topic_words("what mitigations did we try last time?") == set()
    assert topic_words("how did we fix the resolver last time?") == stems("resolver")
    assert topic_words("what did we decide about the worker pool last time?") == stems(
        "worker pool"
    )
    # "what did we set X to?" asks for the value set: "set" is the asking verb.
    assert topic_words("what did we set the coredns memory limit to?") == stems(
        "coredns memory limit"
    )


def test_words_that_point_back_are_no_words_an_earlier_incidents_note_must_hold() -> None:
    from memory.recall.earlier import without_pointer_back
    from memory.recall.floor import coverage

    asked = "why did raising the cpu limit not help last time?"
    note = "bumped the cpu limit 2 -> 4 on search-api at 14:10"
    assert without_pointer_back(asked) == "why did raising the cpu limit not help ?"
    assert coverage(without_pointer_back(asked), note) > coverage(asked, note)
    assert without_pointer_back("what did the previous incident decide") == "what did the decide"


def test_which_thing_broke_it_asks_for_the_root_cause_about_its_subject() -> None:
    """ "Which version of cart-svc broke it?" wants the root cause (not the rollback decision
    that also names a version); "version" is what the answer is, cart-svc what it is about."""
    from memory.recall.earlier import topic_words

    for asked in (
        "which version of cart-svc broke it?",
        "what broke checkout?",
        "which deploy triggered the failover?",
        "which release caused the 500s?",
    ):
        assert asked_kinds(asked) == ("root_cause",), asked
    assert topic_words("which version of cart-svc broke it?") == {"cart", "servic"}  # svc
    assert topic_words("which deploy triggered the failover?") == {"failov"}
    assert asked_kinds("which release caused the outage last time?") == ("root_cause",)
    for asked in (
        "which config change broke the api-gw cert renewal?",
        "which deploy broke prod yesterday?",
        "what broke it again?",
        "which deploy broke it, do we know?",
    ):
        assert asked_kinds(asked) == ("root_cause",), asked
    # Said mid-question it is part of the story, not what is asked.
    assert asked_kinds("it broke after the deploy, what now?") == ()
    assert asked_kinds("did the restart trigger alerts?") == ()


def test_which_things_failed_or_who_acted_is_no_root_cause_question() -> None:
    """ "Which pods broke?" asks what failed, "who triggered the rollback?" asks for a person:
    neither wants the root cause note first."""
    for asked in (
        "which pods broke?",
        "who triggered the rollback?",
        "what broke?",
        "which broker broke first?",
    ):
        assert asked_kinds(asked) == (), asked


def test_the_root_cause_verb_reader_is_linear_on_long_whitespace() -> None:
    """A 50k-character mention of spaces after the verb is read in one pass, not re-tried per
    space (the lookahead it replaced took seconds)."""
    import time

    for text in ("which broke" + " " * 50_000 + "x y", "what " + "broke " * 10_000):
        started = time.perf_counter()
        asked_kinds(text)
        assert time.perf_counter() - started < 0.5


def test_a_verb_that_says_what_was_done_stays_a_topic_word() -> None:
    """ "When did we fail over last time?" is about failing over: only a verb that asks what
    was done ("what did we try?", "how did we fix …?") is the question's frame."""
    from memory.recall.earlier import topic_words

    assert topic_words("when did we fail over last time?") == {"fail"}
    assert topic_words("did we restart the pods?") == {"restart", "pod"}
    assert topic_words("what did we try?") == set()
    assert topic_words("what did we check last time?") == set()
    assert topic_words("what did we look into?") == set()
    assert topic_words("did we change the pool size?") == {"pool", "size"}
    assert topic_words("how did we fix the stuck partition?") == {"stuck", "partit"}


def test_a_negated_past_helper_asks_what_happened_a_negated_present_perfect_does_not() -> None:
    from memory.recall.earlier import asks_what_happened

    for asked in (
        "why didn't we roll back?",
        "why didn’t we roll back?",
        "why didnt we roll back?",
    ):
        assert asks_what_happened(asked), asked
    assert not asks_what_happened("why haven't the pods recovered?")  # how things stand now
    assert not asks_what_happened("why can't we deploy now?")


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("what can I tell customers?", True),
        ("can I tell customers it's fixed?", True),
        ("what do we tell support?", True),
        ("what should I update the execs with?", True),
        ("what do we tell customers about the checkout errors?", True),  # the incident itself
        ("what do i tell the execs about the 502s?", True),
        ("what do I tell support? they are asking", True),
        ("what do we tell leadership about Q3 hiring?", False),  # about hiring
        ("what can we say to customers about the pricing change?", False),
        ("how do I tell customers about planned maintenance?", False),  # how to, not where we are
        ("can I restart the pod?", False),
        # The customers' own question asked after it: the incident's status answers both.
        ("what should I tell customers? are orders lost?", True),
        ("what do I tell support? were cards charged twice?", True),
        # Another question asked beside it is its own
        ("what should I tell customers? how do I roll back a deployment?", False),
        ("what do I tell the exec? is the Q3 hiring budget approved?", False),
    ],
)
def test_what_to_tell_customers_asks_where_the_incident_stands(question: str, asked: bool) -> None:
    """No runbook knows what to tell customers about this incident: its status does."""
    from memory.recall.earlier import asks_what_happened

    assert asks_what_happened(question) is asked
    assert (asked_kinds(question) == ("status",)) is asked
