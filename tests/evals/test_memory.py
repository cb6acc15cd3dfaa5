"""Memory evaluation: metrics, loaders and a tiny end-to-end run through the real write path."""

from __future__ import annotations

import gzip
import json

import pytest

from evals.memory import MemoryEval, ranked_metrics
from memory.embedding.embedder import build_embedder
from memory.redaction.redactor import Redactor
from memory.store import Database


def test_ranked_metrics_on_a_hand_worked_example() -> None:
    m = ranked_metrics(["a", "x", "b", "y"], frozenset({"a", "b"}), (1, 3))
    assert m["recall@1"] == 0.5 and m["recall_any@1"] == 1.0 and m["recall_all@1"] == 0.0
    assert m["recall@3"] == 1.0 and m["recall_all@3"] == 1.0
    assert m["ndcg@3"] == pytest.approx((1 + 1 / 2) / (1 + 1 / 1.5849625007211563))


def locomo_file(tmp_path):
    turns1 = [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy called Biscuit last week!"},
        {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely. I started learning the cello."},
    ]
    turns2 = [
        {"speaker": "Ann", "dia_id": "D2:1", "text": "We are moving to Lisbon in spring."},
        {
            "speaker": "Bo",
            "dia_id": "D2:2",
            "text": "Nice, my cello teacher is from there",
            "blip_caption": "a photo of a cello",
        },
    ]
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns1,
            "session_2_date_time": "10:00 am on 9 June, 2023",
            "session_2": turns2,
        },
        "qa": [
            {"question": "What is the name of Ann's puppy?", "evidence": ["D1:1"], "category": 4},
            {"question": "Where is Ann moving?", "evidence": ["D2:1; D9:9"], "category": 4},
            {"question": "Unanswerable", "evidence": [], "category": 5},
        ],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    return path


async def test_locomo_run_ingests_every_turn_and_finds_the_evidence(tmp_path) -> None:
    db = await Database.open(tmp_path / "eval.db")
    try:
        runner = MemoryEval(db, Redactor(), build_embedder("onnx-minilm"), mode="hybrid")
        report = await runner.locomo(locomo_file(tmp_path), (1, 5))
    finally:
        await db.close()
    assert (report.n, report.notes) == (2, 4)  # the question without evidence is skipped
    # Every evidence turn is found; which of four one-line turns leads is the ranking's business
    # (the length prior puts the three-word "moving to Lisbon" answer second).
    assert report.metrics["recall@5"] == 1.0
    assert report.metrics["recall@1"] >= 0.5
    out = report.as_json()
    assert {"recall@1", "recall@5", "n", "embedder", "mode"} <= set(out)


async def test_longmemeval_turn_run_scores_answer_turns(tmp_path) -> None:
    data = {
        "meta": {},
        "questions": [
            {
                "question_id": "q1",
                "question_type": "single-session-user",
                "question": "What breed is my dog?",
                "answer": "corgi",
                "question_date": "2023/05/30 (Tue) 10:18",
                "haystack_session_ids": ["s1", "s2"],
                "haystack_dates": ["2023/05/20 (Sat) 07:47", "2023/05/21 (Sun) 07:47"],
                "answer_session_ids": ["s2"],
            }
        ],
        "sessions": {
            "s1": {"n_turns": 2, "user_turns": [[1, "How do I bake sourdough bread?", 0]]},
            "s2": {
                "n_turns": 4,
                "user_turns": [[1, "My corgi dog hates baths.", 1], [3, "Any shampoo tips?", 0]],
            },
        },
    }
    path = tmp_path / "lme.json.gz"
    with gzip.open(path, "wt") as handle:
        json.dump(data, handle)
    db = await Database.open(tmp_path / "eval.db")
    try:
        runner = MemoryEval(db, Redactor(), build_embedder("onnx-minilm"), mode="keyword")
        turn = await runner.longmemeval(path, (1,), granularity="turn")
    finally:
        await db.close()
    assert turn.n == 1 and turn.metrics["recall_all@1"] == 1.0
