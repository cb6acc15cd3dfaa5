"""What each index reads: vectors skip what a runbook rules out, keywords keep every word, and
both read a link as its text, never its address."""

from __future__ import annotations

from pathlib import Path

from knowledge.chunking import chunk_runbook
from knowledge.index_text import chunk_embedding_text, doc_embedding_text, readable
from knowledge.search import Knowledge
from memory.store import Database
from tests.knowledge.conftest import write_corpus

STATIC = """# Node Filesystem Almost Out Of Space

## Meaning
This alert is like the space-filling-up one, but rather
than a prediction of when the disk fills, it uses static thresholds: 5% space left.

## Mitigation
Free space on the node.
"""


def test_the_embedder_reads_a_runbook_without_what_it_rules_out() -> None:
    rb = chunk_runbook("node-filesystem-almost-out-of-space", STATIC)
    summary = doc_embedding_text(rb)
    assert "prediction" not in summary  # the exclusion spans a line break
    assert "static thresholds" in summary and "Almost Out Of Space" in summary
    meaning = chunk_embedding_text(rb.chunks[0])
    assert "prediction" not in meaning and "5% space left" in meaning


async def test_keyword_search_still_finds_the_words_a_runbook_rules_out(
    db: Database, tmp_path: Path
) -> None:
    k = Knowledge(
        db, write_corpus(tmp_path / "rb", {"node-filesystem-almost-out-of-space": STATIC}), None
    )
    result = await k.search("prediction", mode="keyword")
    assert [h.slug for h in result.hits] == ["node-filesystem-almost-out-of-space"]


LINKED = {
    "dns-resolution-failure": """# DNS resolution failure

## Symptoms
Pods cannot resolve service names.

## Remediation
Restart CoreDNS. See [the upstream resolver guide](https://wiki.example.com/kafka-consumer-lag.html)
and [the forwarding notes][fwd], or {{< ref "./queue-backlog.md" >}}.

[fwd]: https://wiki.example.com/kafka-partition-rebalance
""",
    "queue-backlog": """# Queue backlog

## Symptoms
Kafka consumer lag keeps growing on the orders topic.

## Remediation
Scale the consumer group.
""",
}


def test_a_link_reads_as_its_text_and_its_address_is_dropped() -> None:
    text = (
        'See [Node Filesystem Files Filling Up]({{< ref "./NodeFilesystemFilesFillingUp.md" >}})'
        ' and [archive](http://web.archive.org/web/1/https://coreos.com/a_(b).html "old"),'
        " ![diagram](img/flow.png), [docs][1] or <https://k8s.io/x>.\n[1]: https://k8s.io/docs\n"
        "Keep [brackets] and a[0] (as written)."
    )
    assert " ".join(readable(text).split()) == (
        "See Node Filesystem Files Filling Up and archive, diagram, docs or ."
        " Keep [brackets] and a[0] (as written)."
    )
    # Brackets around a link stay as written; the link inside still loses its address.
    assert readable("[see [the guide](https://x.io/g)]") == "[see the guide]"
    rb = chunk_runbook("dns-resolution-failure", LINKED["dns-resolution-failure"])
    vector_text = chunk_embedding_text(rb.chunks[1]) + doc_embedding_text(rb)
    assert "upstream resolver guide" in vector_text and "kafka" not in vector_text.lower()


async def test_keyword_search_matches_link_text_but_not_link_addresses(
    db: Database, tmp_path: Path
) -> None:
    k = Knowledge(db, write_corpus(tmp_path / "rb", LINKED), None)
    lag = await k.search("kafka consumer lag partition rebalance", mode="keyword", limit=5)
    assert [h.slug for h in lag.hits] == ["queue-backlog"]
    guide = await k.search("upstream resolver guide", mode="keyword", limit=5)
    assert [h.slug for h in guide.hits] == ["dns-resolution-failure"]
