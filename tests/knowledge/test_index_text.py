"""What each index reads: vectors skip what a runbook rules out, keywords keep every word."""

from __future__ import annotations

from pathlib import Path

from knowledge.chunking import chunk_runbook
from knowledge.index_text import chunk_embedding_text, doc_embedding_text
from knowledge.search import Knowledge
from memory.db import Database
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
