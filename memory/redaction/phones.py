"""Phone numbers: valid numbers of the issue-16 regions, found without taking ids, addresses,
times and counts for phones, in time linear in the message.

Importing this module does no work; `build_phone_recognizer` imports Presidio and phonenumbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from presidio_analyzer import EntityRecognizer

# Issue 16: at least these. A candidate is checked against each region's metadata first.
PHONE_REGIONS = ("US", "GB", "DE", "FR", "IN", "BR", "JP", "KR", "CN", "SA")

# A formatted number ("+82 10-1234-5678", "(212) 555-0198") counts on its own, and so does a bare
# national number with its trunk prefix ("0501234567"): counters and ids do not start with 0.
# Any other bare digit run ("13800138000") is as often an order id, offset or epoch second, so
# it starts below the threshold and only counts with one of these words up to five words before.
PHONE_SCORE = 0.4
BARE_PHONE_SCORE = 0.1
PHONE_CONTEXT = (
    "phone",
    "telephone",
    "cell",
    "cellphone",
    "mobile",
    "call",
    "sms",
    "whatsapp",
    "fax",
    "contact",
)

# A phone never sits inside a larger token: "INV-2026-004821", "10.0.4.17.51822",
# "14:55:02.123456", "#4155550199", "ts=1764513127.442" are ids, addresses and times.
_GLUED_BEFORE = re.compile(r"(?:[\w#@/\\.\-]|\d:)$")
_GLUED_AFTER = re.compile(r"^(?:[\w@%/\\]|[.:\-]\w)")
# A run of digits with the separators people type inside a number; "+" and "(" may open it.
# One greedy class and no nested quantifier, so each run is scanned once.
_DIGIT_RUN = re.compile(r"[+(]?\d[\d()\-./ ]*\d\)?")
# Two spaces or more separate columns, not the groups of one number.
_WIDE_GAP_PIECES = re.compile(r"[+(]?\d(?:[\d()\-./]| (?! ))*")
_TOKEN = re.compile(r"\S+")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MIN_PHONE_DIGITS = 7
_MAX_PHONE_DIGITS = 17  # E.164 allows 15, plus a national trunk prefix and one spare
_MAX_GROUPS = 6
_NUMBER_TYPES = (
    "fixed_line",
    "mobile",
    "toll_free",
    "premium_rate",
    "shared_cost",
    "personal_number",
    "voip",
    "pager",
    "uan",
    "voicemail",
)
# A bare run only counts with a context word (PHONE_CONTEXT) before it, so without one in this
# many characters it is not worth validating.
_CONTEXT_LOOKBACK_CHARS = 80
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4_PREFIX = re.compile(rf"^{_OCTET}(?:\.{_OCTET}){{3}}(?!\d)")
_PHONE_RECOGNIZER = "PhoneRecognizer"


def phone_shape_is_ops(text: str, start: int, end: int) -> bool:
    """True when a phone-number match is really part of an id, address, time or path."""
    value = text[start:end]
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    return bool(
        _GLUED_BEFORE.search(before) or _GLUED_AFTER.match(after) or _IPV4_PREFIX.match(value)
    )


def is_bare_digits(value: str) -> bool:
    """An unformatted run such as "13800138000": no "+", separators, parentheses or trunk 0."""
    return value.isdigit() and not value.startswith("0")


def phone_candidates(text: str) -> Iterator[tuple[int, int]]:
    """Spans worth validating as phone numbers, found in one linear pass.

    phonenumbers' own matcher costs 0.2-1 ms per digit group per region, so ten regions over a
    40,000-character table of numbers take tens of seconds. Here a run of digits and in-number
    separators is cut at wide gaps; a piece with 7-17 digits is one candidate; a longer piece is
    a list ("212-555-0198 212-555-0199", each token a candidate) or, when its space-separated
    groups would have to be recombined and it holds more than three numbers' worth of digits, a
    table of figures, which is skipped.
    """
    for run in _DIGIT_RUN.finditer(text):
        for gap in _WIDE_GAP_PIECES.finditer(run.group()):
            piece_start = run.start() + gap.start()
            piece = _trimmed(gap.group())
            digits = _digit_count(piece)
            if digits < _MIN_PHONE_DIGITS:
                continue
            if digits <= _MAX_PHONE_DIGITS:
                yield piece_start, piece_start + len(piece)
                continue
            tokens = [(m.start(), m.end(), _digit_count(m.group())) for m in _TOKEN.finditer(piece)]
            if all(n >= _MIN_PHONE_DIGITS for _, _, n in tokens):
                yield from (
                    (piece_start + a, piece_start + b)
                    for a, b, n in tokens
                    if n <= _MAX_PHONE_DIGITS
                )
            elif digits <= 3 * _MAX_PHONE_DIGITS:
                yield from ((piece_start + a, piece_start + b) for a, b in _windows(tokens))


def _trimmed(piece: str) -> str:
    """Without trailing separators or a closing parenthesis that belongs to the prose around it.
    A stray opening one is left to the validator, which refuses unbalanced candidates."""
    piece = piece.rstrip("-./ ")
    if piece.endswith(")") and piece.count(")") > piece.count("("):
        piece = piece[:-1].rstrip("-./ ")
    return piece


def _digit_count(value: str) -> int:
    return sum(map(str.isdigit, value))


def _windows(tokens: list[tuple[int, int, int]]) -> Iterator[tuple[int, int]]:
    """Up to _MAX_GROUPS consecutive groups holding _MIN_PHONE_DIGITS to _MAX_PHONE_DIGITS
    digits, shortest first from each start."""
    for i in range(len(tokens)):
        total = 0
        for j in range(i, min(len(tokens), i + _MAX_GROUPS)):
            total += tokens[j][2]
            if total > _MAX_PHONE_DIGITS:
                break
            if total >= _MIN_PHONE_DIGITS:
                yield tokens[i][0], tokens[j][1]


class PhoneValidator:
    """Is this candidate a valid number of one of `regions`? phonenumbers' answer, asked only
    after a cheap length-and-pattern check against each region's metadata, and cached."""

    def __init__(self, regions: tuple[str, ...]) -> None:
        import phonenumbers
        from phonenumbers.phonenumbermatcher import (
            _SLASH_SEPARATED_DATES,
            _TIME_STAMPS,
            _is_national_prefix_present_if_required,
        )

        self._pn = phonenumbers
        self._dates = _SLASH_SEPARATED_DATES
        self._time_stamps = _TIME_STAMPS
        self._prefix_ok = _is_national_prefix_present_if_required
        self._regions = [_RegionShape.of(phonenumbers, r) for r in regions]
        self.region_of = lru_cache(maxsize=8192)(self._region_of)

    def _region_of(self, candidate: str) -> str | None:
        """The region the number is valid in, or None; raises nothing."""
        if self._dates.search(candidate) or self._time_stamps.search(candidate):
            return None
        if _ISO_DATE.match(candidate) or not _balanced(candidate):
            return None
        digits = "".join(c for c in candidate if c.isdigit())
        if candidate.startswith("+"):
            return self._valid_in(candidate, None)
        if digits.startswith("00"):  # the international call prefix of every region here but US
            return self._valid_in("+" + digits[2:], None)
        for shape in self._regions:
            if shape.may_match(digits):
                region = self._valid_in(candidate, shape.region)
                if region is not None:
                    return region
        return None

    def _valid_in(self, candidate: str, region: str | None) -> str | None:
        pn = self._pn
        try:
            number = pn.parse(candidate, region, keep_raw_input=True)
        except pn.NumberParseException:
            return None
        if not pn.is_valid_number(number) or not self._prefix_ok(number):
            return None
        return str(pn.region_code_for_number(number))


@dataclass(frozen=True)
class _RegionShape:
    region: str
    national_prefix: str
    prefix_for_parsing: re.Pattern[str] | None
    prefix_transform: str  # what a prefix_for_parsing match becomes, e.g. r"\2"; "" for none
    lengths: frozenset[int]
    pattern: re.Pattern[str]
    types: tuple[re.Pattern[str], ...]  # fixed line, mobile, toll free, ...

    @classmethod
    def of(cls, phonenumbers: Any, region: str) -> _RegionShape:
        md = phonenumbers.PhoneMetadata.metadata_for_region(region)
        general = md.general_desc
        parsing = md.national_prefix_for_parsing
        return cls(
            region=region,
            national_prefix=md.national_prefix or "",
            prefix_for_parsing=re.compile(parsing) if parsing else None,
            prefix_transform=md.national_prefix_transform_rule or "",
            lengths=frozenset(general.possible_length),
            pattern=re.compile(general.national_number_pattern),
            types=tuple(
                re.compile(desc.national_number_pattern)
                for desc in (getattr(md, name) for name in _NUMBER_TYPES)
                if desc is not None and desc.national_number_pattern
            ),
        )

    def may_match(self, digits: str) -> bool:
        """A necessary condition for validity: some national form has a possible length and
        fits the region's general pattern and one number type's pattern."""
        forms = {digits}
        if self.national_prefix and digits.startswith(self.national_prefix):
            forms.add(digits[len(self.national_prefix) :])
        if self.prefix_for_parsing is not None:
            m = self.prefix_for_parsing.match(digits)
            if m:
                forms.add(digits[m.end() :])
                # A Brazilian carrier code ("0 15 11 98765-4321") is cut out of the prefix and
                # the number after it kept, by the region's transform rule, as phonenumbers does.
                if self.prefix_transform and m.groups() and m.groups()[-1] is not None:
                    forms.add(m.expand(self.prefix_transform) + digits[m.end() :])
        return any(
            len(f) in self.lengths
            and self.pattern.fullmatch(f)
            and any(t.fullmatch(f) for t in self.types)
            for f in forms
        )


def _has_phone_word(before: str) -> bool:
    lowered = before.lower()
    return any(word in lowered for word in PHONE_CONTEXT)


def _balanced(candidate: str) -> bool:
    return candidate.count("(") == candidate.count(")")


def build_phone_recognizer() -> EntityRecognizer:
    from presidio_analyzer import AnalysisExplanation, LocalRecognizer, RecognizerResult

    validator = PhoneValidator(PHONE_REGIONS)

    class OpsAwarePhoneRecognizer(LocalRecognizer):
        """Valid phone numbers of PHONE_REGIONS, minus ids, addresses and times; bare digit runs
        need a context word (see PHONE_CONTEXT)."""

        def load(self) -> None:
            pass

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list:
            results = []
            for start, end in phone_candidates(text):
                if phone_shape_is_ops(text, start, end):
                    continue
                value = text[start:end]
                bare = is_bare_digits(value)
                if bare and not _has_phone_word(
                    text[max(0, start - _CONTEXT_LOOKBACK_CHARS) : start]
                ):
                    continue
                region = validator.region_of(value)
                if region is None:
                    continue
                score = BARE_PHONE_SCORE if bare else PHONE_SCORE
                results.append(
                    RecognizerResult(
                        entity_type="PHONE_NUMBER",
                        start=start,
                        end=end,
                        score=score,
                        analysis_explanation=AnalysisExplanation(
                            recognizer=_PHONE_RECOGNIZER,
                            original_score=score,
                            textual_explanation=f"valid {region} phone number",
                        ),
                        recognition_metadata={
                            RecognizerResult.RECOGNIZER_NAME_KEY: _PHONE_RECOGNIZER,
                            RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                        },
                    )
                )
            return results

    return OpsAwarePhoneRecognizer(
        supported_entities=["PHONE_NUMBER"], name=_PHONE_RECOGNIZER, context=list(PHONE_CONTEXT)
    )
