"""The context layer alone: it lifts the same scores as Presidio's own enhancer and reads the
same words, in linear time, but stops looking 40 tokens back (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest
from presidio_analyzer import Pattern, PatternRecognizer, RecognizerResult
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

from memory.redaction.context import MAX_TOKENS_WALKED, build_context_enhancer, word_artifacts


def pin_recognizer() -> PatternRecognizer:
    """A 4-digit "PIN", or a parenthesised value without digits, lifted by the word "pin"."""
    return PatternRecognizer(
        supported_entity="PIN",
        patterns=[Pattern("pin", r"\b\d{4}\b", 0.3), Pattern("paren", r"\([^)\d]*\)", 0.3)],
        context=["pin"],
    )


def scored(
    enhancer: Any, text: str, *, context: list[str] | None = None
) -> list[tuple[str, float, str]]:
    """(value, score, supportive context word) of each PIN match after `enhancer`."""
    pins = pin_recognizer()
    results = pins.analyze(text, ["PIN"])
    out = enhancer.enhance_using_context(
        text, results, word_artifacts(text, language="en"), [pins], context
    )
    return [
        (text[r.start : r.end], round(r.score, 2), r.analysis_explanation.supportive_context_word)
        for r in out
    ]


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]


@pytest.mark.parametrize(
    ("text", "context"),
    [
        # the word "pin" with 0..6 other words between it and the value: Presidio looks at the
        # value's own token and five more words back
        *((" ".join(["pin", *WORDS[:k], "4821"]), None) for k in range(len(WORDS) + 1)),
        ("pin is the 4821", None),  # stop words do not count as words
        ("4821 pin", None),  # after the value: only the value's own token is read
        ("badge (pin x)", None),  # a match opening with punctuation: its first word is read
        ("pin (of the)", None),  # ... and a match of stop words reads to the end of the text
        ("door pin 1111 and 2222", None),  # each match on its own
        ("build 4821 finished", ["PIN"]),  # the caller's context words, any case
        ("build 4821 finished", ["badge"]),
    ],
)
def test_the_linear_enhancer_scores_and_explains_as_presidio_does(
    text: str, context: list[str] | None
) -> None:
    ours = scored(build_context_enhancer(), text, context=context)
    assert ours == scored(LemmaContextAwareEnhancer(), text, context=context)
    assert ours  # every case has a match to score


def test_a_context_word_counts_up_to_five_words_before_the_value() -> None:
    enhancer = build_context_enhancer()
    assert scored(enhancer, "pin alpha bravo charlie delta 4821") == [("4821", 0.65, "pin")]
    assert scored(enhancer, "pin alpha bravo charlie delta echo 4821") == [("4821", 0.3, "")]


def test_the_walk_back_stops_after_40_tokens_where_presidio_walks_on() -> None:
    """Stop words and punctuation are not words, but each one walked costs: a word 40 tokens
    back still counts, one 41 tokens back does not (Presidio would find it)."""
    enhancer = build_context_enhancer()
    near = "pin" + " the" * (MAX_TOKENS_WALKED - 1) + " 4821"
    far = "pin" + " the" * MAX_TOKENS_WALKED + " 4821"
    assert scored(enhancer, near) == [("4821", 0.65, "pin")]
    assert scored(enhancer, far) == [("4821", 0.3, "")]
    assert scored(LemmaContextAwareEnhancer(), far) == [("4821", 0.65, "pin")]


def test_results_it_cannot_or_need_not_lift_are_passed_over_and_later_ones_still_lifted() -> None:
    """A result of a recognizer it was not given, of one without context words, or already
    lifted keeps its score; the results after it are still judged."""
    text = "door pin 1111 2222 3333 4444"
    pins = pin_recognizer()
    plain = PatternRecognizer(supported_entity="PIN", patterns=[Pattern("pin", r"\d{4}", 0.3)])
    unknown = pin_recognizer()
    results = [
        *unknown.analyze(text, ["PIN"])[:1],
        *plain.analyze(text, ["PIN"])[1:2],
        *pins.analyze(text, ["PIN"])[2:],
    ]
    results[2].recognition_metadata[RecognizerResult.IS_SCORE_ENHANCED_BY_CONTEXT_KEY] = True
    artifacts = word_artifacts(text, language="en")
    out = build_context_enhancer().enhance_using_context(text, results, artifacts, [pins, plain])
    assert [(text[r.start : r.end], round(r.score, 2)) for r in out] == [
        ("1111", 0.3),
        ("2222", 0.3),
        ("3333", 0.3),
        ("4444", 0.65),
    ]


def test_a_match_past_the_last_token_is_an_error_as_in_presidio() -> None:
    """Such a match cannot come from a recognizer; raising makes the redactor fail closed."""
    text = "pin 4821   "
    pins = pin_recognizer()

    def enhance(enhancer: Any) -> None:
        result = pins.analyze(text, ["PIN"])[0]
        result.start, result.end = 9, 10  # in the trailing spaces
        enhancer.enhance_using_context(text, [result], word_artifacts(text, language="en"), [pins])

    with pytest.raises(ValueError, match=r"^match starts after the last token$"):
        enhance(build_context_enhancer())
    with pytest.raises(ValueError):
        enhance(LemmaContextAwareEnhancer())


def test_artifacts_whose_offsets_do_not_line_up_with_their_tokens_are_refused() -> None:
    """Reading offsets out of step would judge a value by the wrong words; refusing it makes
    the redactor fail closed."""
    text = "door pin 4821"
    pins = pin_recognizer()
    artifacts = word_artifacts(text, language="en")
    artifacts.tokens_indices = artifacts.tokens_indices[1:]  # "pin" would seem to end at 9
    with pytest.raises(ValueError):
        build_context_enhancer().enhance_using_context(
            text, pins.analyze(text, ["PIN"]), artifacts, [pins]
        )


class _CountedList(list):
    """A list that counts how often it is walked through."""

    walks = 0

    def __iter__(self) -> Any:
        type(self).walks += 1
        return super().__iter__()


def test_token_offsets_are_read_once_per_message_however_many_matches() -> None:
    """What keeps a message with thousands of matches linear (issue 16)."""
    text = "pin " + " ".join(f"{n:04d}" for n in range(1000, 1300))
    pins = pin_recognizer()
    artifacts = word_artifacts(text, language="en")
    _CountedList.walks = 0
    artifacts.tokens_indices = _CountedList(artifacts.tokens_indices)
    results = pins.analyze(text, ["PIN"])
    build_context_enhancer().enhance_using_context(text, results, artifacts, [pins])
    assert len(results) == 300
    assert _CountedList.walks == 1


def test_word_artifacts_split_like_spacy_and_keep_only_content_words_as_keywords() -> None:
    """Words and each punctuation character are tokens; lemmas are lowercased; stop words and
    punctuation are no keywords, while names starting with "_" are."""
    artifacts = word_artifacts("Set _auth = the 4821, DB_PASS!", language="en")
    assert artifacts.tokens == ["Set", "_auth", "=", "the", "4821", ",", "DB_PASS", "!"]
    assert artifacts.tokens_indices == [0, 4, 10, 12, 16, 20, 22, 29]
    assert artifacts.lemmas == ["set", "_auth", "=", "the", "4821", ",", "db_pass", "!"]
    assert artifacts.keywords == ["set", "_auth", "4821", "db_pass"]
