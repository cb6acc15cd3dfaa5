"""Patterns for credentials people paste into incident channels, as Presidio recognizers.

The table is plain data so importing this module does no work; `build_secret_recognizers`
turns it into Presidio `PatternRecognizer`s when the redaction engine is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from presidio_analyzer import PatternRecognizer

# Case-sensitive on purpose: token prefixes (AKIA, ghp_, xoxb-) are case-exact and matching
# them case-insensitively invites false positives. Keyword parts opt in with (?i:...).
# The stdlib flag values equal the `regex` module's, which Presidio compiles with.
_FLAGS = re.DOTALL | re.MULTILINE

# Keys whose value is a password: password, DB_PASSWORD, passwd, pwd, secret, client_secret.
_PASSWORD_KEY = (
    r"(?i:\b(?:[a-z0-9_.-]*[_.-])?(?:password|passwd|pwd|secret)(?:[_.-]?(?:key|token))?)"
)

# Values after a keyword must mix letters and digits and be long enough to be a key, so
# "token expired" or "authorization header missing" survive.
_KEYISH = r"(?=[A-Za-z0-9_\-.~+/]*\d)(?=[A-Za-z0-9_\-.~+/]*[A-Za-z])[A-Za-z0-9_\-.~+/]{16,}=*"


@dataclass(frozen=True)
class SecretPattern:
    """One regex for one entity; `context` words raise a weak match above the threshold."""

    entity: str
    name: str
    regex: str
    score: float
    context: tuple[str, ...] = ()


SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "AWS_ACCESS_KEY",
        "aws access key id",
        r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b",
        0.9,
    ),
    # 40 base64 characters are only a secret key when "aws"/"secret" is nearby, so the
    # bare shape scores below the threshold and Presidio's context enhancer lifts it.
    # Requiring upper and lower case keeps 40-hex git SHAs out.
    SecretPattern(
        "AWS_SECRET_KEY",
        "aws secret access key",
        r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
        r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        0.1,
        ("aws", "secret"),
    ),
    SecretPattern(
        "SLACK_TOKEN",
        "slack token",
        r"\b(?:xox[abposre](?:\.xox[a-z])?|xapp)-[A-Za-z0-9-]{10,}",
        0.9,
    ),
    SecretPattern(
        "SLACK_WEBHOOK_URL",
        "slack incoming webhook",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+",
        0.9,
    ),
    SecretPattern(
        "GITHUB_TOKEN",
        "github token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        0.9,
    ),
    SecretPattern(
        "JWT",
        "json web token",
        r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}",
        0.9,
    ),
    # Only the password of scheme://user:pass@host; the rest of the URL stays readable.
    SecretPattern(
        "PASSWORD",
        "password in url",
        r"(?<=\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)[^\s/@]+(?=@)",
        0.9,
    ),
    # `password=x`, `passwd: x`, `"secret": "x y"`: the value only, whole when quoted.
    SecretPattern(
        "PASSWORD",
        "password assignment, double-quoted",
        rf"(?<={_PASSWORD_KEY}[\"']?\s*[:=]\s*\")[^\"\r\n]+(?=\")",
        0.9,
    ),
    SecretPattern(
        "PASSWORD",
        "password assignment, single-quoted",
        rf"(?<={_PASSWORD_KEY}[\"']?\s*[:=]\s*')[^'\r\n]+(?=')",
        0.9,
    ),
    SecretPattern(
        "PASSWORD",
        "password assignment",
        rf"(?<={_PASSWORD_KEY}[\"']?\s*[:=]\s*)[^\s\"',;&]+",
        0.9,
    ),
    SecretPattern(
        "PRIVATE_KEY",
        "pem private key",
        # A key cut off before its END line (Slack truncates long messages) is still a key.
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?!-----END ).)*(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        0.95,
    ),
    SecretPattern(
        "API_KEY",
        "api key after keyword",
        r"(?<=(?i:\b(?:x-)?(?:api[_.-]?key|apikey|api[_.-]?token|access[_.-]?token"
        r"|auth[_.-]?token|token|bearer|authorization|client[_.-]?secret)\b)"
        r"""["']?\s*[:=]?\s*["']?(?i:(?:bearer|token|basic)\s+)?)""" + _KEYISH,
        0.8,
    ),
)


def secret_entities() -> list[str]:
    """Entity names our secret patterns produce, in table order without repeats."""
    return list(dict.fromkeys(p.entity for p in SECRET_PATTERNS))


def build_secret_recognizers() -> list[PatternRecognizer]:
    """One Presidio recognizer per entity, holding all of that entity's patterns."""
    from presidio_analyzer import Pattern, PatternRecognizer

    recognizers = []
    for entity in secret_entities():
        mine = [p for p in SECRET_PATTERNS if p.entity == entity]
        context = sorted({word for p in mine for word in p.context})
        recognizers.append(
            PatternRecognizer(
                supported_entity=entity,
                name=f"{entity.title().replace('_', '')}Recognizer",
                patterns=[Pattern(p.name, p.regex, p.score) for p in mine],
                context=context,
                global_regex_flags=_FLAGS,
            )
        )
    return recognizers
