"""The phone layer alone: which spans it validates, which it refuses as ids, dates and tables,
how it explains a match, and that a bare number is lifted by a phone word (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest
from presidio_analyzer import RecognizerResult

from memory.redaction.context import build_context_enhancer, word_artifacts
from memory.redaction.phones import (
    BARE_PHONE_SCORE,
    PHONE_SCORE,
    build_phone_recognizer,
    phone_candidates,
)


@pytest.fixture
def recognizer() -> Any:
    """A fresh one per test: no test leans on the validator cache another one filled."""
    return build_phone_recognizer()


def found(recognizer: Any, text: str) -> list[str]:
    return [text[r.start : r.end] for r in recognizer.analyze(text, ["PHONE_NUMBER"])]


@pytest.mark.parametrize(
    ("text", "phones"),
    [
        ("call +44 20 7946 0958", ["+44 20 7946 0958"]),  # "+": the number names its country
        ("call +82 10-1234-5678", ["+82 10-1234-5678"]),
        ("freephone +49 800 1234567890", ["+49 800 1234567890"]),  # too long for a national one
        ("call 0044 20 7946 0958", ["0044 20 7946 0958"]),  # "00", the international prefix
        ("call 0049 30 901820", ["0049 30 901820"]),
        ("call 17951 13800138000", ["17951 13800138000"]),  # a Chinese carrier prefix first
        ("ligue 0 15 11 98765-4321", ["0 15 11 98765-4321"]),  # a Brazilian carrier code
        ("ligue 015 11 98765-4321", ["015 11 98765-4321"]),
        # ids, times and paths around a phone-shaped value
        ("INV-2026-004821 call 212-555-0198", ["212-555-0198"]),
        ("#212-555-0198 reopened", []),  # a ticket id, at the start of the message
        ("artifact 212-555-0198-rc1.tar built", []),  # part of a file name
        ("the rota starts 02/01/2026", []),  # a date, though a valid German number
        ("ticket 000-000-0000 call 212-555-0198", ["212-555-0198"]),  # an invalid one first
        ("order 8812734012, call 212-555-0198", ["212-555-0198"]),  # a bare id first
        # two spaces after a sentence end it: the full stop is not part of the number
        ("call 212-555-0198.  2 rings, then voicemail", ["212-555-0198"]),
        ("(desk: 212-555-0198.)  2 rings, then voicemail", ["212-555-0198"]),
        ("ext 12  (212) 555-0198", ["(212) 555-0198"]),  # a column before it
    ],
)
def test_the_phone_layer_finds_exactly_these_numbers(
    recognizer: Any, text: str, phones: list[str]
) -> None:
    assert found(recognizer, text) == phones


def test_a_match_explains_itself_and_names_its_recognizer(recognizer: Any) -> None:
    """A decision-process trace says which region's rules the number passed; the context layer
    finds the recognizer (and its phone words) by the id in the metadata."""
    (result,) = recognizer.analyze("call +44 20 7946 0958", ["PHONE_NUMBER"])
    explanation = result.analysis_explanation
    assert explanation.recognizer == "PhoneRecognizer"
    assert explanation.original_score == PHONE_SCORE
    assert explanation.textual_explanation == "valid GB phone number"
    assert result.recognition_metadata == {
        RecognizerResult.RECOGNIZER_NAME_KEY: "PhoneRecognizer",
        RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: recognizer.id,
    }


def test_a_bare_number_after_a_phone_word_is_lifted_over_the_threshold(recognizer: Any) -> None:
    """A bare run starts below the 0.4 threshold; the phone word before it lifts it there."""
    text = "mobile 13800138000 per the HR sheet"
    results = recognizer.analyze(text, ["PHONE_NUMBER"])
    assert [r.score for r in results] == [BARE_PHONE_SCORE]
    artifacts = word_artifacts(text, language="en")
    (lifted,) = build_context_enhancer().enhance_using_context(
        text, results, artifacts, [recognizer]
    )
    assert lifted.score >= 0.4
    assert lifted.analysis_explanation.supportive_context_word == "mobile"


def candidates(text: str) -> list[str]:
    return [text[a:b] for a, b in phone_candidates(text)]


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("x 555-0198 y", ["555-0198"]),  # seven digits: worth validating
        ("x 55-0198 y", []),  # six: not
        ("ext 12  212-555-0198", ["212-555-0198"]),  # a wide gap cuts the run
        ("desk 212-555-0198  212-555-0199", ["212-555-0198", "212-555-0199"]),  # two columns
        ("1234 5678 9012 34567", ["1234 5678 9012 34567"]),  # seventeen digits: still one
        # more digits than one number: a list, each number on its own
        ("555-0198 555-0199 555-0200", ["555-0198", "555-0199", "555-0200"]),
        ("12345678901234567 7654321", ["12345678901234567", "7654321"]),
        # groups that must be recombined: every run of groups with 7 to 17 digits
        (
            "12 345 67 89012 34567 8",
            [
                "12 345 67",
                "12 345 67 89012",
                "12 345 67 89012 34567",
                "345 67 89012",
                "345 67 89012 34567",
                "345 67 89012 34567 8",
                "67 89012",
                "67 89012 34567",
                "67 89012 34567 8",
                "89012 34567",
                "89012 34567 8",
            ],
        ),
    ],
)
def test_candidates_are_the_spans_with_seven_to_seventeen_digits(
    text: str, spans: list[str]
) -> None:
    assert candidates(text) == spans


def test_groups_of_more_than_three_numbers_worth_of_digits_are_a_table_and_skipped() -> None:
    """Recombining groups is worth it for up to 51 digits (three numbers); past that the piece
    is a table of figures, and validating every window of it would cost seconds."""
    assert len(candidates(" ".join(["123"] * 17))) > 0  # 51 digits
    assert candidates(" ".join(["123"] * 18)) == []  # 54 digits
