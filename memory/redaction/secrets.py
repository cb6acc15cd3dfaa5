"""Patterns for credentials people paste into incident channels, as Presidio recognizers.

The table is plain data so importing this module does no work; `build_secret_recognizers`
turns it into Presidio recognizers when the redaction engine is built. Every pattern runs in
linear time: repetitions are bounded or possessive, so a 40,000-character message of `=` or
`xoxb-` fragments cannot make one backtrack quadratically (issue 16).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from presidio_analyzer import EntityRecognizer

# Case-sensitive on purpose: token prefixes (AKIA, ghp_, xoxb-) are case-exact and matching
# them case-insensitively invites false positives. Keyword parts opt in with (?i:...).
# The stdlib flag values equal the `regex` module's, which we and Presidio compile with.
_FLAGS = re.DOTALL | re.MULTILINE

# Where a pattern has a group named `s`, only that group is redacted (the value, not its key).
# Not a letter or digit before a vendor prefix; `_` and `-` are fine (`TOKEN_ghp_...`).
_B = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"
# Between a key and its value: `=`, `:`, `:=`, `=>`, with optional quotes and a few spaces.
_SEP = r"""["']?[ \t]{0,3}(?::=|=>|[:=])[ \t]{0,3}"""
# A value after a key word must mix letters and digits and be long enough to be a key, so
# "token expired" or "authorization header missing" survive. Lookaheads are bounded.
_KEYISH = (
    r"(?=[A-Za-z0-9_\-.~+/]{0,200}\d)(?=[A-Za-z0-9_\-.~+/]{0,200}[A-Za-z])"
    r"[A-Za-z0-9_\-.~+/]{16,400}+=*+"
)
# The value of a password-like key: quoted whole, or up to a space or delimiter.
_PW_VALUE = (
    r"""(?:"(?P<s>[^"\r\n]{1,400})"|'(?P<s>[^'\r\n]{1,400})'"""
    r"""|(?!(?:true|false|null|none|\*+)[\s,;"']|\$\{)"""
    # `&` ends the value only where a query parameter follows (`password=x&ssl=true`).
    r"""(?P<s>(?:[^\s"',;&<>`]|&(?![A-Za-z_][A-Za-z0-9_]{0,30}=)){1,400}+))"""
)
# Names whose value is a password: password anywhere in the name (PGPASSWORD, DB_PASSWORD_1),
# passwd, passphrase, pwd, a `_pass`/`-pass` suffix (DB_PASS), secret (CLIENT_SECRET).
_PASSWORD_NAME = (
    r"(?i:(?:pass(?:word|wd|phrase)|pwd|(?<=[_.-])pass|secret)"
    r"(?:[_.-]?(?:key|token|value|[0-9]))?(?:[_.-](?:base|b64|[0-9]{1,2}))?)(?![A-Za-z])"
)
# `*_KEY` names that hold an id, not a secret: idempotency_key=<uuid> stays.
_NOT_SECRET_KEYS = (
    r"(?i:idempotency|cache|partition|sort|primary|foreign|object|row|shard|dedupe?|lookup"
    r"|group|message|event|request|trace|bucket|hash|index|unique|public)"
)
# Names whose value is a key or token: *_KEY, api_key, *_TOKEN, bearer, authorization.
_KEY_NAME = (
    # the id-name check runs after `_key` matched, not at every `_` of a long run
    r"(?:(?i:api[_.-]?key|apikey|[_.-]key(?<!"
    + _NOT_SECRET_KEYS
    + r"[_.-]key)|token|bearer|authorization|auth|credentials?"
    r"|signature|sig|dsn)|[a-z](?:Key|Token|Secret))"
    r"(?:[_.-](?i:base|value|secret|data|b64|[0-9]{1,2}))?(?![A-Za-z0-9])"
)
_SLACK_SEP = r"[\s`>*_~]{0,10}+"  # a tail split across lines, code fences or Slack formatting


@dataclass(frozen=True)
class SecretPattern:
    """One regex for one entity; `context` words raise a weak match above the threshold."""

    entity: str
    name: str
    regex: str
    score: float
    context: tuple[str, ...] = ()
    # Lowercase substrings of which any match must contain one: a text without any of them
    # skips the regex (a 40,000-character paste runs a handful of the patterns, not all).
    needles: tuple[str, ...] = ()


SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    # --- cloud
    SecretPattern(
        "AWS_ACCESS_KEY",
        "aws access key id",
        _B + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA|A3T[A-Z0-9])"
        r"[A-Z0-9]{16}" + _E,
        0.9,
    ),
    # 40 base64 characters are only a secret key when "aws"/"secret" is nearby, so the
    # bare shape scores below the threshold and Presidio's context enhancer lifts it.
    # Requiring upper and lower case keeps 40-hex git SHAs out.
    SecretPattern(
        "AWS_SECRET_KEY",
        "aws secret access key",
        # case checks look back from the end, so they run only on 40-character runs
        r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
        r"(?<=[A-Z][A-Za-z0-9/+]{0,39})(?<=[a-z][A-Za-z0-9/+]{0,39})",
        0.1,
        ("aws", "secret"),
    ),
    SecretPattern(
        "AWS_SECRET_KEY",
        "aws secret access key assignment",
        r"(?i:aws[A-Za-z0-9_.-]{0,30}?secret[A-Za-z0-9_.-]{0,20}?)" + _SEP + r"""["']?"""
        r"(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        0.95,
        needles=("aws",),
    ),
    SecretPattern(
        "AWS_SESSION_TOKEN",
        "aws session token",
        r"(?i:aws[_.-]?session[_.-]?token|aws[_.-]?security[_.-]?token|x-amz-security-token)"
        + _SEP
        + r"""["']?(?P<s>[A-Za-z0-9/+=%]{40,4000}+)"""
        r"|" + _B + r"(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+=]{40,4000}+",
        0.95,
        needles=("aws", "x-amz", "fwogzxivyxdze", "iqojb3jpz2lux2vj"),
    ),
    SecretPattern(
        "AZURE_KEY",
        "azure storage / service bus key or sas signature",
        r"(?i:AccountKey|SharedAccessKey|SharedAccessSignature|PrimaryKey|SecondaryKey)="
        r"(?P<s>[A-Za-z0-9+/=%]{20,400}+)"
        r"|[?&]sig=(?P<s>[A-Za-z0-9+/=%]{20,400}+)",
        0.95,
        needles=("accountkey=", "sharedaccess", "primarykey=", "secondarykey=", "sig="),
    ),
    SecretPattern(
        "API_KEY",
        "google api key, oauth client secret, oauth access token",
        _B
        + r"(?:AIza[0-9A-Za-z_-]{35}|GOCSPX-[0-9A-Za-z_-]{28}|ya29\.[0-9A-Za-z_-]{20,2000}+)"
        + _E,
        0.9,
        needles=("aiza", "gocspx-", "ya29."),
    ),
    SecretPattern(
        "API_KEY",
        "aws presigned url signature or credential",
        r"(?i:X-Amz-Signature)=(?P<s>[0-9a-f]{64})",
        0.9,
        needles=("x-amz-signature",),
    ),
    # --- version control and package registries
    SecretPattern(
        "GITHUB_TOKEN",
        "github token",
        _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}+|github_pat_[A-Za-z0-9_]{22,255}+)" + _E,
        0.9,
        needles=("gh",),
    ),
    SecretPattern(
        "GITLAB_TOKEN",
        "gitlab token",
        _B + r"(?:(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt|glimt|gloas|glagent|glffct)-"
        r"[A-Za-z0-9_.-]{20,1024}+|GR1348941[A-Za-z0-9_-]{20,255}+)",
        0.9,
        needles=("gl", "gr1348941"),
    ),
    SecretPattern(
        "PACKAGE_TOKEN",
        "npm, pypi, docker hub, rubygems, nuget token",
        _B
        + r"(?:npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,1000}+|dckr_pat_[A-Za-z0-9_-]{20,100}+"
        r"|rubygems_[0-9a-f]{48}|oy2[a-z0-9]{43})" + _E,
        0.9,
        needles=("npm_", "pypi-", "dckr_pat_", "rubygems_", "oy2"),
    ),
    # --- SaaS keys (one label: a finding says "API key", the pattern name says whose)
    SecretPattern(
        "API_KEY",
        "stripe, openai, anthropic, sendgrid, shopify, digitalocean, vault, new relic keys",
        _B + r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}+|whsec_[A-Za-z0-9]{24,64}+"
        r"|sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,200}+"
        r"|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}+"
        r"|sk-(?=[A-Za-z0-9]{0,99}\d)[A-Za-z0-9]{20,100}+"
        r"|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"
        r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
        r"|do[por]_v1_[a-f0-9]{64}"
        r"|hv[sbr]\.[A-Za-z0-9_-]{24,300}+"
        r"|NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRI[IQ]-[A-Za-z0-9_-]{32}|[a-f0-9]{36}NRAL"
        r"|HRKU-[A-Za-z0-9_-]{60}"
        r"|key-[0-9a-f]{32}"
        r"|SK[0-9a-f]{32}|AC[0-9a-f]{32}"
        r"|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"
        r"|glc_[A-Za-z0-9+/]{32,400}+={0,2}"
        r"|lin_api_[A-Za-z0-9]{40}"
        r"|pat-(?:na1|eu1)-[a-f0-9-]{36})" + _E,
        0.9,
        needles=(
            "sk_",
            "rk_",
            "whsec_",
            "sk-",
            "sg.",
            "shp",
            "do",
            "hv",
            "nr",
            "hrku-",
            "key-",
            "sk",
            "ac",
            "xkeysib-",
            "glc_",
            "lin_api_",
            "pat-",
        ),
    ),
    # Legacy Vault service tokens are `s.` + 24 mixed-case characters.
    SecretPattern(
        "API_KEY",
        "vault legacy token",
        r"(?<![A-Za-z0-9./])s\.(?=[A-Za-z0-9]{0,23}[A-Z])(?=[A-Za-z0-9]{0,23}[a-z])"
        r"(?=[A-Za-z0-9]{0,23}[0-9])[A-Za-z0-9]{24}" + _E,
        0.6,
        needles=("s.",),
    ),
    SecretPattern(
        "API_KEY",
        "telegram bot token",
        r"(?<![0-9])[0-9]{8,10}:(?=[0-9A-Za-z_-]{0,34}[A-Za-z])[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        0.85,
        needles=(":",),
    ),
    SecretPattern(
        "API_KEY",
        "discord bot token",
        _B + r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}" + _E,
        0.85,
        needles=(".",),
    ),
    SecretPattern(
        "API_KEY",
        "webhook url with a secret path (discord, teams, zapier)",
        r"https?://(?:(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks|hooks\.zapier\.com/hooks/catch"
        r"|[a-z0-9-]{1,60}\.webhook\.office\.com/webhookb2)/[A-Za-z0-9_@/-]{10,400}+",
        0.9,
        needles=("http",),
    ),
    # Datadog keys are bare hex, so only with their name: DD_API_KEY=, datadog app key: ...
    SecretPattern(
        "API_KEY",
        "datadog api or application key",
        r"(?i:(?:dd|datadog)[A-Za-z0-9_. -]{0,20}?(?:api|app|application)[_. -]?key)"
        r"""["']?[ \t]{0,3}[:=]?[ \t]{0,3}["']?(?P<s>[0-9a-f]{40}|[0-9a-f]{32})(?![0-9a-f])""",
        0.9,
        needles=("dd", "datadog"),
    ),
    SecretPattern(
        "API_KEY",
        "pagerduty, twilio, mailgun, heroku, sentry key next to its name",
        r"(?i:(?:pagerduty|twilio|mailgun|heroku|sentry|newrelic|new[_ ]relic)"
        r"[A-Za-z0-9_. -]{0,25}?(?:key|token|secret))"
        r"""["']?[ \t]{0,3}[:=]?[ \t]{0,3}["']?(?P<s>[A-Za-z0-9_+-]{20,100}+)""",
        0.85,
        needles=(
            "pagerduty",
            "twilio",
            "mailgun",
            "heroku",
            "sentry",
            "newrelic",
            "new relic",
            "new_relic",
        ),
    ),
    # A token as URL userinfo (https://TOKEN@host, a Sentry DSN key, git over https).
    SecretPattern(
        "API_KEY",
        "token as url userinfo",
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://"
        r"(?P<s>(?=[A-Za-z0-9_-]{0,100}\d)(?=[A-Za-z0-9_-]{0,100}[A-Za-z])[A-Za-z0-9_-]{20,100}"
        r"(?::[0-9a-f]{32})?)@",
        0.85,
        needles=("://",),
    ),
    # --- Slack
    SecretPattern(
        "SLACK_TOKEN",
        "slack token, tail possibly split across lines or code fences",
        r"(?<![A-Za-z0-9])(?:xox[abposrce](?:\.xox[a-z])?|xapp)-"
        + _SLACK_SEP
        + r"(?:[A-Za-z0-9]{10,}+"
        r"|[A-Za-z0-9]++(?=" + _SLACK_SEP + "-" + _SLACK_SEP + r"[A-Za-z0-9]))"
        r"(?:" + _SLACK_SEP + "-" + _SLACK_SEP + r"[A-Za-z0-9]++)*+",
        0.9,
        needles=("xox", "xapp"),
    ),
    SecretPattern(
        "SLACK_WEBHOOK_URL",
        "slack incoming webhook",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]++",
        0.9,
        needles=("hooks.slack.com",),
    ),
    # --- tokens and keys by shape
    SecretPattern(
        "JWT",
        "json web token",
        _B + r"eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]{5,}+",
        0.9,
        needles=("eyj",),
    ),
    SecretPattern(
        "PRIVATE_KEY",
        "pem private key",
        # A key cut off before its END line (Slack truncates long messages) is still a key.
        # The tempered dot checks a fixed-length lookahead per character: linear. The body
        # covers `\n`-escaped keys in JSON (a GCP service-account `private_key`).
        r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?!-----END ).)*+(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)"
        r"|PuTTY-User-Key-File-[0-9]: .*+",
        0.95,
        needles=("-----begin", "putty-user-key-file-"),
    ),
    # base64 of "-----BEGIN (RSA |EC |OPENSSH |)PRIVATE KEY", as in kubeconfig client-key-data.
    SecretPattern(
        "PRIVATE_KEY",
        "base64-encoded pem private key",
        r"LS0tLS1CRUdJTi(?:BSU0Eg|BFQyBQ|BPUEVOU1NIIFBS|BEU0Eg|BFTkNSWVBURUQgUF|BQ)"
        r"[A-Za-z0-9+/=]++"
        r"|(?i:client-key-data|private[_-]?key[_-]?data)" + _SEP + r"(?P<s>[A-Za-z0-9+/=]{20,}+)",
        0.95,
        needles=("ls0tls1crudjt", "key-data", "key_data", "keydata"),
    ),
    # --- passwords
    # Only the password of scheme://user:pass@host; the rest of the URL stays readable.
    SecretPattern(
        "PASSWORD",
        "password in url or connection string",
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.:-]{0,30}://[^\s:/@]{0,200}:"
        r"(?P<s>[^\s/@]{1,200}(?:@[^\s/@]{1,200})*)@(?=[^\s@]{1,300}(?:[\s/]|$))",
        0.9,
        needles=("://",),
    ),
    # `password=x`, `DB_PASS: x`, `"secret": "x y"`, `PGPASSWORD=x psql`: the value only.
    SecretPattern(
        "PASSWORD",
        "password assignment",
        _PASSWORD_NAME + _SEP + _PW_VALUE,
        0.9,
        needles=("pass", "pwd", "secret"),
    ),
    SecretPattern(
        "PASSWORD",
        "password element in xml",
        r"<(?i:password|passwd|secret|[a-z_]{0,20}password)>(?P<s>[^<\r\n]{1,400})</",
        0.9,
        needles=("<",),
    ),
    # CLI flags: --password pw, --db-password=pw, mysql -ppw, redis-cli -a pw, curl -u user:pw.
    SecretPattern(
        "PASSWORD",
        "password flag on a command line",
        r"(?<![A-Za-z0-9-])--?(?i:(?:[a-z0-9]{1,20}-){0,3}(?:password|passwd|pass|pwd|secret|passphrase))"
        r"(?:=|[ \t]{1,3})(?!-)" + _PW_VALUE,
        0.85,
        needles=("pass", "pwd", "secret"),
    ),
    SecretPattern(
        "PASSWORD",
        "password in a mysql, redis-cli, sshpass, docker login or curl command",
        r"(?:\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?[ \t]-p"
        r"""(?:"(?P<s>[^"\n]{1,200})"|'(?P<s>[^'\n]{1,200})'|(?P<s>[^\s"'`|;&]{1,200}))"""
        r"|\b(?:redis-cli|sshpass|docker[ \t]+login|podman[ \t]+login)\b[^\n|;&]{0,200}?"
        r"[ \t]-[ap][ \t]{1,3}(?P<s>[^\s|;&]{1,200})"
        r"|\b(?:curl|http|wget)\b[^\n|;&]{0,300}?[ \t](?:-u|--user|-a|--auth)[ \t=]{0,3}"
        r"""["']?[^\s:"']{0,100}:(?P<s>[^\s"']{1,200}))""",
        0.9,
        needles=("mysql", "mariadb", "redis-cli", "sshpass", "login", "curl", "http", "wget"),
    ),
    # --- keys and tokens next to their name
    SecretPattern(
        "API_KEY",
        "key or token after its name (env, yaml, json, ini, shell, http header, prose)",
        _KEY_NAME + r"""(?:["']?[ \t]{0,3}(?::=|=>|[:=])|[ \t])[ \t]{0,3}["']?"""
        r"(?i:(?:bearer|token|basic)[ \t]{1,3})?(?P<s>" + _KEYISH + ")",
        0.8,
        needles=("key", "token", "bearer", "auth", "credential", "sig", "dsn", "secret"),
    ),
    SecretPattern(
        "API_KEY",
        "token flag on a command line",
        r"(?<![A-Za-z0-9-])--?(?i:(?:[a-z0-9]{1,20}-){0,3}(?:token|api-key|apikey|access-key|secret-key))"
        r"(?:=|[ \t]{1,3})(?!-)" + _PW_VALUE,
        0.85,
        needles=("token", "api-key", "apikey", "access-key", "secret-key"),
    ),
)


def secret_entities() -> list[str]:
    """Entity names our secret patterns produce, in table order without repeats."""
    return list(dict.fromkeys(p.entity for p in SECRET_PATTERNS))


def build_secret_recognizers() -> list[EntityRecognizer]:
    """One Presidio recognizer per entity, holding all of that entity's patterns."""
    recognizers: list[EntityRecognizer] = []
    for entity in secret_entities():
        mine = [p for p in SECRET_PATTERNS if p.entity == entity]
        recognizers.append(_group_pattern_recognizer(entity, mine))
    return recognizers


def _group_pattern_recognizer(entity: str, patterns: list[SecretPattern]) -> EntityRecognizer:
    """A PatternRecognizer that redacts only the `s` group when a pattern has one, and fails
    closed on a regex timeout (Presidio's own catches it and skips the pattern)."""
    import regex
    from presidio_analyzer import AnalysisExplanation, Pattern, PatternRecognizer, RecognizerResult

    compiled = [(p, regex.compile(p.regex, _FLAGS)) for p in patterns]
    context = sorted({word for p in patterns for word in p.context})
    name = f"{entity.title().replace('_', '')}Recognizer"

    class SecretRecognizer(PatternRecognizer):
        def analyze(
            self, text: str, entities: list[str], nlp_artifacts: Any = None, regex_flags: Any = None
        ) -> list[RecognizerResult]:
            results: list[RecognizerResult] = []
            lowered = text.lower()
            for pattern, rx in compiled:
                if pattern.needles and not any(n in lowered for n in pattern.needles):
                    continue
                grouped = "s" in rx.groupindex
                for m in rx.finditer(text, timeout=_TIMEOUT_S):
                    start, end = _secret_span(m) if grouped else m.span()
                    if start < end:
                        results.append(
                            RecognizerResult(
                                entity_type=entity,
                                start=start,
                                end=end,
                                score=pattern.score,
                                # the context enhancer records its word here
                                analysis_explanation=AnalysisExplanation(
                                    recognizer=name,
                                    original_score=pattern.score,
                                    pattern_name=pattern.name,
                                ),
                                recognition_metadata={
                                    RecognizerResult.RECOGNIZER_NAME_KEY: name,
                                    RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                                },
                            )
                        )
            return results

    return SecretRecognizer(
        supported_entity=entity,
        name=name,
        patterns=[Pattern(p.name, p.regex, p.score) for p in patterns],
        context=context,
        global_regex_flags=_FLAGS,
    )


# A regex still running after this long is a bug; raising (not skipping) keeps fail-closed.
_TIMEOUT_S = 5.0


def _secret_span(m: Any) -> tuple[int, int]:
    """Span of the `s` group (several alternatives share the name); the whole match if none."""
    start, end = m.span("s")
    return (start, end) if start >= 0 else m.span()
