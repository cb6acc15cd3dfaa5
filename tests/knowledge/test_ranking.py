"""Search confidence: the features that say whether the top runbook really matches, and the
calibrated probability abstention compares with its threshold (issue 18, item 6)."""

from __future__ import annotations

import math

import pytest

from knowledge.profile import Overlap
from knowledge.ranking import (
    Candidate,
    FusionConfig,
    confidence,
    confidence_features,
    question_shifted,
)


def candidate(slug: str, *, sem_chunk: float = 0.0, pairs: float = 0.0, lead: float = 0.0):  # type: ignore[no-untyped-def]
    c = Candidate(1, slug, slug, sem_chunk=sem_chunk)
    c.overlap = Overlap(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, pairs, 0.0, lead)
    return c


def logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def test_no_ranking_has_no_evidence() -> None:
    assert confidence_features([]) == (0.0, 0.0, 0.0, 0.0)


def test_features_are_margin_over_the_runner_up_and_the_top_runbooks_own_evidence() -> None:
    top = candidate("a", sem_chunk=0.6, pairs=0.5, lead=0.25)
    assert confidence_features([(4.0, top), (1.0, candidate("b"))]) == (0.75, 0.6, 0.5, 0.25)
    assert (
        confidence_features([(4.0, top), (1.0, candidate("b")), (3.0, candidate("c"))])[0] == 0.75
    )


def test_a_lone_candidate_has_the_whole_margin_and_a_zero_score_none() -> None:
    assert confidence_features([(0.5, candidate("a"))])[0] == 1.0
    assert confidence_features([(0.5, candidate("a")), (0.25, candidate("b"))])[0] == 0.5
    assert confidence_features([(0.0, candidate("a"))])[0] == 0.0


def test_hybrid_and_keyword_rankings_use_their_own_fitted_models() -> None:
    config = FusionConfig()
    features = (1.0, 0.5, 0.5, 0.5)
    hybrid = config.conf_bias + sum(c * f for c, f in zip(config.conf_coef, features, strict=True))
    keyword = config.keyword_conf_bias + sum(
        c * f for c, f in zip(config.keyword_conf_coef, features, strict=True)
    )
    assert confidence(features, config) == pytest.approx(logistic(hybrid))
    assert confidence(features, config, "semantic") == pytest.approx(logistic(hybrid))
    assert confidence(features, config, "keyword") == pytest.approx(logistic(keyword))
    assert confidence((0.0, 0.0, 0.0, 0.0), config) == pytest.approx(logistic(-3.609))
    assert confidence((0.0, 0.0, 0.0, 0.0), config, "keyword") == pytest.approx(logistic(-1.409))


def test_extreme_scores_are_clamped_instead_of_overflowing() -> None:
    assert confidence((0.0,) * 4, FusionConfig(conf_bias=-1_000.0)) == 1.0 / (1.0 + math.exp(50))
    assert confidence((0.0,) * 4, FusionConfig(conf_bias=1_000.0)) == 1.0


def test_features_of_the_wrong_length_are_refused() -> None:
    with pytest.raises(ValueError):
        confidence((1.0, 0.5, 0.5), FusionConfig())


def test_a_question_gets_the_question_shift_and_an_alert_text_does_not() -> None:
    config = FusionConfig()
    features = (0.2, 0.5, 0.05, 0.3)
    z = config.conf_bias + sum(c * f for c, f in zip(config.conf_coef, features, strict=True))
    assert confidence(features, config) == pytest.approx(logistic(z))
    asked = confidence(features, config, question=True)
    assert asked == pytest.approx(logistic(z + config.question_conf_shift))
    assert asked > confidence(features, config)


def test_keyword_rankings_keep_their_own_line_for_questions() -> None:
    config = FusionConfig()
    features = (0.2, 0.0, 0.05, 0.3)
    assert confidence(features, config, "keyword", question=True) == confidence(
        features, config, "keyword"
    )


def test_only_a_question_whose_top_runbook_shares_a_word_is_shifted() -> None:
    shares = candidate("disk-filling-up")
    shares.overlap = Overlap(0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    only_near = candidate("kube-api-down", sem_chunk=0.25)
    assert question_shifted("disk on db-3 is full, what now?", [(3.0, shares)])
    assert not question_shifted("the coffee machine is broken, who fixes it?", [(1.0, only_near)])
    assert not question_shifted("Disk on db-3 is full.", [(3.0, shares)])
    assert not question_shifted("what now?", [])
