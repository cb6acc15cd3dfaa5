"""The secret patterns' recognizers on their own: one per entity, what each result says (the
entity, the exact span, the score, which pattern found it) and that only a pattern's value group
is redacted, never its key (issue 16). tests/memory/test_secret_catalogue.py has the probes.

Secret-shaped values are built by concatenation so this file holds no scanner-triggering literal.
"""

from __future__ import annotations

from typing import Any

import pytest

from memory.redaction.redactor import Redactor
from memory.redaction.secrets import SECRET_PATTERNS, build_secret_recognizers, secret_entities

AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"


@pytest.fixture
def recognizers() -> dict[str, Any]:
    """Built for each test (cheap), so each test exercises the building code too."""
    return {r.supported_entities[0]: r for r in build_secret_recognizers()}


def found(recognizers: dict[str, Any], entity: str, text: str) -> list[tuple[str, str, float]]:
    """(entity, the text of the span, score) of each result of `entity`'s recognizer."""
    results = recognizers[entity].analyze(text, [entity])
    return [(r.entity_type, text[r.start : r.end], r.score) for r in results]


def test_the_entities_are_the_tables_in_order_once_each() -> None:
    assert secret_entities() == [
        "AWS_ACCESS_KEY", "AWS_SECRET_KEY", "AWS_SESSION_TOKEN", "AZURE_KEY", "API_KEY",
        "GITHUB_TOKEN", "GITLAB_TOKEN", "PACKAGE_TOKEN", "SLACK_TOKEN", "SLACK_WEBHOOK_URL",
        "JWT", "PRIVATE_KEY", "PASSWORD",
    ]  # fmt: skip


def test_one_named_recognizer_per_entity_holds_all_of_its_patterns() -> None:
    built = build_secret_recognizers()
    assert [r.supported_entities for r in built] == [[e] for e in secret_entities()]
    names = {r.supported_entities[0]: r.name for r in built}
    assert names["AWS_SECRET_KEY"] == "AwsSecretKeyRecognizer"
    assert names["SLACK_WEBHOOK_URL"] == "SlackWebhookUrlRecognizer"
    assert names["JWT"] == "JwtRecognizer"
    for r in built:
        mine = [p for p in SECRET_PATTERNS if p.entity == r.supported_entities[0]]
        assert [(p.name, p.score) for p in r.patterns] == [(p.name, p.score) for p in mine]
    context = {r.supported_entities[0]: r.context for r in built}
    assert context["AWS_SECRET_KEY"] == ["aws", "secret"]  # sorted, once each
    assert context["PASSWORD"] == []


def test_a_pattern_with_a_value_group_reports_the_value_only(
    recognizers: dict[str, Any],
) -> None:
    text = "export DB_PASSWORD=hunter2x && psql"
    assert found(recognizers, "PASSWORD", text) == [("PASSWORD", "hunter2x", 0.9)]
    text = f"aws_secret_access_key = {AWS_SECRET}"
    assert found(recognizers, "AWS_SECRET_KEY", text) == [
        ("AWS_SECRET_KEY", AWS_SECRET, 0.1),  # the bare shape, weak until context lifts it
        ("AWS_SECRET_KEY", AWS_SECRET, 0.95),  # the assignment: its value only
    ]


def test_a_pattern_without_a_value_group_reports_the_whole_match(
    recognizers: dict[str, Any],
) -> None:
    text = f"key ids {AWS_KEY_ID} and {AWS_KEY_ID[:-1]}Z rotated"
    assert found(recognizers, "AWS_ACCESS_KEY", text) == [
        ("AWS_ACCESS_KEY", AWS_KEY_ID, 0.9),
        ("AWS_ACCESS_KEY", AWS_KEY_ID[:-1] + "Z", 0.9),
    ]


def test_the_alternative_without_the_value_group_reports_its_whole_match(
    recognizers: dict[str, Any],
) -> None:
    """The session-token pattern has a named-key alternative (value group) and a bare-token
    one (no group): each reports what it should."""
    token = "FwoGZXIvYXdzE" + "A1b2C3d4" * 6
    assert found(recognizers, "AWS_SESSION_TOKEN", f"creds {token} end") == [
        ("AWS_SESSION_TOKEN", token, 0.95)
    ]
    named = f"AWS_SESSION_TOKEN={token}"
    assert found(recognizers, "AWS_SESSION_TOKEN", named) == [("AWS_SESSION_TOKEN", token, 0.95)]


def test_needles_are_matched_case_blind_and_only_skip_texts_that_cannot_match(
    recognizers: dict[str, Any],
) -> None:
    key = "abcd1234" * 3
    assert found(recognizers, "API_KEY", f"X-AUTH-TOKEN: {key}") == [("API_KEY", key, 0.8)]
    assert found(recognizers, "PASSWORD", "PASSWORD: Tr0ub4dor") == [("PASSWORD", "Tr0ub4dor", 0.9)]
    assert found(recognizers, "PASSWORD", "nothing to see here") == []


def test_each_result_names_its_recognizer_and_pattern_for_the_context_layer(
    recognizers: dict[str, Any],
) -> None:
    recognizer = recognizers["PASSWORD"]
    [r] = recognizer.analyze("passwd: correcthorse", ["PASSWORD"])
    assert (r.entity_type, r.start, r.end, r.score) == ("PASSWORD", 8, 20, 0.9)
    explanation = r.analysis_explanation
    assert (explanation.recognizer, explanation.original_score, explanation.pattern_name) == (
        "PasswordRecognizer",
        0.9,
        "password assignment",
    )
    assert r.recognition_metadata == {
        r.RECOGNIZER_NAME_KEY: "PasswordRecognizer",
        r.RECOGNIZER_IDENTIFIER_KEY: recognizer.id,
    }


async def test_the_weak_aws_shape_is_redacted_only_next_to_its_context_words() -> None:
    """The context layer finds the recognizer by the identifier each result carries and lifts
    the 0.1 shape over the threshold with "aws" or "secret" nearby."""
    redactor = Redactor()
    assert (await redactor.redact(f"AWS creds {AWS_SECRET}")).text == "AWS creds <AWS_SECRET_KEY>"
    plain = f"build {AWS_SECRET} uploaded"
    assert (await redactor.redact(plain)).text == plain


def test_a_pem_key_is_matched_across_its_lines(recognizers: dict[str, Any]) -> None:
    """A PEM key spans lines: the body's `.` must cross line breaks."""
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB\nAAKCAQEA\n-----END RSA PRIVATE KEY-----"
    assert found(recognizers, "PRIVATE_KEY", f"key:\n{key}\nrotate") == [("PRIVATE_KEY", key, 0.95)]
