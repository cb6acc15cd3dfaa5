"""Context words that lift a weak match ("aws" near a 40-character key), found in linear time.

Presidio's `LemmaContextAwareEnhancer` deep-copies every result, scans every token of the
message for each match and tests keywords against a list, so a 40,000-character message with
thousands of matches costs seconds (issue 16). This subclass keeps its scoring and finds the
same words with a binary search over token offsets and a bounded walk over a keyword set.
`word_artifacts` stands in for spaCy's tokenizer when no NER model is used: a regex split costs
a few milliseconds where building spaCy tokens costs half a second on such a message.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any

# Words, and each other non-space character on its own, as spaCy splits punctuation off.
_WORD = re.compile(r"\w+|[^\w\s]")

# Presidio walks back until it has five keywords however far that is; past this many tokens
# (stop words and punctuation) a word is not "near" the match any more.
MAX_TOKENS_WALKED = 40


def build_context_enhancer() -> Any:
    """A LemmaContextAwareEnhancer with Presidio's defaults and a linear-time word lookup."""
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

    class LinearContextEnhancer(LemmaContextAwareEnhancer):
        def enhance_using_context(
            self,
            text: str,
            raw_results: list,
            nlp_artifacts: Any,
            recognizers: list,
            context: list[str] | None = None,
        ) -> list:
            # Presidio's loop, scoring unchanged, without its deepcopy of every result: the
            # results are fresh objects of this one call.
            by_id = {recognizer.id: recognizer for recognizer in recognizers}
            extra = [word.lower() for word in context or []]
            if nlp_artifacts is None:
                return raw_results
            for result in raw_results:
                meta = result.recognition_metadata or {}
                recognizer = by_id.get(meta.get(result.RECOGNIZER_IDENTIFIER_KEY))
                if recognizer is None or not recognizer.context:
                    continue
                if meta.get(result.IS_SCORE_ENHANCED_BY_CONTEXT_KEY):
                    continue
                words = self._extract_surrounding_words(
                    nlp_artifacts=nlp_artifacts, word="", start=result.start
                )
                found = self._find_supportive_word_in_context(
                    words + extra, recognizer.context, self.context_matching_mode
                )
                if found:
                    boosted = max(
                        result.score + self.context_similarity_factor,
                        self.min_score_with_context_similarity,
                    )
                    result.score = min(boosted, self.MAX_SCORE)
                    result.analysis_explanation.set_supportive_context_word(found)
                    result.analysis_explanation.set_improved_score(result.score)
            return raw_results

        def _extract_surrounding_words(
            self, nlp_artifacts: Any, word: str, start: int
        ) -> list[str]:
            if not nlp_artifacts.tokens:
                return [""]
            index = _token_index(nlp_artifacts, start)
            keywords = _keyword_set(nlp_artifacts)
            lemmas = nlp_artifacts.lemmas
            words = _walk(lemmas, keywords, index, self.context_prefix_count + 1, step=-1)
            words += _walk(lemmas, keywords, index, self.context_suffix_count + 1, step=1)
            return list(set(words))

    return LinearContextEnhancer()


def word_artifacts(text: str, *, language: str) -> Any:
    """NlpArtifacts from a linear regex split: tokens, offsets, lowercased lemmas, keywords."""
    from presidio_analyzer.nlp_engine import NlpArtifacts
    from spacy.lang.en.stop_words import STOP_WORDS

    tokens: list[str] = []
    starts: list[int] = []
    for m in _WORD.finditer(text):
        tokens.append(m.group())
        starts.append(m.start())
    lemmas = [t.lower() for t in tokens]
    artifacts = NlpArtifacts(
        entities=[],
        tokens=tokens,  # type: ignore[arg-type]  # a list of str stands in for a spaCy Doc
        tokens_indices=starts,
        lemmas=lemmas,
        nlp_engine=None,
        language=language,
    )
    artifacts.keywords = [
        w for w in lemmas if w not in STOP_WORDS and (w[0].isalnum() or w[0] == "_")
    ]
    return artifacts


def _token_index(nlp_artifacts: Any, start: int) -> int:
    """Index of the first token ending after `start` (Presidio's rule), by binary search."""
    ends = _cached(nlp_artifacts, "_opsmemory_token_ends", _token_ends)
    index = bisect_right(ends, start)
    if index >= len(ends):
        raise ValueError("match starts after the last token")
    return index


def _token_ends(nlp_artifacts: Any) -> list[int]:
    return [
        i + len(t) for i, t in zip(nlp_artifacts.tokens_indices, nlp_artifacts.tokens, strict=True)
    ]


def _keyword_set(nlp_artifacts: Any) -> frozenset[str]:
    return _cached(nlp_artifacts, "_opsmemory_keywords", lambda a: frozenset(a.keywords))


def _cached(nlp_artifacts: Any, name: str, build: Any) -> Any:
    # Stored on the per-call artifacts object, so threads redacting concurrently share nothing.
    value = getattr(nlp_artifacts, name, None)
    if value is None:
        value = build(nlp_artifacts)
        setattr(nlp_artifacts, name, value)
    return value


def _walk(lemmas: list[str], keywords: frozenset[str], index: int, want: int, *, step: int) -> list:
    words: list[str] = []
    i = index
    walked = 0
    while 0 <= i < len(lemmas) and len(words) < want and walked <= MAX_TOKENS_WALKED:
        lemma = lemmas[i].lower()
        if lemma in keywords:
            words.append(lemma)
        i += step
        walked += 1
    return words
