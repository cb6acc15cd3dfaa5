"""What a question asks, and which section answers it, read from general wording (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.intent import heading_kind, question_intent, section_kind
from knowledge.search import Knowledge, reading_intent
from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.store import Database
from tests.knowledge.conftest import write_corpus


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("how do I mitigate CPU throttling?", "fix"),
        ("pods keep crashlooping after the deploy, what do we do?", "fix"),
        ("The disk is 90% full. How can we free up space?", "fix"),
        ("disk almost ful on db-3, how to clean", "fix"),  # terse chat, a typo
        ("how do we purge old logs", "fix"),  # not "logs" as in "check the logs"
        ("whats next?", "fix"),  # the next steps, in chat's spelling
        ("what's next to try?", "fix"),
        ("what is next week's oncall?", None),
        ("what's next on the agenda for standup?", None),
        ("how do i check disk usage", "diagnose"),
        ("how do I troubleshoot slow etcd requests?", "diagnose"),
        ("Targets are down. Where should I look first to find out why?", "diagnose"),
        ("what does KubeletTooManyPods mean?", "meaning"),
        ("Who is affected when the API server is down?", "impact"),
        ("How bad is it if alertmanager cannot send notifications?", "impact"),
        ("Who should we page for the storage cluster?", "escalate"),
        ("The registry volume is full. What breaks for the teams pushing images?", "impact"),
        ("Packet loss on the storage NIC. What effect does that have on the database?", "impact"),
        ("Will leaving the old setting in place break anything later?", "impact"),
        ("The DNS pods are down. Would services lose connectivity to each other?", "impact"),
        ("The compactor stopped. How do we get it working again?", "fix"),
        ("How do we give the cache more memory?", "fix"),
        ("search-api HPA is maxed out again, what did we do last time?", "fix"),
        ("latency doubled an hour ago. what did we change?", None),
        ("KubeAPIDown: Target disappeared from Prometheus target discovery.", None),
        # Terse chat: no question mark, no full sentence.
        ("etcd has no leader!! what do", "fix"),
        ("cert expiring tomorrow, what to do", "fix"),
        ("ingester stuck, how fix", "fix"),
        ("node NotReady wat now", "fix"),  # chat spelling of "what now"
        ("sidecar not ingesting anymore, whats wrong", "diagnose"),
        ("scheduler down, pods pending. where to look", "diagnose"),
        ("What do these numbers mean?", "meaning"),
        ("What do the warning and critical levels of this alert stand for?", None),  # not "what do"
        ("The queue is down. Does that mean nobody gets paged?", "impact"),
        ("Quorum is lost. Will the API still accept writes while we recover?", "impact"),
        ("TargetDown fired. Does that mean the service is down, or can it mean more?", "meaning"),
        # A service named "checkout" is no check asked for; "check" and "checking" are.
        ("where is the new payments key for checkout?", None),
        ("what should we be checking on checkout?", "diagnose"),
    ],
)
def test_question_intent_follows_the_asking_sentence(question: str, intent: str | None) -> None:
    assert question_intent(question) == intent


def test_teams_section_names_map_to_the_same_kinds() -> None:
    for heading in ("Mitigation", "Remediation", "Resolution", "Fix", "Steps", "Recovery"):
        assert heading_kind(heading) == "fix", heading
    for heading in ("Diagnosis", "Investigation", "Troubleshooting", "Triage"):
        assert heading_kind(heading) == "diagnose", heading
    for heading in ("Meaning", "Overview", "Description", "Alert Description"):
        assert heading_kind(heading) == "meaning", heading
    for heading in ("Impact", "Severity", "Customer impact"):
        assert heading_kind(heading) == "impact", heading
    # A heading that names no kind is read from its content; the untitled opening means.
    assert section_kind(("Runbook",), "Check the logs with `kubectl logs` and query p99.") == (
        "diagnose"
    )
    assert section_kind(("Runbook",), "Restart the pod, then scale the deployment up.") == "fix"
    assert section_kind((), "This alert fires when...") == "meaning"
    # "checkout" names a service, not a read: the section still reads as the change it makes.
    assert section_kind(("Runbook",), "Restart checkout, then scale checkout up.") == "fix"


OTHER_WORDS = {
    "queue-backlog": """# Queue backlog

The queue backlog alert fires when consumers fall behind producers for 10 minutes.

## Customer impact
Orders are confirmed late; customers see a spinner for minutes.

## Investigation
Look at consumer lag per partition and check the consumer pods' logs for errors.

## Remediation
Scale the consumer deployment out and restart consumers stuck on a poison message.
""",
    "cache-evictions": """# Cache evictions

## Description
The cache evicts keys faster than usual because memory is nearly full.

## Resolution
Raise the cache memory limit.
""",
}


async def test_sections_follow_the_question_in_a_corpus_with_other_heading_names(
    tmp_path: Path, onnx: OnnxMiniLmEmbedder
) -> None:
    db = await Database.open(tmp_path / "k.db")
    try:
        k = Knowledge(db, write_corpus(tmp_path / "rb", OTHER_WORDS), onnx)
        asks = {
            "the queue backlog keeps growing, how do we fix it?": "Remediation",
            "queue backlog alert: how do I investigate what is slow?": "Investigation",
            "queue backlog is firing, are customers affected?": "Customer impact",
            "what does the queue backlog alert mean?": "Overview",
        }
        for question, heading in asks.items():
            result = await k.search(question, limit=1)
            assert not result.abstained, question
            assert result.hits[0].slug == "queue-backlog"
            assert result.hits[0].sections[0].heading == heading, question
    finally:
        await db.close()


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("namespace quota exceded for payments, cant deploy", "fix"),  # reports a problem
        ("We got an alert about orphaned VMIs. What does 'orphaned' mean for a VM?", None),
        ("KubePodCrashLooping", None),  # a name asks for the runbook itself
        ("Pod is crash looping. Pod x/y is waiting.", None),  # a pasted alert
        ("etcd has no leader, what do", "fix"),
    ],
)
def test_a_reported_problem_is_answered_with_the_fix_and_an_unread_question_by_relevance(
    text: str, intent: str | None
) -> None:
    assert reading_intent(text) == intent


#: A pool runbook's title, opening paragraph and diagnosis (its fix section varies by test).
POOL_OPENING = """# Connection pool exhausted

The service's database connection pool has no free connections; requests wait and time out.

## Diagnosis
Check pg_stat_activity for sessions idle in transaction and which clients hold them.
"""


async def test_a_section_of_only_links_never_leads(
    tmp_path: Path, onnx: OnnxMiniLmEmbedder
) -> None:
    corpus = {
        "pool-exhausted": POOL_OPENING
        + """
## Mitigation
Raise the pool size only after finding who holds the connections; kill idle transactions.

## Related
- [high-latency](high-latency.md)
- [elevated-errors](elevated-errors.md)
- [deployment-rollback](deployment-rollback.md)
""",
    }
    db = await Database.open(tmp_path / "k.db")
    try:
        k = Knowledge(db, write_corpus(tmp_path / "rb", corpus), onnx)
        result = await k.search(
            "connection pool exhausted, high latency and elevated errors", limit=1
        )
        assert not result.abstained
        assert result.hits[0].sections[0].heading != "Related", result.hits[0].sections
        # Asked how to fix it, a link to the rollback runbook is no fix section: the
        # diagnosis comes next.
        asked = "how do we fix pool exhaustion?"
        fix = await k.search(asked, limit=1, question=asked)
        shown = [s.heading for s in fix.hits[0].sections]
        assert shown[:2] == ["Mitigation", "Diagnosis"], shown
    finally:
        await db.close()


async def test_a_fix_section_that_only_links_to_the_procedure_is_still_the_fix(
    tmp_path: Path, onnx: OnnxMiniLmEmbedder
) -> None:
    """ "## Mitigation" whose body is "- [deployment-rollback](…)": its heading names the kind."""
    corpus = {
        "pool-exhausted": POOL_OPENING
        + """
## Mitigation
- [deployment-rollback](deployment-rollback.md)
- [scale-out](scale-out.md)
""",
    }
    db = await Database.open(tmp_path / "k.db")
    try:
        k = Knowledge(db, write_corpus(tmp_path / "rb", corpus), onnx)
        asked = "how do we fix pool exhaustion?"
        fix = await k.search(asked, limit=1, question=asked)
        assert fix.hits[0].sections[0].heading == "Mitigation", fix.hits[0].sections
    finally:
        await db.close()
