"""Redaction: replace secrets and personal data in text with `<ENTITY_TYPE>` before it is stored.

Presidio runs fully offline over a blank spaCy English pipeline (no model download); any failure
inside it raises `RedactionFailed`, so callers write nothing (fail closed).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.errors import RedactionConfigError, RedactionFailed
from memory.redaction.context import build_context_enhancer, word_artifacts
from memory.redaction.detectors import build_detector_recognizers
from memory.redaction.pii import build_pii_recognizers
from memory.redaction.secrets import build_secret_recognizers

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine, EntityRecognizer

log = logging.getLogger(__name__)

_LANGUAGE = "en"
# Presidio's weakest patterns (a bare 9-digit "SSN" at 0.05, a bare 40-char AWS-ish string at
# 0.1) only count once a context word lifts them to 0.4 or more; phone numbers start at 0.4.
_MIN_SCORE = 0.4
_LEMMA_COMPONENT = "opsmemory_lowercase_lemma"

# Default entities, chosen for ops text. Included: EMAIL_ADDRESS, PHONE_NUMBER, CREDIT_CARD,
# US_SSN, IBAN_CODE, CRYPTO (all checksum- or format-validated, so rare false positives; see
# pii.py) plus every secret kind in secrets.py. Left out on purpose:
#   DATE_TIME, URL     incident timelines and links are the point of a note; only URLs with a
#                      password (PASSWORD) or Slack webhooks (SLACK_WEBHOOK_URL) are redacted.
#   US_DRIVER_LICENSE, US_BANK_NUMBER, US_PASSPORT, UK_NHS, ... match bare digit/letter runs
#                      such as build numbers, pids and ticket ids far more often than real ids.
#   LOCATION, NRP, PERSON  need an NER model; PERSON comes back via RedactionPolicy.
#   IP_ADDRESS         internal addresses are everyday debugging facts; opt in via the policy.


@dataclass(frozen=True)
class RedactionPolicy:
    """What to redact beyond the always-on secrets and PII; names need an installed NER model."""

    redact_ip_addresses: bool = False
    redact_person_names: bool = False
    ner_model: str | None = None


@dataclass(frozen=True)
class Finding:
    """How many values of one entity type were replaced; never the values themselves."""

    entity_type: str
    count: int


@dataclass(frozen=True)
class Redacted:
    """Text after redaction and what was removed from it."""

    text: str
    findings: tuple[Finding, ...]

    @property
    def removed_any(self) -> bool:
        return bool(self.findings)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, for the CLI and logs of counts."""
        return {
            "text": self.text,
            "findings": [{"entity_type": f.entity_type, "count": f.count} for f in self.findings],
        }


# When two matches overlap, the higher score wins, then the more specific entity, then the longer
# span. A phone number is the least specific: almost any digit grouping is one somewhere, so a
# US SSN (536-22-8726) or a card that the phone matcher also takes keeps its own label.
_LEAST_SPECIFIC = ("PHONE_NUMBER",)


@dataclass(frozen=True)
class _Engines:
    analyzer: AnalyzerEngine
    spacy_tokens: bool  # only an NER model needs spaCy's own artifacts


class Redactor:
    """Wraps Presidio; builds its engines once, lazily, and runs them off the event loop."""

    def __init__(
        self,
        policy: RedactionPolicy = RedactionPolicy(),  # frozen, so one shared default is safe
        *,
        extra_recognizers: Sequence[EntityRecognizer] = (),
    ) -> None:
        if policy.redact_person_names and not policy.ner_model:
            raise RedactionConfigError(
                "Redacting person names needs a spaCy NER model; set the NER model name "
                "(for example en_core_web_sm) or turn person-name redaction off."
            )
        self._policy = policy
        self._extra = tuple(extra_recognizers)
        self._engines: _Engines | None = None
        self._lock = threading.Lock()

    async def warm_up(self) -> None:
        """Build the engines now (about a second) instead of on the first message."""
        await asyncio.to_thread(self._get_engines)

    async def redact(self, text: str) -> Redacted:
        """Redact one text; raises RedactionFailed if it cannot be checked."""
        return await asyncio.to_thread(self.redact_sync, text)

    async def redact_many(self, texts: Sequence[str]) -> list[Redacted]:
        """Redact a batch in one thread hop; any failure fails the whole batch."""
        return await asyncio.to_thread(lambda: [self.redact_sync(t) for t in texts])

    def redact_sync(self, text: str) -> Redacted:
        """Blocking form for the CLI and for batch work already running in a thread."""
        engines = self._get_engines()
        try:
            return _redact_with(engines, text)
        except Exception as exc:
            # Only the type: the message or traceback locals may quote the text.
            log.warning("redaction_failed", extra={"error_type": type(exc).__name__})
            raise RedactionFailed() from None

    def recognizer_names(self) -> list[str]:
        """Names of the active recognizers, for `opsmemory doctor`."""
        recognizers = self._get_engines().analyzer.registry.recognizers
        return sorted(str(r.name) for r in recognizers)  # type: ignore[has-type]  # untyped attr

    def _get_engines(self) -> _Engines:
        with self._lock:
            if self._engines is None:
                try:
                    self._engines = _build_engines(self._policy, self._extra)
                except RedactionConfigError:
                    raise
                except Exception as exc:
                    log.warning("redaction_build_failed", extra={"error_type": type(exc).__name__})
                    raise RedactionFailed() from None
            return self._engines


def _redact_with(engines: _Engines, text: str) -> Redacted:
    if not text:
        return Redacted(text=text, findings=())
    artifacts = None if engines.spacy_tokens else word_artifacts(text, language=_LANGUAGE)
    results = engines.analyzer.analyze(
        text=text, language=_LANGUAGE, score_threshold=_MIN_SCORE, nlp_artifacts=artifacts
    )
    spans = _non_overlapping(results)
    counts = Counter(r.entity_type for r in spans)
    findings = tuple(Finding(entity, n) for entity, n in sorted(counts.items()))
    return Redacted(text=_replace(text, spans), findings=findings)


def _non_overlapping(results: list[Any]) -> list[Any]:
    """One result per redacted span, in text order: the best-ranked result wins an overlap.

    Greedy by rank with a binary search over the spans already kept, so thousands of matches in
    one huge message cost O(k log k), not the O(k^2) of comparing every pair.
    """

    def rank(r: Any) -> tuple[float, int, int, int]:
        specific = 0 if r.entity_type in _LEAST_SPECIFIC else 1
        return (-r.score, -specific, -(r.end - r.start), r.start)

    starts: list[int] = []
    kept: list[Any] = []  # sorted by start, pairwise disjoint
    for r in sorted(results, key=rank):
        i = bisect_left(starts, r.start)
        if i > 0 and kept[i - 1].end > r.start:
            continue
        if i < len(kept) and kept[i].start < r.end:
            continue
        starts.insert(i, r.start)
        kept.insert(i, r)
    return kept


def _replace(text: str, spans: list[Any]) -> str:
    """Each span becomes `<ENTITY_TYPE>`; everything between spans is kept byte for byte."""
    parts: list[str] = []
    cursor = 0
    for r in spans:
        parts += [text[cursor : r.start], f"<{r.entity_type}>"]
        cursor = r.end
    parts.append(text[cursor:])
    return "".join(parts)


def _build_engines(policy: RedactionPolicy, extra: Sequence[EntityRecognizer]) -> _Engines:
    # Documented exception to "only bot/settings.py reads os.environ": tldextract (used by
    # Presidio's email validation) fetches the public suffix list over the network unless this
    # is empty, and it reads it at import time; empty means use the bundled snapshot.
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    # Presidio logs every recognizer it loads at INFO; that is start-up noise in our logs.
    logging.getLogger("presidio-analyzer").setLevel(logging.WARNING)
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.predefined_recognizers import IpRecognizer, SpacyRecognizer

    recognizers: list[EntityRecognizer] = [
        *build_pii_recognizers(),
        *build_secret_recognizers(),
        *build_detector_recognizers(),
    ]
    if policy.redact_ip_addresses:
        recognizers.append(IpRecognizer())
    if policy.redact_person_names:
        recognizers.append(SpacyRecognizer(supported_entities=["PERSON"]))
    recognizers.extend(extra)
    registry = RecognizerRegistry(recognizers=recognizers, supported_languages=[_LANGUAGE])
    analyzer = AnalyzerEngine(
        registry=registry,
        nlp_engine=_nlp_engine(policy.ner_model if policy.redact_person_names else None),
        supported_languages=[_LANGUAGE],
        context_aware_enhancer=build_context_enhancer(),
    )
    return _Engines(analyzer=analyzer, spacy_tokens=policy.redact_person_names)


def _nlp_engine(ner_model: str | None) -> Any:
    """A SpacyNlpEngine over a blank (or the named, installed) pipeline; never downloads."""
    import spacy
    from presidio_analyzer.nlp_engine import SpacyNlpEngine
    from spacy.language import Language

    if ner_model is not None and not spacy.util.is_package(ner_model):
        raise RedactionConfigError(
            f"The spaCy model {ner_model} is not installed; install it with pip or turn "
            "person-name redaction off."
        )
    if not Language.has_factory(_LEMMA_COMPONENT):
        # Presidio's context words ("aws", "ssn", "phone") are compared with token lemmas;
        # a blank pipeline has none, so the lowercased token stands in for the lemma.
        Language.component(_LEMMA_COMPONENT, func=_lowercase_lemmas)

    class _OfflineSpacyNlpEngine(SpacyNlpEngine):
        def load(self) -> None:
            nlp = spacy.load(ner_model) if ner_model else spacy.blank(_LANGUAGE)
            if "lemmatizer" not in nlp.pipe_names:
                nlp.add_pipe(_LEMMA_COMPONENT)
            self.nlp = {_LANGUAGE: nlp}  # type: ignore[assignment]  # base declares None

    engine = _OfflineSpacyNlpEngine()
    engine.load()
    return engine


def _lowercase_lemmas(doc: Any) -> Any:
    for token in doc:
        token.lemma_ = token.lower_
    return doc
