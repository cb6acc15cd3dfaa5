"""The extractive roll-up (`memory.episodes.summary`): a correction replaces what it is about,
stated as what is true now."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memory.episodes.statements import strip_label, without_correction_cue
from memory.episodes.summary import summarise


@dataclass(frozen=True)
class Said:
    ts: str
    text: str
    author_subject_id: str


def _thread(*lines: str) -> list[Said]:
    return [Said(f"17000000{i:02d}.000100", t, f"T1/U{i % 3}") for i, t in enumerate(lines)]


def test_a_new_owner_replaces_the_action_without_the_words_that_announced_the_correction() -> None:
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "action item: Bob owns adding a CI check on pool size",
            "scratch that, Dan owns the CI check",
        )
    )
    assert s.sections["actions"] == ["Dan owns the CI check"]
    assert "scratch that" not in s.text


def test_a_handover_keeps_what_the_item_is_and_who_took_it() -> None:
    """ "Handing the forecast alert over to @mia" says who, not what: the roll-up keeps the item
    and shows who has it now, one item, not two owed."""
    s = summarise(
        _thread(
            "orders consumers lagging, kafka-3 disk at 97%",
            "Action item: @raj to add a disk-usage forecast alert for every broker by Friday.",
            "Handing the forecast alert over to @mia, I'm out from tomorrow.",
        )
    )
    (item,) = s.sections["actions"]
    assert item.startswith("@raj to add a disk-usage forecast alert for every broker by Friday.")
    assert item.endswith("Handing the forecast alert over to @mia, I'm out from tomorrow.")


def test_a_corrected_root_cause_is_the_one_the_roll_up_gives() -> None:
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "root cause: DNS resolution failing for the db host",
            "correction: the db host DNS was fine, the pool was exhausted",
        )
    )
    assert s.root_cause == "the db host DNS was fine, the pool was exhausted"


def test_a_root_cause_said_as_root_cause_is_is_not_repeated_under_its_heading() -> None:
    said = "root cause is the bulk import api has no size cap, one 14MB order blew max.poll"
    s = summarise(_thread("consumer lag 2.1M", said))
    assert s.root_cause == "the bulk import api has no size cap, one 14MB order blew max.poll"
    assert "Root cause: the bulk import api" in s.text


@pytest.mark.parametrize(
    ("said", "now_true"),
    [
        ("scratch that, Dan owns the CI check", "Dan owns the CI check"),
        ("*Correction*: the rollback target is v40", "the rollback target is v40"),
        ("I was wrong - it's not DNS", "it's not DNS"),
        ("scratch that", "scratch that"),  # nothing else said: the words stay
        ("correctional facility traffic", "correctional facility traffic"),  # a whole word only
    ],
)
def test_a_correction_is_read_without_how_it_opens(said: str, now_true: str) -> None:
    assert without_correction_cue(said) == now_true


def test_an_app_that_posted_the_alert_is_not_a_participant() -> None:
    """Alertmanager opened the thread; the people who worked it are who took part."""
    said = [
        Said("1700000000.000100", "[FIRING:1] KubeHpaMaxedOut search-api", "T1/B0ALERTS"),
        Said("1700000060.000100", "looking, HPA is at 20/20", "T1/U0ANA"),
        Said("1700000120.000100", "decision: raise maxReplicas to 40", "T1/U0BEN"),
    ]
    s = summarise(said, names={"T1/U0ANA": "Ana", "T1/U0BEN": "Ben", "T1/B0ALERTS": "Alertmanager"})
    assert s.participants == ["T1/U0ANA", "T1/U0BEN"]
    assert "Participants: Ana, Ben ·" in s.text
    assert s.first_report.startswith("KubeHpaMaxedOut search-api")  # no state marker


def test_a_thread_only_an_app_posted_in_has_no_participants_yet() -> None:
    s = summarise([Said("1700000000.000100", "[FIRING:1] KubeHpaMaxedOut", "T1/B0ALERTS")])
    assert s.participants == []
    assert "Participants: none yet ·" in s.text


def test_an_apps_resolved_alert_is_not_the_threads_status_nor_any_statement() -> None:
    """Alertmanager auto-resolving is not the team calling it resolved; "Assigned to Ana" in a
    pager's post owns nothing."""
    said = [
        Said("1700000000.000100", "[FIRING:1] KubeHpaMaxedOut search-api", "T1/B0ALERTS"),
        Said("1700000060.000100", "status: mitigated, watching", "T1/U0ANA"),
        Said("1700000120.000100", "[RESOLVED] KubeHpaMaxedOut. Assigned to Ana", "T1/B0ALERTS"),
    ]
    s = summarise(said)
    assert s.status == "mitigated, watching"
    assert s.sections["actions"] == []


def test_an_alert_the_app_edited_to_resolved_reports_what_fired_not_that_all_is_well() -> None:
    """Alertmanager rewrites its post when the alert clears; the firing text went with the
    edit. "What happened: [RESOLVED] … back to normal" read as if nothing had happened."""
    said = [
        Said(
            "1700000000.000100",
            "[RESOLVED] etcdHighFsyncDurations prod-east\netcd fsync durations are back to normal.",
            "T1/B0ALERTS",
        ),
        Said("1700000060.000100", "fsync p99 on master-1 is 480 ms", "T1/U0ANA"),
    ]
    s = summarise(said)
    assert s.first_report == "alert etcdHighFsyncDurations prod-east fired (since resolved)"
    assert s.title == "etcdHighFsyncDurations prod-east"
    assert "back to normal" not in s.text


def test_a_person_writing_a_bracketed_word_first_is_quoted_as_written() -> None:
    s = summarise([Said("1700000000.000100", "[RESOLVED] checkout is down again", "T1/U0ANA")])
    assert s.first_report == "[RESOLVED] checkout is down again"


def test_a_handover_that_opens_with_actually_replaces_the_action_in_the_roll_up() -> None:
    s = summarise(
        _thread(
            "etcd fsync p99 480 ms on master-1",
            "Ngozi will open a ticket with StorCo about the ds-07 controller failover.",
            "Actually, Tomasz will own the StorCo ticket, since I am off tomorrow.",
        )
    )
    assert s.sections["actions"] == ["Tomasz will own the StorCo ticket, since I am off tomorrow."]


def test_the_roll_up_lists_the_decision_and_the_move_that_fixed_it() -> None:
    """A decision naming what it ruled out ("instead of restarting") is a decision, not a
    correction; "I have migrated master-1 to ds-03" is what was done; "we consider the
    incident mitigated" is where it stands."""
    s = summarise(
        _thread(
            "etcd fsync p99 480 ms on master-1",
            "We have decided to move master-1 off ds-07 instead of restarting etcd.",
            "I have migrated master-1 to ds-03 at 10:25; fsync p99 is back to 9 ms.",
            "We consider the incident mitigated.",
        )
    )
    assert s.sections["decisions"] == [
        "We have decided to move master-1 off ds-07 instead of restarting etcd."
    ]
    assert s.sections["mitigations"] == [
        "I have migrated master-1 to ds-03 at 10:25; fsync p99 is back to 9 ms."
    ]
    assert s.status == "We consider the incident mitigated."


def test_a_handover_by_item_key_keeps_what_the_item_is_and_takes_over_only_that_item() -> None:
    s = summarise(
        _thread(
            "postmortem follow-ups for the search latency incident",
            "AI-1: move the synonyms rebuild to 03:00 UTC. owner Raj",
            "AI-2: warm the query cache after every rebuild. owner Ola",
            "sure, I'll take AI-1 over, due 20 Nov",
        ),
        {"T1/U0": "ola", "T1/U1": "kim", "T1/U2": "kim"},
    )
    assert s.sections["actions"] == [
        "AI-1: move the synonyms rebuild to 03:00 UTC. owner Raj"
        " → ola: sure, I'll take AI-1 over, due 20 Nov",
        # Its owner field stays with it (no "Ola: owner Ola" line of its own).
        "AI-2: warm the query cache after every rebuild. owner Ola",
    ]


def test_a_handover_of_an_item_not_listed_is_still_an_action_and_a_bare_agreement_no_decision() -> (
    None
):
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "agreed",
            "fine, I'll take OPS-42 myself, due Friday",
        )
    )
    assert s.sections["decisions"] == []
    assert s.sections["actions"] == ["fine, I'll take OPS-42 myself, due Friday"]


def test_only_an_owner_or_date_field_stays_with_the_sentence_before_it() -> None:
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "we rolled back to v41. Ticket OPS-77 filed for the pool change.",
            "I'll own the Edge cache purge",
            "correction: we're SEV-2, not SEV-1",
        ),
        {"T1/U2": "Ed"},
    )
    assert s.sections["mitigations"] == ["we rolled back to v41."]
    # "Edge" does not name Ed; a correction that hands nothing over is no action.
    assert s.sections["actions"] == [
        "Ticket OPS-77 filed for the pool change.",
        "Ed: I'll own the Edge cache purge",
    ]


def test_an_item_said_done_is_marked_done_on_the_item_not_listed_as_another_action() -> None:
    s = summarise(
        _thread(
            "Postmortem follow-ups\n1. AI-1 fsync alert — @priya\n2. AI-2 document the pool — @tom",
            "AI-2 done, added to the masters page in the wiki",
            "is AI-1 done?",
        )
    )
    assert s.sections["actions"] == [
        "priya: AI-1 fsync alert — @priya",
        "tom: AI-2 document the pool — @tom → done: AI-2 done, added to the masters page in the wiki",
    ]


def test_a_done_report_of_an_item_the_roll_up_does_not_list_stays_an_action() -> None:
    s = summarise(_thread("checkout 5xx since 10:02", "AI-7 done, alert merged"))
    assert s.sections["actions"] == ["AI-7 done, alert merged"]


def test_a_done_report_closes_every_item_it_names_by_the_key_each_item_opens_with() -> None:
    s = summarise(
        _thread(
            "Follow-ups\n1. AI-1 fsync alert — @priya\n2. AI-2 document the pool — @tom"
            "\n3. AI-3 update the runbook once AI-2 lands — @ana",
            "AI-1 and AI-2 are done",
        )
    )
    assert s.sections["actions"] == [
        "priya: AI-1 fsync alert — @priya → done: AI-1 and AI-2 are done",
        "tom: AI-2 document the pool — @tom → done: AI-1 and AI-2 are done",
        "ana: AI-3 update the runbook once AI-2 lands — @ana",
    ]


def test_what_a_done_report_also_says_is_kept_and_a_later_report_replaces_the_earlier() -> None:
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "AI-2 document the pool — @tom",
            "AI-2 done, turns out the pool was capped at 50",
            "AI-2 merged",
        )
    )
    assert s.root_cause == "AI-2 done, turns out the pool was capped at 50"
    assert s.sections["actions"] == ["tom: AI-2 document the pool — @tom → done: AI-2 merged"]


def test_clipping_a_long_item_never_hides_that_it_is_done() -> None:
    long_item = "AI-2 " + "rework the pool sizing doc " * 12 + "— @tom"
    s = summarise(_thread("checkout 5xx", long_item, "AI-2 done, merged and deployed"))
    (line,) = s.sections["actions"]
    assert line.endswith("→ done: AI-2 done, merged and deployed") and len(line) <= 280


def test_a_handover_by_key_goes_to_the_item_not_to_a_line_that_only_mentions_it() -> None:
    s = summarise(
        _thread(
            "Follow-ups\n1. AI-1 fsync alert — @priya\n2. AI-2 document the pool — @tom",
            "AI-3 update the runbook once AI-1 lands — @ana",
            "yep, AI-1 is mine now",
        )
    )
    assert s.sections["actions"][0] == "priya: AI-1 fsync alert — @priya → yep, AI-1 is mine now"
    assert s.sections["actions"][2] == "ana: AI-3 update the runbook once AI-1 lands — @ana"


def test_talk_about_a_listed_item_is_no_new_action_but_an_assignment_still_is() -> None:
    follow_ups = "Follow-ups\n1. AI-1 fsync alert — @priya\n2. AI-2 document the pool — @tom"
    s = summarise(_thread(follow_ups, "I can't get to AI-1 this week, sorry.", "so AI-2 will slip"))
    assert s.sections["actions"] == [
        "priya: AI-1 fsync alert — @priya",
        "tom: AI-2 document the pool — @tom",
    ]
    for kept in (
        "Tom will take AI-1",
        "assigning AI-1 to Sam",
        "handing off AI-1 to Ana, I'm out Friday",
        "TODO add a dashboard panel for AI-1",
        "I can't take AI-2, over to Raj",
    ):
        s = summarise(_thread(follow_ups, kept))
        assert any(kept in line for line in s.sections["actions"]), kept


def test_a_handover_moves_the_listed_item_and_a_ping_request_adds_none() -> None:
    follow_ups = "Follow-ups\n1. AI-1 fsync alert — @priya\n2. AI-3 etcd latency check — @marta"
    s = summarise(
        _thread(
            follow_ups,
            "I won't make AI-3 before Friday, handing off AI-3 to Tom",
            "ping me when AI-1 is merged so I can link it",
        )
    )
    assert s.sections["actions"] == [
        "priya: AI-1 fsync alert — @priya",
        "marta: AI-3 etcd latency check — @marta → I won't make AI-3 before Friday, handing off"
        " AI-3 to Tom",
    ]
    s = summarise(_thread(follow_ups, "Ana is taking AI-1"))
    assert s.sections["actions"][0] == "priya: AI-1 fsync alert — @priya → Ana is taking AI-1"
    # Chat types names and keys in lower case, and an arrow to a mention hands over too.
    s = summarise(_thread(follow_ups, "tom is taking ai-3", "AI-1 -> @ana"))
    assert s.sections["actions"] == [
        "priya: AI-1 fsync alert — @priya → ana: AI-1 -> @ana",
        "marta: AI-3 etcd latency check — @marta → tom is taking ai-3",
    ]


def test_a_condition_on_an_item_does_not_close_it() -> None:
    s = summarise(_thread("AI-2 document the pool — @tom", "ping me when AI-2 is merged"))
    assert not any("done" in line for line in s.sections["actions"])


def test_a_correction_of_a_theory_leaves_the_decision_that_shares_fewer_words_standing() -> None:
    """ "scratch that theory, batch-etl uses TCP" corrects the theory (a plain note, listed
    nowhere), not the decision that also names batch-etl: the digest keeps the decision and
    never shows the correction as one."""
    s = summarise(
        _thread(
            "intermittent DNS timeouts from the payments namespace",
            "theory: batch-etl opens a UDP socket per lookup and never closes it",
            "Decision: cordon the 3 nodes and scale batch-etl to 0 until we know more",
            "scratch that theory, batch-etl uses TCP.",
        )
    )
    assert s.sections["decisions"] == [
        "cordon the 3 nodes and scale batch-etl to 0 until we know more"
    ]


def test_a_correction_about_the_decision_itself_still_replaces_it() -> None:
    """Guards the test above: with no theory said, the correction is about the decision."""
    s = summarise(
        _thread(
            "intermittent DNS timeouts from the payments namespace",
            "Decision: scale batch-etl to 0 until we know more",
            "scratch that, scale batch-etl to 1 instead",
        )
    )
    assert s.sections["decisions"] == ["scale batch-etl to 1 instead"]


def test_a_reply_taking_work_on_hands_the_action_over_instead_of_adding_a_second() -> None:
    names = {"T1/U0": "noa", "T1/U1": "kim", "T1/U2": "dev"}
    s = summarise(
        _thread(
            "intermittent DNS timeouts from the payments namespace",
            "[ ] @kim write the postmortem by friday",
            "sure, I'll take the postmortem",
        ),
        names,
    )
    assert s.sections["actions"] == [
        "@kim write the postmortem by friday → dev: sure, I'll take the postmortem"
    ]


def test_a_reply_taking_on_unlisted_work_is_its_own_action() -> None:
    s = summarise(
        _thread(
            "intermittent DNS timeouts from the payments namespace",
            "[ ] @kim write the postmortem by friday",
            "I'll take the status page update",
        )
    )
    assert len(s.sections["actions"]) == 2


def test_when_an_action_is_due_stays_with_it_when_said_after_its_full_stop() -> None:
    """ "… add an alert on connected_clients. by friday": the due date is the item's, not a
    sentence the roll-up drops ("by the way" opens a sentence of its own)."""
    s = summarise(
        _thread(
            "search-api 5xx since 09:10",
            "AI @chen add an alert on connected_clients > 80% of maxclients. by friday",
            "TODO: publish the redis client upgrade notes. by 21 June",
        ),
        {"T1/U0": "maya", "T1/U1": "maya", "T1/U2": "maya"},
    )
    assert s.sections["actions"] == [
        "@chen add an alert on connected_clients > 80% of maxclients. by friday",
        "publish the redis client upgrade notes. by 21 June",
    ], s.sections["actions"]


@pytest.mark.parametrize(
    "said",
    [
        "postmortem doc: https://docs.example.com/pm/inc-410 . owner olu, due wed",
        "AI-3: rotate the CA. owner: Raj; ETA 10m",
        "AI-4: add the alert. due friday, owner kim",
        "AI-5: rotate the keys. by 2pm",
        "AI-6: page the db team. owner olu and due wed",
    ],
)
def test_a_list_of_fields_after_a_full_stop_stays_with_the_item(said: str) -> None:
    s = summarise(_thread("etcd latency", said), {"T1/U0": "maya", "T1/U1": "maya"})
    assert s.sections["actions"] == [strip_label(said)], s.sections["actions"]


def test_a_long_piece_after_a_full_stop_is_a_sentence_of_its_own() -> None:
    """A piece too long to be fields is never read as a list of them (nor scanned as one)."""
    from memory.episodes.statements import MAX_FIELD_PIECE, finishes_sentence

    many = "owner Olu, " * 40 + "x"
    assert len(many) > MAX_FIELD_PIECE and not finishes_sentence(many)
    assert finishes_sentence("owner Olu, owner Raj, due wed")


@pytest.mark.parametrize(
    "pointer", ["thats the root cause imo", "that's why.", "so that was the culprit!"]
)
def test_a_sentence_that_only_names_the_one_before_it_keeps_what_was_said(pointer: str) -> None:
    """ "… rebalance storm. thats the root cause imo": the cause is the sentence before."""
    s = summarise(
        _thread(
            "KafkaConsumerLagHigh group=checkout-events",
            f"so consumers blow past the poll interval -> rebalance storm. {pointer}",
        )
    )
    assert s.root_cause is not None
    assert s.root_cause.startswith("so consumers blow past the poll interval")


def test_items_signed_with_their_owners_under_a_heading_are_each_an_action() -> None:
    s = summarise(
        _thread(
            "PostgresPrimaryDown cluster=pg-orders",
            "follow-ups:\n1. alert on archive_command failures > 5m — @olu\n"
            "2. key rotation runbook must include wal-g secret — @raj",
        )
    )
    assert s.sections["actions"] == [
        "olu: alert on archive_command failures > 5m — @olu",
        "raj: key rotation runbook must include wal-g secret — @raj",
    ]


def test_the_last_severity_people_said_is_kept_for_the_digest() -> None:
    said = summarise(_thread("cart 500s", "sev2 for now", "upgrading to SEV-1, opening a bridge"))
    assert said.sections["severity"] == ["sev1"]
    assert "severity" not in summarise(_thread("cart 500s", "rolled back")).sections


def test_an_item_that_names_its_owner_after_its_key_is_not_prefixed_with_the_owner_again() -> None:
    said = summarise(_thread("coredns down", "AI-2: @joe add an alert on coredns restarts"))
    assert said.sections["actions"] == ["AI-2: @joe add an alert on coredns restarts"]


def test_a_status_keeps_the_plain_talk_said_with_it() -> None:
    """ "resolved. DNS errors lasted 13 minutes (08:01-08:14)": the digest's "Thread says" keeps
    how long it lasted, not only "resolved."."""
    said = summarise(
        _thread("dns down", "status: resolved. DNS errors lasted 13 min (08:01-08:14)")
    )
    assert said.status == "resolved. DNS errors lasted 13 min (08:01-08:14)"
    # What the next message says is its own.
    apart = summarise(_thread("dns down", "status: resolved.", "DNS errors lasted 13 min"))
    assert apart.status == "resolved."
    # A question or a thank-you said with it is no part of where things stand.
    asked = "status: mitigated. can someone check why the replica lag alert is firing?"
    assert summarise(_thread("dns down", asked)).status == "mitigated."
    thanks = "status: resolved. thanks all, great work!"
    assert summarise(_thread("dns down", thanks)).status == "resolved."


def test_a_severity_asked_about_denied_or_of_another_incident_is_not_said() -> None:
    for said in ("is this a sev1?", "not a sev1", "last week's sev1 looked the same"):
        assert "severity" not in summarise(_thread("cart 500s", said)).sections, said
    for said in ("it's sev1, opening bridge", "that's sev1 now"):  # this incident's
        assert summarise(_thread("cart 500s", said)).sections["severity"] == ["sev1"], said
    assert summarise(_thread("cart 500s", "not a sev1, sev3 at most")).sections["severity"] == [
        "sev3"
    ]


def test_what_came_of_the_last_change_is_where_things_stand_until_a_status_says_more() -> None:
    """ "restart done 02:38, 5xx back to 0" after the failover says how things stand; a later
    "status: resolved" still says more, and plain talk after it does not replace it."""
    s = summarise(
        _thread(
            "orders-api 100% 5xx on writes, mysql-orders-01 down",
            "using force: orchestrator-client -c force-master-failover -alias orders",
            "orders-api still 20% 5xx, stale conns. restarting orders-api pods",
            "restart done 02:38, 5xx back to 0",
        )
    )
    assert s.status == "restart done 02:38, 5xx back to 0"
    s = summarise(
        _thread(
            "orders-api 100% 5xx on writes",
            "status: resolved, all clear",
            "lag back under 1k on the replica too",
        )
    )
    assert s.status == "resolved, all clear"
