"""The one settings object, read from the environment (and `.env`) once, at the CLI entry point.

Slack's own variable names are used as-is; everything else is `OPSMEMORY_*`. A bad value stops
start-up with one line per problem naming the variable and the fix.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memory.errors import OpsmemoryError

SLACK_DEFAULT_API_URL = "https://slack.com/api/"
# Members are U… (W… on Enterprise Grid); channels are C… (public) or G… (private, older ones).
SLACK_USER_ID = re.compile(r"[UW][A-Z0-9]+")
SLACK_CHANNEL_ID = re.compile(r"[CG][A-Z0-9]+")


def _shown(value: str) -> str:
    """A value the operator set, quoted and cut short for an error line."""
    return repr(value if len(value) <= 40 else value[:40] + "…")


class SettingsError(OpsmemoryError):
    """One or more settings are invalid; `problems` holds one line per variable."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class Settings(BaseSettings):
    """Every knob opsmemory has. Documented in README.md and .env.example (a test checks)."""

    model_config = SettingsConfigDict(
        env_prefix="OPSMEMORY_",
        env_file=".env",
        env_ignore_empty=True,
        frozen=True,
        extra="ignore",
        populate_by_name=True,
    )

    # Slack's own names.
    slack_bot_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "slack_bot_token")
    )
    slack_app_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "slack_app_token")
    )
    slack_signing_secret: SecretStr | None = Field(
        None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "slack_signing_secret")
    )

    # Where things live.
    data_dir: Path = Path("data")
    runbooks_dir: Path | None = None
    runbooks_allow_empty: bool = False
    runbooks_url: str | None = None
    skills_dir: Path | None = None

    # Serving.
    port: int = Field(3000, ge=1, le=65535)
    host: str = "0.0.0.0"
    slack_api_url: str = SLACK_DEFAULT_API_URL
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    shutdown_grace_s: float = Field(20.0, ge=0, le=3600)

    # Models.
    embedder: Literal["onnx-minilm", "ollama", "none"] = "onnx-minilm"
    ollama_host: str | None = None
    ollama_chat_model: str = "llama3.2"
    ollama_embed_model: str = "nomic-embed-text"
    ollama_timeout_s: float = Field(30.0, gt=0, le=600)
    thread_token_cap: int = Field(50_000, ge=1_000)

    # Redaction.
    redact_ip_addresses: bool = False
    redact_person_names: bool = False
    ner_model: str | None = None

    # Memory.
    incident_channel_pattern: str = "^inc-"
    note_max_chars: int = Field(4_000, ge=100, le=40_000)
    recall_half_life_hours: float = Field(48.0, gt=0)
    users_cache_ttl_s: int = Field(3_600, ge=0)
    retention_days_user: int | None = Field(None, ge=1)
    retention_days_channel: int | None = Field(None, ge=1)
    retention_days_workspace: int | None = Field(None, ge=1)

    # Scheduler and approvals.
    digest_channel: str | None = None
    digest_time: str = "09:00"
    timezone: str = "UTC"
    approvers: str = ""
    actions_file: Path | None = None
    actions_webhook_secret: SecretStr | None = None

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token_shape(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith("xoxb-"):
            raise ValueError("must start with xoxb- (the Bot User OAuth Token)")
        return v

    @field_validator("slack_app_token")
    @classmethod
    def _app_token_shape(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith("xapp-"):
            raise ValueError("must start with xapp- (an app-level token with connections:write)")
        return v

    @field_validator("slack_api_url", "ollama_host", "runbooks_url")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^https?://[^\s/]+", v):
            raise ValueError("must be an http:// or https:// URL")
        return v

    @field_validator("incident_channel_pattern")
    @classmethod
    def _regex(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"must be a valid regular expression ({exc})") from None
        return v

    @field_validator("digest_time")
    @classmethod
    def _hh_mm(cls, v: str) -> str:
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", v):
            raise ValueError("must be a 24-hour time like 09:00")
        return v

    @field_validator("approvers")
    @classmethod
    def _user_ids(cls, v: str) -> str:
        for item in (x.strip() for x in v.split(",")):
            if item and not SLACK_USER_ID.fullmatch(item):
                raise ValueError(
                    f"must list Slack user ids like U0123ABCD, comma-separated; {_shown(item)} is "
                    "not one (in Slack, open the person's profile, click ⋮ and Copy member ID)"
                )
        return v

    @field_validator("digest_channel")
    @classmethod
    def _channel_id(cls, v: str | None) -> str | None:
        if v is not None and not SLACK_CHANNEL_ID.fullmatch(v.strip()):
            raise ValueError(
                f"must be a channel id like C0123ABCD, not {_shown(v)} (in Slack, open the "
                "channel's details: the Channel ID is at the bottom of the About tab)"
            )
        return v.strip() if v is not None else None

    @property
    def database_path(self) -> Path:
        return self.data_dir / "opsmemory.db"

    @property
    def slack_api_base(self) -> str:
        """Base URL with the trailing slash slack_sdk expects."""
        return self.slack_api_url if self.slack_api_url.endswith("/") else self.slack_api_url + "/"

    @property
    def approver_ids(self) -> frozenset[str]:
        return frozenset(x.strip() for x in self.approvers.split(",") if x.strip())


_SLACK_NAMES = {"slack_bot_token", "slack_app_token", "slack_signing_secret"}


def env_name(field: str) -> str:
    """The environment variable that sets `field`."""
    return field.upper() if field in _SLACK_NAMES else f"OPSMEMORY_{field.upper()}"


def load_settings(**overrides: object) -> Settings:
    """Read settings from the environment; raise SettingsError naming each bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]  # pydantic fills the rest from env
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "?"
            name = env_name(field) if field in Settings.model_fields else field
            msg = str(err["msg"]).removeprefix("Value error, ")
            if msg.startswith("must"):
                problems.append(f"{name} {msg}")
            else:
                problems.append(f"{name} is invalid: {msg[:1].lower()}{msg[1:]}")
        raise SettingsError(problems) from None
