"""Evaluation command: metrics, query files and the JSON last line (issue 3)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bot.cli.knowledge_cmds import add_eval_runbooks_parser, run_eval_runbooks
from bot.settings import Settings
from evals.runbooks import BadQueriesFile, auroc, load_queries
from tests.knowledge.conftest import write_corpus

SHIPPED = Path(__file__).resolve().parents[2] / "knowledge" / "runbooks"


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "runbooks")


def test_auroc_counts_wins_and_half_ties() -> None:
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.5], [0.5]) == 0.5
    assert auroc([0.1], [0.9]) == 0.0


def test_bad_query_lines_name_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text('{"query": "disk", "expected": "disk-filling-up"}\nnot json\n')
    with pytest.raises(BadQueriesFile, match=r"q\.jsonl line 2"):
        load_queries([f])
    f.write_text('{"query": "disk", "expected": "../x"}\n')
    with pytest.raises(Exception, match="slug"):
        load_queries([f])


async def test_eval_mixes_query_files_and_ends_with_one_json_object(
    tmp_path: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answerable = tmp_path / "a.jsonl"
    answerable.write_text(
        '{"query": "kube api servers down", "expected": "kube-api-down"}\n'
        '{"query": "TLS certificate expires soon", "expected": "certificate-expiry"}\n'
    )
    null = tmp_path / "n.jsonl"
    null.write_text('{"query": "kafka consumer lag grows", "expected": null}\n')
    parser = argparse.ArgumentParser()
    add_eval_runbooks_parser(parser.add_subparsers())
    args = parser.parse_args(
        [
            "runbooks",
            "--corpus",
            str(corpus_dir),
            "--queries",
            str(answerable),
            "--queries",
            str(null),
            "--mode",
            "keyword",
            "--json",
            "--data-dir",
            str(tmp_path / "d"),
        ]
    )
    assert await run_eval_runbooks(args, Settings(data_dir=tmp_path, embedder="none")) == 0
    out = capsys.readouterr().out.strip().splitlines()
    report = json.loads(out[-1])
    assert {"n", "hit@1", "hit@3", "mrr", "mode", "provenance", "auroc"} <= report.keys()
    assert report["n"] == 3 and report["hit@1"] == 1.0 and report["mode"] == "keyword"
    assert report["provenance"]["runbook_count"] == 5
    assert any(line.startswith("hit@1=") for line in out)


async def test_shipped_corpus_loads_and_indexes(tmp_path: Path) -> None:
    from knowledge.corpus import Corpus

    corpus = Corpus.load(SHIPPED)
    assert corpus.skipped == ()
    assert len(corpus.slugs) >= 10


async def test_section_metrics_count_abstentions_as_misses(
    tmp_path: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "s.jsonl"
    queries.write_text(
        '{"query": "kube api servers down, what does it mean", "expected": "kube-api-down",'
        ' "section": "Meaning"}\n'
        '{"query": "kube api servers down", "expected": "kube-api-down", "section": "Nowhere"}\n'
        '{"query": "zebra giraffe quokka", "expected": "kube-api-down", "section": "Meaning"}\n'
    )
    parser = argparse.ArgumentParser()
    add_eval_runbooks_parser(parser.add_subparsers())
    argv = ["runbooks", "--corpus", str(corpus_dir), "--queries", str(queries)]
    args = parser.parse_args([*argv, "--mode", "keyword", "--json", "--data-dir", str(tmp_path)])
    assert await run_eval_runbooks(args, Settings(data_dir=tmp_path, embedder="none")) == 0
    out = capsys.readouterr().out.strip().splitlines()
    report = json.loads(out[-1])
    # The nonsense query is refused: a miss for section@k and one third abstained.
    assert report["abstained_answerable"] == round(1 / 3, 4)
    assert report["n_sections"] == 3
    assert report["section@1"] == round(1 / 3, 4)
    assert report["section@3"] <= 2 / 3
    assert any(line.startswith("section@1=") for line in out)


def test_a_section_needs_an_expected_slug(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text('{"query": "disk", "expected": null, "section": "Mitigation"}\n')
    with pytest.raises(BadQueriesFile, match="section"):
        load_queries([f])
    f.write_text('{"query": "disk", "expected": "disk-filling-up", "section": "Mitigation"}\n')
    assert load_queries([f])[0].section == "Mitigation"
