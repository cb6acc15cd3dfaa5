"""Personal data recognizers (emails, SSNs, cards, IBANs, crypto wallets; phones in phones.py)
tuned so the words around a value and ordinary ops text survive.

Importing this module does no work; `build_pii_recognizers` builds the Presidio recognizers when
the redaction engine is built (Presidio and tldextract are imported there, not here).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memory.redaction.phones import build_phone_recognizer

if TYPE_CHECKING:
    from presidio_analyzer import EntityRecognizer

# Local part: RFC 5322 atom characters and Unicode letters (\w), without "=", "|", "/", "?",
# "{" and "}": in ops text those separate a key from the address ("user=a@b.io", Slack's
# "<mailto:a@b.io|a@b.io>"), they are not part of it. Lengths are capped and a match may only
# start where a local part starts, so a long run without "@" is scanned once (linear time).
_ATOM = r"[\w!#$%&'*+\-^`~]"
_LABEL = r"[^\W_](?:[\w\-]{0,61}[^\W_])?"
EMAIL_REGEX = (
    rf"(?<![\w!#$%&'*+\-^`~.]){_ATOM}{{1,64}}(?:\.{_ATOM}{{1,64}}){{0,16}}"
    rf"@(?:{_LABEL}\.){{1,8}}(?:[^\W\d_]{{2,63}}|xn--[a-z0-9\-]{{1,59}})"
    r"(?![\w\-]|\.[^\W_])"
)
# "git@github.com:org/repo.git" and "ssh user@host:path" are remotes, not mailboxes.
_SCP_PATH_AFTER = re.compile(r"^:[\w~/.\-]")
# Inside "scheme://user:pass@host" the password and host look like an email; they are not.
_URL_USERINFO_BEFORE = re.compile(r"://[^\s/@?#]*$")
_LOOKBEHIND_CHARS = 256


def build_pii_recognizers() -> list[EntityRecognizer]:
    """The always-on PII recognizers, built (and Presidio imported) on first use."""
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        CryptoRecognizer,
        IbanRecognizer,
    )

    return [
        email_recognizer(),
        build_phone_recognizer(),
        CreditCardRecognizer(),
        ssn_recognizer(),
        IbanRecognizer(),
        CryptoRecognizer(),
    ]


def email_recognizer() -> EntityRecognizer:
    """Emails whose domain has a known suffix; remotes and URL userinfo are not emails."""
    from presidio_analyzer import Pattern, RecognizerResult
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    class OpsAwareEmailRecognizer(EmailRecognizer):
        """Presidio's email recognizer with a linear, key=value-aware pattern; remotes and URL
        userinfo are left to the URL and password recognizers."""

        def analyze(
            self, text: str, entities: list[str], nlp_artifacts: Any = None, regex_flags: Any = None
        ) -> list[RecognizerResult]:
            # Presidio's pattern analysis ignores nlp_artifacts and defaults the flags.
            found = super().analyze(text, entities, nlp_artifacts, regex_flags)  # pragma: no mutate
            return [
                r
                for r in found
                if not _SCP_PATH_AFTER.match(text[r.end : r.end + 2])
                and not _URL_USERINFO_BEFORE.search(
                    text[max(0, r.start - _LOOKBEHIND_CHARS) : r.start]
                )
            ]

        def validate_result(self, pattern_text: str) -> bool:
            return known_domain(pattern_text.partition("@")[2])

    @lru_cache(maxsize=4096)
    def known_domain(domain: str) -> bool:
        # Internationalised top-level domains are not all in tldextract's bundled list.
        tld = domain.rsplit(".", 1)[-1]
        return (not tld.isascii()) or tld.startswith("xn--") or bool(extract(domain).fqdn)

    from tldextract import extract

    # tldextract reads its bundled suffix list on first use: pay that here, not mid-message.
    known_domain("example.com")  # pragma: no mutate
    return OpsAwareEmailRecognizer(
        name="EmailRecognizer",
        patterns=[Pattern("email (ops-aware)", EMAIL_REGEX, 0.5)],
    )


def ssn_recognizer() -> EntityRecognizer:
    """US SSNs by Presidio's checks, published sample SSNs included."""
    from presidio_analyzer.predefined_recognizers import UsSsnRecognizer

    class PlaceholderAwareSsnRecognizer(UsSsnRecognizer):
        """Presidio's SSN checks, except that published sample SSNs (123-45-6789) are redacted
        too: a pasted SSN-shaped value is treated as one, and redacting a sample costs nothing."""

        def invalidate_result(self, pattern_text: str) -> bool:
            digits = "".join(c for c in pattern_text if c.isdigit())
            if digits in ("123456789", "987654320", "078051120"):
                return False
            return bool(super().invalidate_result(pattern_text))

    return PlaceholderAwareSsnRecognizer(name="UsSsnRecognizer")
