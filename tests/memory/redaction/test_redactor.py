"""The redactor's own layers: which of two overlapping matches wins, how spans become tags,
what a result and a failure say, and how the engine is put together (issue 2, issue 16).
tests/memory/test_redaction.py has the end-to-end cases by kind."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from typing import Any

import pytest
from presidio_analyzer import EntityRecognizer, RecognizerResult

from memory.errors import RedactionConfigError, RedactionFailed
from memory.redaction.redactor import (
    Finding,
    Redacted,
    RedactionPolicy,
    Redactor,
    _non_overlapping,
    _replace,
)


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    r = Redactor()
    r.redact_sync("warm up")
    return r


def result(entity: str, start: int, end: int, score: float = 0.9) -> RecognizerResult:
    return RecognizerResult(entity_type=entity, start=start, end=end, score=score)


def kept(*results: RecognizerResult) -> list[tuple[str, int, int]]:
    """What `_non_overlapping` keeps, whatever order the matches came in."""
    out = _non_overlapping(list(results))
    assert [(r.entity_type, r.start, r.end) for r in _non_overlapping(list(reversed(results)))] == [
        (r.entity_type, r.start, r.end) for r in out
    ]
    return [(r.entity_type, r.start, r.end) for r in out]


def test_of_two_overlapping_matches_the_higher_score_wins_even_when_shorter() -> None:
    assert kept(result("API_KEY", 0, 30, 0.6), result("PASSWORD", 5, 10, 0.9)) == [
        ("PASSWORD", 5, 10)
    ]


def test_at_equal_score_any_kind_beats_a_phone_number_even_when_shorter() -> None:
    assert kept(result("PHONE_NUMBER", 0, 14), result("US_SSN", 3, 14)) == [("US_SSN", 3, 14)]


def test_at_equal_score_and_kind_the_longer_span_wins_then_the_earlier() -> None:
    assert kept(result("API_KEY", 0, 10), result("PASSWORD", 4, 20)) == [("PASSWORD", 4, 20)]
    assert kept(result("API_KEY", 0, 10), result("PASSWORD", 5, 15)) == [("API_KEY", 0, 10)]


def test_touching_spans_are_both_kept_in_text_order() -> None:
    assert kept(result("B", 10, 20), result("A", 0, 10), result("C", 20, 25)) == [
        ("A", 0, 10),
        ("B", 10, 20),
        ("C", 20, 25),
    ]


def test_a_weaker_match_overlapping_either_kept_neighbour_is_dropped() -> None:
    neighbours = (result("A", 0, 10), result("C", 20, 30))
    assert kept(*neighbours, result("B", 9, 12, 0.5)) == [("A", 0, 10), ("C", 20, 30)]
    assert kept(*neighbours, result("B", 18, 21, 0.5)) == [("A", 0, 10), ("C", 20, 30)]
    assert kept(*neighbours, result("B", 10, 20, 0.5)) == [
        ("A", 0, 10),
        ("B", 10, 20),
        ("C", 20, 30),
    ]
    assert kept(*neighbours, result("B", 12, 15, 0.5), result("D", 2, 4, 0.5)) == [
        ("A", 0, 10),
        ("B", 12, 15),
        ("C", 20, 30),
    ]
    # A dropped match does not end the walk: a weaker one after it is still kept.
    for dropped in (result("X", 9, 12, 0.6), result("X", 18, 21, 0.6)):
        assert kept(*neighbours, dropped, result("Y", 13, 15, 0.5)) == [
            ("A", 0, 10),
            ("Y", 13, 15),
            ("C", 20, 30),
        ]


def test_each_span_becomes_its_tag_and_the_rest_is_kept_byte_for_byte() -> None:
    text = "a\tpw=hunter2  mail x@y.io!"
    spans = [result("PASSWORD", 5, 12), result("EMAIL_ADDRESS", 19, 25)]
    assert _replace(text, spans) == "a\tpw=<PASSWORD>  mail <EMAIL_ADDRESS>!"
    assert _replace(text, []) == text
    assert _replace("abcd", [result("A", 0, 2), result("B", 2, 4)]) == "<A><B>"


async def test_findings_are_counted_per_kind_in_name_order(redactor: Redactor) -> None:
    out = await redactor.redact("pwd=abc123 then b@example.org and a@example.com")
    assert out.text == "pwd=<PASSWORD> then <EMAIL_ADDRESS> and <EMAIL_ADDRESS>"
    assert out.findings == (Finding("EMAIL_ADDRESS", 2), Finding("PASSWORD", 1))
    assert out.removed_any
    assert out.as_dict() == {
        "text": "pwd=<PASSWORD> then <EMAIL_ADDRESS> and <EMAIL_ADDRESS>",
        "findings": [
            {"entity_type": "EMAIL_ADDRESS", "count": 2},
            {"entity_type": "PASSWORD", "count": 1},
        ],
    }


async def test_empty_and_clean_text_come_back_with_no_findings(redactor: Redactor) -> None:
    assert redactor.redact_sync("") == Redacted(text="", findings=())
    clean = await redactor.redact("restarted checkout-7 at 02:14")
    assert clean == Redacted(text="restarted checkout-7 at 02:14", findings=())
    assert not clean.removed_any
    assert clean.as_dict() == {"text": "restarted checkout-7 at 02:14", "findings": []}


class Exploding(EntityRecognizer):
    def load(self) -> None:
        return None

    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
        raise ValueError(f"cannot handle {text}")


def test_a_failed_analysis_logs_only_the_error_type(caplog: pytest.LogCaptureFixture) -> None:
    broken = Redactor(extra_recognizers=[Exploding(supported_entities=["BOOM"])])
    with (
        caplog.at_level(logging.WARNING, logger="memory.redaction.redactor"),
        pytest.raises(RedactionFailed),
    ):
        broken.redact_sync("password=hunter2")
    [record] = [r for r in caplog.records if r.name == "memory.redaction.redactor"]
    assert record.getMessage() == "redaction_failed"
    assert record.__dict__["error_type"] == "ValueError"
    assert "hunter2" not in caplog.text


def test_person_names_without_a_model_say_how_to_fix_it() -> None:
    with pytest.raises(RedactionConfigError) as err:
        Redactor(RedactionPolicy(redact_person_names=True))
    assert str(err.value) == (
        "Redacting person names needs a spaCy NER model; set the NER model name (for example "
        "en_core_web_sm) or turn person-name redaction off."
    )


async def test_a_missing_ner_model_is_named_with_the_fix_every_time() -> None:
    r = Redactor(RedactionPolicy(redact_person_names=True, ner_model="xx_no_such_model"))
    for _ in range(2):  # not cached as a half-built engine
        with pytest.raises(RedactionConfigError) as err:
            await r.warm_up()
        assert str(err.value) == (
            "The spaCy model xx_no_such_model is not installed; install it with pip or turn "
            "person-name redaction off."
        )


def test_recognizers_are_listed_sorted_with_what_the_policy_and_caller_add() -> None:
    r = Redactor(
        RedactionPolicy(redact_ip_addresses=True),
        extra_recognizers=[Exploding(supported_entities=["BOOM"], name="AaaExploding")],
    )
    names = r.recognizer_names()
    assert names == sorted(names)
    assert {"AaaExploding", "IpRecognizer", "EmailRecognizer", "PasswordRecognizer"} <= set(names)
    assert len(names) == len(set(names))


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"

LEMMAS = """
from memory.redaction.redactor import Redactor
engine = Redactor()._get_engines().analyzer.nlp_engine
print(" ".join(t.lemma_ for t in engine.process_text("AWS Secret KEY", "en").tokens))
"""


def test_an_engine_is_built_offline_quiet_and_with_the_linear_context_layer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What building sets up, checked on an engine built in this test: the bundled public
    suffix list (no network), Presidio's start-up logging quieted, lowercased tokens as the
    blank pipeline's lemmas (Presidio compares context words with lemmas), and our context
    layer, which counts a word only within MAX_TOKENS_WALKED tokens of the match."""
    monkeypatch.delenv("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS")
    logging.getLogger("presidio-analyzer").setLevel(logging.NOTSET)
    fresh = Redactor()
    engines = fresh._get_engines()
    assert os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] == ""
    assert logging.getLogger("presidio-analyzer").level == logging.WARNING
    doc = engines.analyzer.nlp_engine.process_text("AWS Secret KEY", "en")
    assert [t.lemma_ for t in doc.tokens] == ["aws", "secret", "key"]
    assert fresh.redact_sync(f"aws {AWS_SECRET}").text == "aws <AWS_SECRET_KEY>"
    far = "aws" + " ," * 45 + " " + AWS_SECRET  # Presidio's own layer would still lift this
    assert fresh.redact_sync(far).text == far
    # In a new interpreter, where the lemma component is registered for the first time.
    out = subprocess.run([sys.executable, "-c", LEMMAS], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "aws secret key"


async def test_a_model_setting_naming_a_package_that_is_no_spacy_model_fails_closed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """numpy is installed but is no spaCy model: loading it fails, the redactor raises
    RedactionFailed (nothing is stored) and logs only the error's type."""
    r = Redactor(RedactionPolicy(redact_person_names=True, ner_model="numpy"))
    with (
        caplog.at_level(logging.WARNING, logger="memory.redaction.redactor"),
        pytest.raises(RedactionFailed),
    ):
        await r.warm_up()
    [record] = [r for r in caplog.records if r.name == "memory.redaction.redactor"]
    assert record.getMessage() == "redaction_build_failed"
    assert record.__dict__["error_type"] == "TypeError"  # numpy.load does not take spaCy's args


async def test_a_model_is_only_loaded_when_person_names_are_redacted() -> None:
    r = Redactor(RedactionPolicy(redact_person_names=False, ner_model="numpy"))
    assert (await r.redact("mail bob@example.org")).text == "mail <EMAIL_ADDRESS>"


async def test_context_words_are_read_from_our_own_tokens(redactor: Redactor) -> None:
    """The analysis is given our word split, which takes punctuation off as spaCy does but
    also inside a link, where spaCy keeps one token: "aws" in the link lifts the weak key."""
    text = f"see https://aws.example/x {AWS_SECRET}"
    assert (await redactor.redact(text)).text == "see https://aws.example/x <AWS_SECRET_KEY>"
