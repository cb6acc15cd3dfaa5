"""The second-opinion layers alone: detect-secrets finds every occurrence of what a plugin
yields and keeps detect-secrets' own entropy rule; the entropy layer judges each candidate on
its own; both explain their matches and declare what they return (issue 16).

Secret-shaped values are built by concatenation so this file holds no scanner-triggering literal.
"""

from __future__ import annotations

from typing import Any

import pytest
from presidio_analyzer import RecognizerResult

from memory.redaction.detectors import build_detector_recognizers

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
RANDOM = "Zq8v" + "L2mR" + "x9pK4wT7"
OTHER_RANDOM = "Ab3d" + "Ef6h" + "Ij9kLm2nP"


def layer(index: int, text: str) -> tuple[Any, list[Any]]:
    """One layer (0: detect-secrets, 1: entropy), built in this test, and what it finds."""
    recognizer = build_detector_recognizers()[index]
    return recognizer, recognizer.analyze(text, recognizer.supported_entities, None)


def values(index: int, text: str) -> list[tuple[str, str]]:
    _, results = layer(index, text)
    return sorted((r.entity_type, text[r.start : r.end]) for r in results)


def test_detect_secrets_finds_every_occurrence_including_one_that_opens_the_message() -> None:
    text = f"{AWS} leaked, then {AWS} and {AWS} again"
    _, results = layer(0, text)
    assert sorted(r.start for r in results) == [0, text.index(" then ") + 6, text.rindex(AWS)]
    assert {text[r.start : r.end] for r in results} == {AWS}


def test_a_quoted_value_must_be_above_the_entropy_limit_as_detect_secrets_itself_rules() -> None:
    """The high-entropy plugin yields every quoted string; only those strictly above its 4.5
    bits per character are secrets (eight characters twice and sixteen once is exactly 4.5)."""
    at_limit = "AABBCCDDEEFFGGHH" + "ijklmnopqrstuvwx"
    above = at_limit + "y"
    assert values(0, f"export X='{at_limit}'") == []
    assert values(0, f"export X='{above}'") == [("API_KEY", above)]


@pytest.mark.parametrize(
    ("index", "text", "name", "score", "pattern"),
    [
        (0, f"key id {AWS} in the role", "DetectSecretsRecognizer", 0.85, "AWS Access Key"),
        (1, f"api key: {RANDOM}", "EntropyRecognizer", 0.42, "high entropy after a secret word"),
    ],
    ids=["detect-secrets names its plugin", "entropy says why"],
)
def test_each_match_explains_which_layer_found_it_and_why(
    index: int, text: str, name: str, score: float, pattern: str
) -> None:
    recognizer, (result,) = layer(index, text)
    explanation = result.analysis_explanation
    assert explanation.recognizer == name
    assert explanation.original_score == score
    assert explanation.pattern_name == pattern
    assert result.recognition_metadata == {
        RecognizerResult.RECOGNIZER_NAME_KEY: name,
        RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: recognizer.id,
    }


def test_the_entropy_layer_declares_exactly_the_entities_it_returns() -> None:
    """Presidio picks recognizers by the entities asked for, so an undeclared one is skipped."""
    recognizer, key = layer(1, f"api key: {RANDOM}")
    _, password = layer(1, f"password is {RANDOM}")
    assert [r.entity_type for r in key + password] == ["API_KEY", "PASSWORD"]
    assert recognizer.supported_entities == ["API_KEY", "PASSWORD"]


def test_the_entropy_layer_judges_each_candidate_on_its_own() -> None:
    """A name that is not random, or a random value with no secret word before it, does not
    stop the values after it from being found."""
    assert values(1, f"the api key for payments-worker-7 is {RANDOM}") == [("API_KEY", RANDOM)]
    text = f"build {RANDOM} is green; api key: {OTHER_RANDOM}"
    assert values(1, text) == [("API_KEY", OTHER_RANDOM)]


def test_a_message_with_every_secret_word_is_still_scanned() -> None:
    text = (
        "rotate every credential (auth token, api key, bearer, pwd, secret): "
        f"the new password is {RANDOM}"
    )
    assert values(1, text) == [("PASSWORD", RANDOM)]


def test_three_and_a_half_bits_per_character_is_random_enough() -> None:
    """Four characters twice and eight once: exactly the 3.5-bit floor, which is taken."""
    value = "AAbb11ZZ" + "cD2eF3gH"
    assert values(1, f"token {value}") == [("API_KEY", value)]
