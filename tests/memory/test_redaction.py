"""Redaction with real Presidio: secrets and PII are replaced, ops text is not (issue 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from memory.errors import RedactionConfigError, RedactionFailed
from memory.redaction.redactor import Finding, Redacted, RedactionPolicy, Redactor


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    """One default Redactor per module: building Presidio takes about a second."""
    r = Redactor()
    r.redact_sync("warm up")
    return r


@pytest.fixture(scope="module")
def ip_redactor() -> Redactor:
    r = Redactor(RedactionPolicy(redact_ip_addresses=True))
    r.redact_sync("warm up")
    return r


SECRETS = [
    ("AWS_ACCESS_KEY", "aws key id {v} in the deploy role", "AKIAIOSFODNN7EXAMPLE"),
    ("AWS_ACCESS_KEY", "temporary creds {v}", "ASIAY34FZKBOKMUTVV7A"),
    ("AWS_SECRET_KEY", "aws secret key: {v}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("AWS_SECRET_KEY", "AWS_SECRET_ACCESS_KEY={v}", "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"),
    ("SLACK_TOKEN", "SLACK_BOT_TOKEN={v}", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrSt"),
    ("SLACK_TOKEN", "user token {v} leaked", "xoxp-123456789012-123456789012-1234567890-abcdef"),
    ("SLACK_TOKEN", "socket mode {v}", "xapp-1-A0123456789-1234567890123-abcdef0123456789"),
    ("SLACK_TOKEN", "refresh with {v}", "xoxe-1-My0xLTEyMzQ1Njc4OTAxMi0xMjM0NTY3ODkw"),
    (
        "SLACK_WEBHOOK_URL",
        "alerts go to {v} now",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    ("GITHUB_TOKEN", "cloned with {v}", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("GITHUB_TOKEN", "app token {v}", "ghs_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("GITHUB_TOKEN", "pat {v}", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    (
        "JWT",
        "session cookie {v} expired",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
        ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("PASSWORD", "DATABASE_URL=postgres://app:{v}@db-primary-01.prod.example.com/pay", "s3cr3tP4"),
    ("PASSWORD", "redis://:{v}@cache-01:6379/0 refused", "onlyPass99"),
    ("PASSWORD", "tried password={v} on the replica", "hunter2"),
    ("PASSWORD", "passwd: {v}", "correcthorse"),
    ("PASSWORD", "pwd={v}", "abc123"),
    ("PASSWORD", "client secret={v}", "shh-its-a-secret"),
    ("PASSWORD", 'config {{"password": "{v}"}}', "two words"),
    (
        "PRIVATE_KEY",
        "key was:\n{v}\nplease rotate",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq98\nQ2kK0+abcd==\n"
        "-----END RSA PRIVATE KEY-----",
    ),
    (
        "PRIVATE_KEY",
        "truncated paste {v}",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    ("API_KEY", "curl -H 'Authorization: Bearer {v}'", "abcdef1234567890abcdef"),
    ("API_KEY", "api_key={v} in the env", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("API_KEY", "X-API-Key: {v}", "3b9f0c2d7e1a4b6c8d0e2f4a"),
    ("API_KEY", "token {v}", "a8f5f167f44f4964e6c998dee827110c9"),
]


@pytest.mark.parametrize(("entity", "template", "value"), SECRETS)
async def test_each_secret_kind_is_replaced_by_its_tag(
    redactor: Redactor, entity: str, template: str, value: str
) -> None:
    text = template.format(v=value)
    out = await redactor.redact(text)
    assert out.text == template.format(v=f"<{entity}>")
    assert value not in out.text
    assert value not in json.dumps(out.as_dict())
    assert out.findings == (Finding(entity, 1),)


async def test_aws_secret_shape_without_aws_or_secret_nearby_is_kept(redactor: Redactor) -> None:
    """The bare 40-character shape scores low; only context words lift it (issue 2)."""
    text = "cache key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY was evicted"
    assert (await redactor.redact(text)).text == text
    out = await redactor.redact("the aws secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY now")
    assert out.text == "the aws secret is <AWS_SECRET_KEY> now"


PII = [
    ("EMAIL_ADDRESS", "jane.doe@example.com"),
    ("PHONE_NUMBER", "(212) 555-0198"),
    ("CREDIT_CARD", "4111 1111 1111 1111"),
    ("US_SSN", "536-22-8726"),
    ("IBAN_CODE", "DE89 3704 0044 0532 0130 00"),
    ("CRYPTO", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"),
]


@pytest.mark.parametrize(("entity", "value"), PII)
async def test_each_default_pii_kind_is_replaced_by_its_tag(
    redactor: Redactor, entity: str, value: str
) -> None:
    out = await redactor.redact(f"customer gave {value} in the ticket")
    assert out.text == f"customer gave <{entity}> in the ticket"
    assert out.findings == (Finding(entity, 1),)


async def test_several_kinds_in_one_text_are_counted_per_kind(redactor: Redactor) -> None:
    text = (
        "Refund for jane@example.com and bob@example.org, card 4111 1111 1111 1111, "
        "call (212) 555-0198; bot used xoxb-123456789012-1234567890123-AbCdEfGhIjKl "
        "and password=hunter2"
    )
    out = await redactor.redact(text)
    assert out.findings == (
        Finding("CREDIT_CARD", 1),
        Finding("EMAIL_ADDRESS", 2),
        Finding("PASSWORD", 1),
        Finding("PHONE_NUMBER", 1),
        Finding("SLACK_TOKEN", 1),
    )
    assert out.text.count("<EMAIL_ADDRESS>") == 2
    assert out.removed_any


OPS_LINES = [
    "payments-api returned HTTP 503 for 14 minutes starting 14:32 UTC",
    "ECONNRESET from checkout-svc to ledger-svc, retries exhausted",
    "pod api-7d9f8b6c5-x2k4j exited with exit code 137 (OOMKilled)",
    "rolled out v2.3.1 to the 1.27.4 cluster at 2026-11-30T12:00Z",
    "ip-10-0-1-23.ec2.internal stopped answering health checks",
    "failover to db-primary-01.prod.example.com finished in 4000 ms",
    "reverted commit a1b2c3d, error rate back to 0.02%",
    "full sha 3f9a1c2e4b5d6f708192a3b4c5d6e7f801234567 is the bad build",
    "p99 latency went from 230ms to 2.3s; 1,234 req/s at peak",
    "disk on node-pool-b-5f6g7 at 93% after 6h12m",
    "INC-1234 opened by on-call, sev2, runbook payments/restart-workers",
    "kubectl rollout restart deployment/checkout-svc -n payments",
    "see https://grafana.example.com/d/abc123/payments?orgId=1&from=now-6h",
    "token expired for payments-api; authorization header missing on retry",
    "password reset emails delayed by 20 minutes",
    "Kafka consumer lag 125000 on topic orders.v2 partition 7",
    "TLS handshake timeout to 443 after cert rotation at 09:15",
    "build 20261130.3 failed: npm ERR! code E404",
    "GC pause 1.8s on JVM with -Xmx4g, heap 3.9/4.0 GiB",
    "redis cluster slot 5461 migrating, MOVED errors 2% of requests",
    "Terraform plan: 3 to add, 1 to change, 0 to destroy",
    "pid 31337 uid 1000 held the lock on /var/lib/postgresql/data",
    "error budget burn 14.4x over 1h, page sent to #sre-oncall",
    "CPU throttling 40% on checkout-svc since 1.27 upgrade; limit 500m",
    "DNS SERVFAIL for api.internal from 10:02 to 10:09 (7 min)",
    "S3 bucket logs-prod-eu-west-1 returned 403 AccessDenied",
]


@pytest.mark.parametrize("line", OPS_LINES)
async def test_ordinary_ops_text_comes_back_identical(redactor: Redactor, line: str) -> None:
    out = await redactor.redact(line)
    assert out == Redacted(text=line, findings=())
    assert not out.removed_any


async def test_unicode_emoji_and_rtl_text_survive_and_pii_inside_is_redacted(
    redactor: Redactor,
) -> None:
    text = "🔥 Störung bei Zahlungen — שגיאה בשרת 💥 kontakt: jürgen@example.com ✅ 日本語のログ"
    out = await redactor.redact(text)
    assert out.text == text.replace("jürgen@example.com", "<EMAIL_ADDRESS>")
    assert out.findings == (Finding("EMAIL_ADDRESS", 1),)


async def test_100k_character_input_is_redacted_everywhere(redactor: Redactor) -> None:
    line = "checkout-svc 503 at 14:32 UTC, retrying with backoff 250ms.\n"
    secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    text = line * 850 + f"leaked {secret}\n" + line * 850
    assert len(text) > 100_000
    out = await redactor.redact(text)
    assert secret not in out.text
    assert out.text == text.replace(secret, "<GITHUB_TOKEN>")
    assert out.findings == (Finding("GITHUB_TOKEN", 1),)


async def test_findings_and_json_never_contain_the_original_values(redactor: Redactor) -> None:
    values = ["jane@example.com", "hunter2", "AKIAIOSFODNN7EXAMPLE"]
    out = await redactor.redact(f"{values[0]} password={values[1]} key {values[2]}")
    dumped = json.dumps(out.as_dict()) + repr(out.findings)
    for value in values:
        assert value not in dumped
    assert out.as_dict()["findings"] == [
        {"entity_type": "AWS_ACCESS_KEY", "count": 1},
        {"entity_type": "EMAIL_ADDRESS", "count": 1},
        {"entity_type": "PASSWORD", "count": 1},
    ]


async def test_ip_addresses_are_kept_by_default_and_redacted_when_policy_says_so(
    redactor: Redactor, ip_redactor: Redactor
) -> None:
    text = "node 10.0.1.23 and fe80::1ff:fe23:4567:890a dropped"
    assert (await redactor.redact(text)).text == text
    out = await ip_redactor.redact(text)
    assert out.text == "node <IP_ADDRESS> and <IP_ADDRESS> dropped"
    assert out.findings == (Finding("IP_ADDRESS", 2),)


async def test_analysis_error_fails_closed_without_quoting_the_text(redactor: Redactor) -> None:
    # The `redactor` fixture has built Presidio (and set its offline switch) before this import.
    from presidio_analyzer import EntityRecognizer

    class Exploding(EntityRecognizer):
        def load(self) -> None:
            pass

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list:
            raise RuntimeError(f"cannot handle {text}")

    broken = Redactor(extra_recognizers=[Exploding(supported_entities=["BOOM"])])
    text = "password=hunter2 in payments"
    with pytest.raises(RedactionFailed) as caught:
        await broken.redact(text)
    assert "hunter2" not in str(caught.value)
    assert caught.value.__cause__ is None
    with pytest.raises(RedactionFailed):
        await broken.redact_many(["fine", text])


async def test_redact_many_matches_one_by_one(redactor: Redactor) -> None:
    texts = ["plain line", "mail bob@example.org", "", "pwd=abc123"]
    assert await redactor.redact_many(texts) == [redactor.redact_sync(t) for t in texts]


async def test_warm_up_builds_and_recognizers_are_listed() -> None:
    r = Redactor()
    await r.warm_up()
    names = r.recognizer_names()
    assert {"EmailRecognizer", "SlackTokenRecognizer", "PrivateKeyRecognizer"} <= set(names)
    assert "IpRecognizer" not in names


def test_person_names_without_a_model_is_a_config_error() -> None:
    with pytest.raises(RedactionConfigError, match="NER model"):
        Redactor(RedactionPolicy(redact_person_names=True))


async def test_person_names_with_a_missing_model_is_a_config_error_not_a_download() -> None:
    r = Redactor(RedactionPolicy(redact_person_names=True, ner_model="xx_no_such_model"))
    with pytest.raises(RedactionConfigError, match="xx_no_such_model is not installed"):
        await r.redact("Alice restarted the pod")


def test_importing_redaction_loads_no_presidio() -> None:
    code = "import sys, memory.redaction.redactor; print('presidio_analyzer' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_adjacent_values_of_one_kind_are_each_counted(redactor: Redactor) -> None:
    """Each value gets its own tag and its own count (Presidio's anonymizer used to merge
    whitespace-separated values of one type into one tag; issue 16 replaced it)."""
    result = await redactor.redact("cc a@example.com b@example.com c@example.org")
    assert result.text == "cc <EMAIL_ADDRESS> <EMAIL_ADDRESS> <EMAIL_ADDRESS>"
    assert {f.entity_type: f.count for f in result.findings} == {"EMAIL_ADDRESS": 3}


def boosted(text: str, *, context: list[str] | None = None, enhanced: bool = False) -> list[float]:
    """Scores after the context layer, built in this test, for a 4-digit "PIN" recognizer
    whose context word is "pin" (base score 0.3)."""
    from presidio_analyzer import Pattern, PatternRecognizer

    from memory.redaction.context import build_context_enhancer, word_artifacts

    pins = PatternRecognizer(
        supported_entity="PIN", patterns=[Pattern("pin", r"\b\d{4}\b", 0.3)], context=["pin"]
    )
    results = pins.analyze(text, ["PIN"])
    for r in results:
        r.recognition_metadata[r.IS_SCORE_ENHANCED_BY_CONTEXT_KEY] = enhanced
    artifacts = word_artifacts(text, language="en")
    out = build_context_enhancer().enhance_using_context(text, results, artifacts, [pins], context)
    return [round(r.score, 2) for r in out]


@pytest.mark.parametrize(
    ("text", "scores"),
    [
        ("door pin 4821 today", [0.65]),  # a context word just before: +0.35
        ("4821 is the door pin", [0.3]),  # after it does not count (no suffix words)
        ("build 4821 finished", [0.3]),  # none near: unchanged
        ("pin " + "alpha " * 45 + "4821", [0.3]),  # too many words away
        ("pin code 1111 and 2222", [0.65, 0.65]),  # each result judged on its own
    ],
)
def test_the_context_layer_alone_raises_a_score_only_next_to_a_context_word(
    text: str, scores: list[float]
) -> None:
    assert boosted(text) == scores


def test_the_context_layer_takes_caller_words_and_skips_results_already_enhanced() -> None:
    assert boosted("build 4821 finished", context=["PIN"]) == [0.65]
    assert boosted("door pin 4821 today", enhanced=True) == [0.3]
