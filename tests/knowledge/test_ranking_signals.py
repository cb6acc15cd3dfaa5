"""Re-ranking signals: quantifiers in titles count, the opening section counts, near-duplicates split."""

from __future__ import annotations

import re
from pathlib import Path

from knowledge.chunking import chunk_runbook
from knowledge.profile import (
    LEAD_WORDS,
    QueryProfile,
    TermStats,
    overlap,
    prefix_related,
    profile,
    specific_lead_text,
    stem,
    term_sequence,
    without_exclusions,
)
from knowledge.ranking import Candidate, confidence_features
from knowledge.search import Knowledge
from memory.store import Database
from memory.text import ABBREVIATIONS
from tests.knowledge.conftest import write_corpus

SIBLINGS = {
    "errors-sending-to-any-alertmanager": """# Errors sending alerts to any Alertmanager

## Meaning
Prometheus fails to deliver alerts to every configured Alertmanager.

## Mitigation
Check the network path to all Alertmanager pods.
""",
    "errors-sending-to-some-alertmanagers": """# Errors sending alerts to some Alertmanagers

## Meaning
Prometheus fails to deliver alerts to one or more Alertmanager instances.

## Mitigation
Check the network path to the failing Alertmanager pods.
""",
    "queue-backlog": """# Queue backlog

## Meaning
Consumers are not keeping up; messages pile up in the queue.

## Mitigation
Scale the consumers out.
""",
}


def _profiles() -> dict[str, object]:
    return {slug: profile(chunk_runbook(slug, text)) for slug, text in SIBLINGS.items()}


def test_quantifier_words_in_titles_tell_siblings_apart() -> None:
    profiles = _profiles()
    stats = TermStats(profiles.values())  # type: ignore[arg-type]  # built from Profile values
    q = QueryProfile.of("Prometheus is failing to send alerts to any Alertmanager")
    w = stats.query_weights(q)
    any_ = overlap(q, profiles["errors-sending-to-any-alertmanager"], stats, w)  # type: ignore[arg-type]
    some = overlap(q, profiles["errors-sending-to-some-alertmanagers"], stats, w)  # type: ignore[arg-type]
    assert any_.title_idf_cov > some.title_idf_cov and any_.title_cov > some.title_cov


def test_opening_section_coverage_prefers_the_runbook_that_restates_the_query() -> None:
    profiles = _profiles()
    stats = TermStats(profiles.values())  # type: ignore[arg-type]  # built from Profile values
    q = QueryProfile.of("messages pile up because consumers are not keeping up")
    w = stats.query_weights(q)
    backlog = overlap(q, profiles["queue-backlog"], stats, w)  # type: ignore[arg-type]
    other = overlap(q, profiles["errors-sending-to-any-alertmanager"], stats, w)  # type: ignore[arg-type]
    assert backlog.opening_cov > 0.5 > other.opening_cov
    assert backlog.opening_pairs > other.opening_pairs


async def test_keyword_search_ranks_the_sibling_whose_title_the_query_states(
    db: Database, tmp_path: Path
) -> None:
    k = Knowledge(db, write_corpus(tmp_path / "rb", SIBLINGS), None)
    any_ = await k.search("Errors while sending alerts to any Alertmanager", mode="keyword")
    some = await k.search("Errors while sending alerts to some Alertmanagers", mode="keyword")
    assert any_.hits[0].slug == "errors-sending-to-any-alertmanager"
    assert some.hits[0].slug == "errors-sending-to-some-alertmanagers"


def test_lead_coverage_counts_the_first_sentence_and_ignores_unknown_names() -> None:
    profiles = _profiles()
    stats = TermStats(profiles.values())  # type: ignore[arg-type]  # built from Profile values
    q = QueryProfile.of("Messages pile up in the queue xq-7f9z. Alertmanager pods restarted twice.")
    w = stats.query_weights(q)
    backlog = overlap(q, profiles["queue-backlog"], stats, w)  # type: ignore[arg-type]
    other = overlap(q, profiles["errors-sending-to-any-alertmanager"], stats, w)  # type: ignore[arg-type]
    assert backlog.lead_cov == 1.0  # the unknown name "xq-7f9z" neither helps nor hurts
    assert other.lead_cov == 0.0  # "Alertmanager" is in the details, not the lead


def test_lead_is_the_first_sentence_capped_in_words() -> None:
    assert specific_lead_text("Disk almost full on 10.0.0.1:9100. Details follow here.") == (
        "Disk almost full on 10.0.0.1:9100."
    )
    assert specific_lead_text(" ".join(f"w{i}" for i in range(30))).split() == [
        f"w{i}" for i in range(LEAD_WORDS)
    ]


def test_a_later_sentence_that_restates_the_whole_lead_with_detail_becomes_the_lead() -> None:
    summary = "Target disappeared from Prometheus target discovery."
    detail = "KubeProxy has disappeared from Prometheus target discovery."
    assert specific_lead_text(f"{summary} {detail}") == detail
    # A later sentence that leaves out part of the lead is detail, not a restatement.
    assert specific_lead_text(f"{summary} KubeProxy has disappeared.") == summary
    # Only the next two sentences are read.
    assert specific_lead_text(f"{summary} One. {detail}") == detail
    assert specific_lead_text(f"{summary} One. Two. {detail}") == summary
    # Abstention keeps reading the first sentence's own words.
    q = QueryProfile.of(f"{summary} {detail}")
    assert q.own_lead == frozenset(term_sequence(summary))
    assert q.lead == frozenset(term_sequence(detail))


DISAPPEARED = {
    "kube-scheduler-down": """# Kube Scheduler Down

## Meaning
Kube Scheduler has disappeared from Prometheus target discovery.

## Diagnosis
To be added.
""",
    "kube-proxy-down": """# KubeProxy Down

## Meaning
All kube-proxy instances have been unreachable by the monitoring system for 15 minutes.

## Diagnosis
Check the kube-proxy daemon set in the kube-system namespace.
""",
    "queue-backlog": SIBLINGS["queue-backlog"],
}


def test_the_lead_signal_credits_the_runbook_the_description_names() -> None:
    profiles = {slug: profile(chunk_runbook(slug, text)) for slug, text in DISAPPEARED.items()}
    stats = TermStats(profiles.values())
    q = QueryProfile.of(
        "Target disappeared from Prometheus target discovery."
        " KubeProxy has disappeared from Prometheus target discovery.",
        stats,
    )
    w = stats.query_weights(q)
    proxy = overlap(q, profiles["kube-proxy-down"], stats, w)
    scheduler = overlap(q, profiles["kube-scheduler-down"], stats, w)
    # Read from the summary alone, the lead named no component: 0 against 1.
    assert proxy.lead_cov > 0.2 and scheduler.lead_cov < 0.9
    assert scheduler.own_lead_cov == 1.0  # abstention still sees the summary restated


async def test_keyword_search_follows_the_lead_when_the_details_name_another_runbook(
    db: Database, tmp_path: Path
) -> None:
    k = Knowledge(db, write_corpus(tmp_path / "rb", SIBLINGS), None)
    # The details restate a sibling's title; without the lead signals that sibling ranks first.
    result = await k.search(
        "Queue backlog. Errors sending alerts to any Alertmanager, Prometheus fails to deliver"
        " alerts to every configured Alertmanager.",
        mode="keyword",
    )
    assert result.hits[0].slug == "queue-backlog"


ABBREVIATED = {
    "prometheus-bad-config": """# Prometheus bad config

## Meaning
Prometheus rejected the new rules file it was given.
""",
    "prometheus-rule-failures": """# Prometheus rule failures

## Meaning
Rule evaluation keeps returning errors.
""",
}


def test_a_title_abbreviation_matches_the_word_it_abbreviates() -> None:
    profiles = {slug: profile(chunk_runbook(slug, text)) for slug, text in ABBREVIATED.items()}
    stats = TermStats(profiles.values())
    text = "Failed Prometheus configuration reload."
    plain, related = QueryProfile.of(text), QueryProfile.of(text, stats)
    bad_config = profiles["prometheus-bad-config"]
    # "configuration" and "config" stem differently; as a prefix relative they meet.
    assert overlap(plain, bad_config, stats, stats.query_weights(plain)).title_cov == 1 / 3
    assert overlap(related, bad_config, stats, stats.query_weights(related)).title_cov == 2 / 3
    # The confidence feature still reads the lead's own words only.
    assert "config" in related.lead and related.own_lead == plain.lead


def test_the_first_word_of_a_compound_title_word_is_not_its_abbreviation() -> None:
    """ "What is the alert telling us?" about a Job: "alert" is not short for "Alertmanager" (alert
    + manager, both corpus words), as "config" is short for "configuration"."""
    runbooks = {
        "alertmanager-failed-reload": "# AlertmanagerFailedReload\n\n## Meaning\nAlertmanager"
        " could not reload its configuration; the alert manager keeps the old one.",
        "prometheus-configuration-reload-failure": "# PrometheusConfigurationReloadFailure\n\n"
        "## Meaning\nBad configuration.",
    }
    profiles = {slug: profile(chunk_runbook(slug, text)) for slug, text in runbooks.items()}
    words = {w.lower() for text in runbooks.values() for w in re.findall(r"[A-Za-z]+", text)}
    stats = TermStats(profiles.values(), words)
    q = QueryProfile.of("What is the alert telling us about the config?", stats)
    assert "alertma" not in q.terms
    assert "configu" in q.terms  # an abbreviation still meets its word
    # Without the corpus's words nothing tells a compound apart: the old reading.
    assert "alertma" in QueryProfile.of("the alert", TermStats(profiles.values())).terms


def test_prefix_relatives_need_a_real_shared_stem() -> None:
    assert prefix_related("config", "configu")
    assert not prefix_related("fail", "failove")  # too short a stem to call it one word
    assert not prefix_related("max", "maximum")
    assert not prefix_related("config", "config")


def test_terms_keep_integer_percentages_and_stem_failure_like_failed() -> None:
    seq = term_sequence("Filesystem has less than 5% space left, 4.21% available; disk failure")
    assert "pct5" in seq and not any(t.startswith("pct4") for t in seq)
    assert seq[-1] == "fail" == stem("failed") == stem("failures")


def test_confidence_reads_how_much_of_the_lead_the_top_runbook_restates_literally() -> None:
    """Prefix relatives widen the lead for ranking; whether anything matches at all is judged on
    the lead's own words, or no-runbook questions would look answerable."""
    profiles = {slug: profile(chunk_runbook(slug, text)) for slug, text in ABBREVIATED.items()}
    stats = TermStats(profiles.values())
    q = QueryProfile.of("Configuration reload", stats)
    o = overlap(q, profiles["prometheus-bad-config"], stats, stats.query_weights(q))
    assert o.lead_cov == 1.0 and o.own_lead_cov == 0.0
    top = Candidate(1, "prometheus-bad-config", "Prometheus bad config", overlap=o)
    assert confidence_features([(1.0, top)])[-1] == 0.0


WAITING = {
    "kube-pod-crash-looping": """# Kube Pod Crash Looping

## Meaning
The pod's container keeps crashing and restarting in CrashLoopBackOff.
""",
    "kube-container-waiting": """# Kube Container Waiting

## Meaning
A container has been stuck in the waiting state for a long time.
""",
}


def test_what_follows_an_exclusion_is_not_part_of_the_problem() -> None:
    text = (
        "Container stuck waiting for a reason other than CrashLoopBackOff (e.g. ImagePullBackOff)."
    )
    kept = without_exclusions(text)
    assert "CrashLoopBackOff" not in kept and "ImagePullBackOff" in kept
    assert without_exclusions("Disk full, excluding tmpfs mounts; check /var") == (
        "Disk full,  ; check /var"
    )
    # Nothing left but the exclusion: the query stands as written.
    assert without_exclusions("Other than that, nothing.") == " , nothing."
    assert without_exclusions("except CrashLoopBackOff") == "except CrashLoopBackOff"


async def test_search_does_not_rank_the_runbook_a_query_rules_out(
    db: Database, tmp_path: Path
) -> None:
    k = Knowledge(db, write_corpus(tmp_path / "rb", WAITING), None)
    result = await k.search(
        "Container waiting, for a reason other than a CrashLoopBackOff crash loop",
        mode="keyword",
        limit=2,
    )
    assert [h.slug for h in result.hits] == ["kube-container-waiting", "kube-pod-crash-looping"]


def test_every_listed_abbreviation_stems_like_its_word_in_any_form() -> None:
    for short, word in ABBREVIATIONS.items():
        assert stem(short) == stem(word), short
    assert stem("apps") == stem("applications") == stem("app")


def test_common_abbreviations_meet_the_words_they_abbreviate() -> None:
    assert stem("maxed") == stem("maximum") and stem("max") == stem("maximum")
    assert term_sequence("db conn errs") == term_sequence("database connection errors")
    # Ambiguous abbreviations stay themselves: "min" may be minutes, "ns" nanoseconds.
    assert term_sequence("5 min") == ["min"] and stem("minimum") != "min"
    assert stem("ns") == "ns"


async def test_a_query_saying_maximum_finds_the_runbook_titled_maxed_out(
    db: Database, tmp_path: Path
) -> None:
    corpus = {
        "kube-hpa-maxed-out": """# Kube HPA Maxed Out

## Meaning
The autoscaler has been running at its replica ceiling for a while.
""",
        "kube-hpa-replicas-mismatch": """# Kube HPA Replicas Mismatch

## Meaning
The autoscaler has not matched the desired number of pods.
""",
    }
    k = Knowledge(db, write_corpus(tmp_path / "rb", corpus), None)
    result = await k.search("HPA has been at its maximum for an hour", mode="keyword")
    assert result.hits[0].slug == "kube-hpa-maxed-out"
