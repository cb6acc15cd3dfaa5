"""The secret catalogue (issue 16): every probe kind is removed, ops text around it is kept,
each layer (our patterns, detect-secrets, entropy) catches on its own, pathological input ends.

Secret-shaped values are built by concatenation so this file holds no scanner-triggering literal.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from memory.redaction.detectors import build_detector_recognizers
from memory.redaction.redactor import Redactor
from memory.redaction.secrets import build_secret_recognizers

PROBES = Path(__file__).parent / "probes" / "secrets.jsonl"
_PROBES = [json.loads(line) for line in PROBES.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    """One default Redactor per module: building Presidio takes about a second."""
    r = Redactor()
    r.redact_sync("warm up")
    return r


def _probe_id(probe: dict[str, Any]) -> str:
    return f"{probe['family']}:{_PROBES.index(probe)}"


def test_probe_file_covers_every_kind_the_issue_lists() -> None:
    families = {p["family"] for p in _PROBES}
    assert families >= {
        "aws", "gcp", "azure", "github", "gitlab", "package", "stripe", "openai", "anthropic",
        "slack", "sendgrid", "twilio", "mailgun", "datadog", "newrelic", "pagerduty", "sentry",
        "vault", "digitalocean", "heroku", "shopify", "telegram", "discord", "jwt", "pem",
        "url_password", "assignment", "cli", "entropy",
    }  # fmt: skip
    assert all(p["must_not_contain"] and p["must_keep"] for p in _PROBES)


@pytest.mark.parametrize("probe", _PROBES, ids=_probe_id)
def test_probe_leaks_nothing_and_keeps_its_ops_words(redactor: Redactor, probe: dict) -> None:
    out = redactor.redact_sync(probe["text"])
    leaked = [v for v in probe["must_not_contain"] if v in out.text]
    assert leaked == []
    lost = [w for w in probe["must_keep"] if w not in out.text]
    assert lost == []
    assert out.removed_any


OPS_NEAR_SECRET_WORDS = [
    "token expired for payments-api after 3600s",
    "password reset flow broken since v2.3.1",
    "the secret sauce is caching",
    "token refresh failed at commit 3f9a1c2e4b5d6f708192a3b4c5d6e7f801234567",
    "api key rotation for trace 4bf92f3577b34da6a3ce929d0e0e4736 done",
    "secret payments-db-creds-v2 mounted on api-7d9f8b6c5-x2k4j",
    "image sha256:9b2a4f6c0e1d3b5a7c9e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e pulled",
    "request_id=0f8fad5b-d9cb-469f-a165-70867728950e token=null",
    "idempotency_key=7f3a2b1c-0d9e-4f8a-b7c6-5d4e3f2a1b0c replayed",
    "password: ${DB_PASSWORD}",
    "--token-file /var/run/secrets/kubernetes.io/serviceaccount/token",
    "docker run -u 1000:1000 -p 8080:80 nginx:1.27.3",
    "ssh -p 2222 ops@bastion-01",
    "mysql -h db-0 -P 3306 --protocol=tcp",
    "cache_key=user:1234:profile, sort_key: created_at",
    "GIT_SHA=3f9a1c2e4b5d6f708192a3b4c5d6e7f801234567",
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "token bucket limit 500 req/s, burst 1000",
    "sk-payments-worker-2 restarted; glpat- prefix tokens are revoked",
    "ECONNREFUSED 10.0.3.4:5432 - password authentication failed for user app",
]


@pytest.mark.parametrize("line", OPS_NEAR_SECRET_WORDS)
def test_ops_text_next_to_secret_words_is_kept(redactor: Redactor, line: str) -> None:
    assert redactor.redact_sync(line).text == line


def _analyze(recognizers: list, text: str) -> list[tuple[str, str]]:
    found = []
    for r in recognizers:
        for res in r.analyze(text, r.supported_entities, None):
            if res.score >= 0.4:
                found.append((res.entity_type, text[res.start : res.end]))
    return found


def test_our_patterns_redact_the_value_after_a_name_matched_after_underscore() -> None:
    """`\\bKEY` does not match after `_`; DD_API_KEY=, PGPASSWORD=, DB_PASS= must (issue 16)."""
    hex32 = "9f3b" * 8
    pw = "Tr0ub4" + "dor&3"
    text = f"DD_API_KEY={hex32}\nPGPASSWORD={pw} psql -h db-0\nDB_PASS={pw}"
    found = _analyze(build_secret_recognizers(), text)
    assert ("API_KEY", hex32) in found
    assert found.count(("PASSWORD", pw)) == 2


def test_detect_secrets_layer_finds_a_kind_only_it_knows() -> None:
    """Square OAuth secrets are in detect-secrets' plugins, not in our table."""
    value = "sq0csp-" + "AbCdEfGhIj0123456789" + "KlMnOpQrStUvWxYz_-01234"
    text = f"square webhook failing with {value} in env"
    assert _analyze(build_secret_recognizers(), text) == []
    found = _analyze(build_detector_recognizers(), text)
    assert ("API_KEY", value) in found


def test_entropy_layer_finds_a_random_value_after_a_secret_word() -> None:
    value = "Zq8#" + "vL2m" + "Rx9!pK4w"
    text = f"the new password is {value} until Friday"
    assert _analyze(build_secret_recognizers(), text) == []
    assert ("PASSWORD", value) in _analyze(build_detector_recognizers(), text)
    # the same shape without a secret word nearby is not a secret
    assert _analyze(build_detector_recognizers(), f"build {value} until Friday") == []


@pytest.mark.parametrize(
    "text",
    [
        "```xoxb-{a}-\n{b}-{c}```",
        "> xoxp-{a}-\n> {b}-{c}",
        "token `xoxb-{a}`-`{b}-{c}` in the runbook",
    ],
)
def test_slack_token_tail_split_across_lines_or_code_fences_is_removed(
    redactor: Redactor, text: str
) -> None:
    a, b, c = "1234" + "56789012", "98765" + "43210123", "AbCdEfGh" + "IjKlMnOp" + "QrStUv12"
    out = redactor.redact_sync(text.format(a=a, b=b, c=c)).text
    assert a not in out and b not in out and c not in out


@pytest.mark.parametrize(
    ("command", "kept"),
    [
        ("mysql -h db-0 -u root -p{pw} app", "mysql -h db-0 -u root -p"),
        ("redis-cli -h cache-01 -a {pw} info", "info"),
        ("curl -u admin:{pw} https://jenkins.internal/job/x", "https://jenkins.internal/job/x"),
        ("psql --password {pw} -h db-0", "-h db-0"),
        ("mysqldump --password={pw} app", "mysqldump --password="),
    ],
)
def test_cli_credential_flags_lose_the_value_only(
    redactor: Redactor, command: str, kept: str
) -> None:
    pw = "S3cr" + "etPw0rd9"
    out = redactor.redact_sync(command.format(pw=pw)).text
    assert pw not in out
    assert kept in out


def test_detection_never_opens_a_socket(
    redactor: Redactor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """detect-secrets can verify keys online; we never call that, so no connection is tried."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("redaction tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    text = "\n".join(p["text"] for p in _PROBES[:60])
    out = redactor.redact_sync(text)
    assert out.removed_any


@pytest.mark.parametrize(
    "seed",
    ["xoxb-", "xoxb-1-\n", "key=", "token ", "-----BEGIN ", "a://b:", "eyJ.", "--password "],
)
def test_pathological_input_yields_a_result(redactor: Redactor, seed: str) -> None:
    """Runs that made patterns backtrack still end (speed is measured by bench.redaction)."""
    text = (seed * (20_000 // len(seed) + 1))[:20_000]
    assert isinstance(redactor.redact_sync(text).text, str)


def test_unclosed_pem_block_is_removed_to_the_end(redactor: Redactor) -> None:
    body = "MIIEpAIBAAKCAQEA7bq98" + "Q2kK0abcd" * 400
    out = redactor.redact_sync("key:\n-----BEGIN RSA PRIVATE KEY-----\n" + body).text
    assert out == "key:\n<PRIVATE_KEY>"


def entropy_layer(text: str) -> list[tuple[str, str, float]]:
    """What the entropy recognizer, built in this test, finds alone: (entity, value, score)."""
    (_, entropy) = build_detector_recognizers()
    assert entropy.name == "EntropyRecognizer"
    return [
        (r.entity_type, text[r.start : r.end], r.score)
        for r in entropy.analyze(text, entropy.supported_entities, None)
    ]


RANDOM = "Zq8v" + "L2mR" + "x9pK4wT7"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"api key: {RANDOM}", [("API_KEY", RANDOM)]),
        (f"the webhook token for the bot was {RANDOM}", [("API_KEY", RANDOM)]),  # fillers
        (f"db passwd = {RANDOM} until rotation", [("PASSWORD", RANDOM)]),
        (f"Bearer {RANDOM}", [("API_KEY", RANDOM)]),
        (f"token rotated on node-7 after the {RANDOM}", []),  # five words away
        (f"build {RANDOM} green", []),  # no secret word at all
        (f"{RANDOM} is the token", []),  # the word comes after the value
        ("password is checkout-db-primary-7x", []),  # no upper case: a name
        (f"token https://{RANDOM}.example.com/x", []),  # a URL
        (f"secret /srv/{RANDOM}/keys", []),  # a path
        ("secret AAAAaaaa1111bbbb", []),  # the upper/lower/digit mix, but low entropy
    ],
)
def test_the_entropy_layer_alone_needs_a_random_value_just_after_a_secret_word(
    text: str, found: list[tuple[str, str]]
) -> None:
    got = entropy_layer(text)
    assert [(e, v) for e, v, _ in got] == found
    assert {s for _, _, s in got} <= {0.42}  # under our own patterns, over the threshold


def detect_secrets_layer(text: str) -> list[tuple[str, str, float]]:
    (plugins, _) = build_detector_recognizers()
    assert plugins.name == "DetectSecretsRecognizer"
    return sorted(
        (r.entity_type, text[r.start : r.end], r.score)
        for r in plugins.analyze(text, plugins.supported_entities, None)
    )


def test_the_detect_secrets_layer_alone_labels_what_each_plugin_finds() -> None:
    aws = "AKIA" + "IOSFODNN7EXAMPLE"
    text = f"leaked {aws} twice: {aws}"
    assert [(e, v) for e, v, _ in detect_secrets_layer(text)] == [
        ("AWS_ACCESS_KEY", aws),
        ("AWS_ACCESS_KEY", aws),
    ]
    assert {s for _, _, s in detect_secrets_layer(text)} == {0.85}
    jwt = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".c2lnbmF0dXJlLXZhbHVlLTAxMjM0"
    # the plugin's match stops before the signature; our own JWT pattern takes the whole token
    assert [e for e, v, _ in detect_secrets_layer(f"auth header {jwt}") if jwt.startswith(v)] == [
        "JWT"
    ]


def test_the_detect_secrets_layer_keeps_only_high_entropy_quoted_strings() -> None:
    quoted = "'" + "hY3kP9" + "qW2zR7" + "tL5mN8" + "vB4xC6" + "'"
    assert ("API_KEY", quoted.strip("'")) in [
        (e, v) for e, v, _ in detect_secrets_layer(f"export X={quoted}")
    ]
    assert detect_secrets_layer("echo 'hello world, all good'") == []
