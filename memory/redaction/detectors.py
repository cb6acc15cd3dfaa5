"""Second opinions on secrets: Yelp's detect-secrets plugins, and entropy next to a secret word.

detect-secrets runs offline here: only each plugin's `analyze_string` (regexes) is called,
never `verify` (the one part that talks to a network), and only plugins whose regexes were
checked to run in linear time on 40,000-character pathological lines (issue 16).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from presidio_analyzer import EntityRecognizer

# detect-secrets plugin class -> our entity. Left out: KeywordDetector and the IBM, Cloudant
# and Softlayer detectors (`(?: *)(?:=| +)(?: *)` backtracks cubically on a run of spaces),
# NpmDetector (`//.+/` is quadratic on a run of slashes), HexHighEntropyString (flags git
# SHAs), PrivateKeyDetector (finds only the BEGIN line; ours takes the whole block).
_PLUGINS: dict[str, str] = {
    "artifactory.ArtifactoryDetector": "API_KEY",
    "aws.AWSKeyDetector": "AWS_ACCESS_KEY",
    "azure_storage_key.AzureStorageKeyDetector": "AZURE_KEY",
    "basic_auth.BasicAuthDetector": "PASSWORD",
    "discord.DiscordBotTokenDetector": "API_KEY",
    "github_token.GitHubTokenDetector": "GITHUB_TOKEN",
    "gitlab_token.GitLabTokenDetector": "GITLAB_TOKEN",
    "jwt.JwtTokenDetector": "JWT",
    "mailchimp.MailchimpDetector": "API_KEY",
    "openai.OpenAIDetector": "API_KEY",
    "pypi_token.PypiTokenDetector": "PACKAGE_TOKEN",
    "sendgrid.SendGridDetector": "API_KEY",
    "slack.SlackDetector": "SLACK_TOKEN",
    "square_oauth.SquareOAuthDetector": "API_KEY",
    "stripe.StripeDetector": "API_KEY",
    "telegram_token.TelegramBotTokenDetector": "API_KEY",
    "twilio.TwilioKeyDetector": "API_KEY",
    "high_entropy_strings.Base64HighEntropyString": "API_KEY",
}
# Below our own patterns' 0.9, so where both find a value our label wins the overlap.
_DETECT_SECRETS_SCORE = 0.85

# Entropy layer: a value within a few words after one of these is a secret if it looks random.
_SECRET_WORD = (
    r"(?i:password|passwd|passphrase|pwd|secret|token|api[_ .-]?key|apikey|credentials?"
    r"|private[_ .-]?key|access[_ .-]?key|auth|bearer)(?![A-Za-z])"
)
# Every _SECRET_WORD match contains one of these; a text with none skips the scan.
_SECRET_WORD_NEEDLES = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "bearer")
_CANDIDATE = r"[^\s\"'`<>(),;]{10,200}+"
# The secret word is one of the last few words before the value (`secret for the webhook
# was X`), within this many characters; fillers (`is`, `:`) do not count.
_WINDOW_WORDS = 4
_WINDOW_CHARS = 80
_FILLER = frozenset({"is", "was", "=", ":", "-", "of", "the", "a", "for", "to", "->"})
# Shannon entropy in bits per character. Random base64 of 16+ characters is about 4; English
# words, versions and pod names are under 3.5 and lack the upper/lower/digit mix we also ask.
_MIN_ENTROPY = 3.5
# Just over the 0.4 threshold and under every other match (a context-lifted AWS secret is
# 0.45), so a specific recognizer keeps its label where both find the same value.
_ENTROPY_SCORE = 0.42
_PASSWORD_WORDS = ("pass", "pwd", "secret")


def build_detector_recognizers() -> list[EntityRecognizer]:
    """The detect-secrets recognizer and the entropy recognizer, ready for the registry."""
    return [_detect_secrets_recognizer(), _entropy_recognizer()]


def _detect_secrets_recognizer() -> EntityRecognizer:
    import importlib

    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
    from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

    plugins = []
    for dotted, entity in _PLUGINS.items():
        module, cls = dotted.rsplit(".", 1)
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)()
        plugins.append((plugin, entity))

    class DetectSecretsRecognizer(EntityRecognizer):
        def load(self) -> None:
            pass

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list:
            # Whole text per plugin, not per line: 18 calls, not 18 per line (a 40,000-char
            # paste of short lines cost half a second). Their regexes do not cross newlines.
            results = []
            for plugin, entity in plugins:
                found = plugin.analyze_string(text)
                if isinstance(plugin, HighEntropyStringsPlugin):
                    # this plugin yields every quoted string; the limit is checked by callers
                    limit = plugin.entropy_limit
                    found = (s for s in found if plugin.calculate_shannon_entropy(s) > limit)
                for start, end in _spans(text, found):
                    results.append(
                        RecognizerResult(
                            entity_type=entity,
                            start=start,
                            end=end,
                            score=_DETECT_SECRETS_SCORE,
                            analysis_explanation=AnalysisExplanation(
                                recognizer="DetectSecretsRecognizer",
                                original_score=_DETECT_SECRETS_SCORE,
                                pattern_name=plugin.secret_type,
                            ),
                            recognition_metadata={
                                RecognizerResult.RECOGNIZER_NAME_KEY: "DetectSecretsRecognizer",
                                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                            },
                        )
                    )
            return results

    return DetectSecretsRecognizer(
        supported_entities=sorted(set(_PLUGINS.values())), name="DetectSecretsRecognizer"
    )


def _spans(line: str, secrets: Any) -> list[tuple[int, int]]:
    """Where each value a plugin yielded sits in the line (plugins give values, not offsets)."""
    spans = []
    for secret in set(secrets):
        if not secret:
            continue
        at = line.find(secret)
        while at >= 0:
            spans.append((at, at + len(secret)))
            at = line.find(secret, at + len(secret))
    return spans


def _entropy_recognizer() -> EntityRecognizer:
    import regex
    from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

    # Candidates first (random-looking words are rare), then a secret word in the few words
    # before each: a message of 40,000 characters of "token " costs one scan, not one per word.
    candidates = regex.compile(r"(?<![^\s\"'`<>(),;=:])" + _CANDIDATE)
    secret_word = regex.compile(_SECRET_WORD)

    class EntropyRecognizer(EntityRecognizer):
        def load(self) -> None:
            pass

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list:
            results: list[Any] = []
            lowered = text.lower()
            if not any(n in lowered for n in _SECRET_WORD_NEEDLES):
                return results
            for m in candidates.finditer(text, timeout=5.0):
                value = m.group()
                if not _looks_random(value) or _entropy(value) < _MIN_ENTROPY:
                    continue
                before = text[max(0, m.start() - _WINDOW_CHARS) : m.start()]
                words = [w for w in before.split() if w.lower() not in _FILLER][-_WINDOW_WORDS:]
                found = secret_word.search(" ".join(words))
                if found is None:
                    continue
                password = any(w in found.group().lower() for w in _PASSWORD_WORDS)
                entity = "PASSWORD" if password else "API_KEY"
                results.append(
                    RecognizerResult(
                        entity_type=entity,
                        start=m.start(),
                        end=m.end(),
                        score=_ENTROPY_SCORE,
                        analysis_explanation=AnalysisExplanation(
                            recognizer="EntropyRecognizer",
                            original_score=_ENTROPY_SCORE,
                            pattern_name="high entropy after a secret word",
                        ),
                        recognition_metadata={
                            RecognizerResult.RECOGNIZER_NAME_KEY: "EntropyRecognizer",
                            RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                        },
                    )
                )
            return results

    return EntropyRecognizer(supported_entities=["API_KEY", "PASSWORD"], name="EntropyRecognizer")


def _entropy(value: str) -> float:
    """Shannon entropy of the value's own characters, in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    """Upper, lower and digit all present, and not a URL or path: pod names, versions, SHAs,
    UUIDs and hostnames fail this."""
    if "://" in value or value.startswith("/"):
        return False
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )
