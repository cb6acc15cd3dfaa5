"""The action catalogue (OPSMEMORY_ACTIONS_FILE): what may be requested, with which parameters,
who approves it, how many approvals, for how long, and how it runs. Validated once at start; a
bad catalogue stops the bot with one precise line per problem."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.settings import SLACK_USER_ID, SettingsError

ACTION_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
PARAM_NAME = re.compile(r"[a-z][a-z0-9_]{0,29}")
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")
_USERGROUP_ID = re.compile(r"S[A-Z0-9]+")
_TTL = re.compile(r"(\d+)\s*([smhd])")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StringParam(_Strict):
    """A text value: one of `allowed`, or a full match of `pattern` (one of them is required)."""

    type: Literal["string"] = "string"
    description: str = ""
    allowed: tuple[str, ...] = ()
    pattern: str | None = None
    max_length: int = Field(100, ge=1, le=500)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"is not a valid regular expression ({exc})") from None
        return v

    @model_validator(mode="after")
    def _bounded(self) -> StringParam:
        if not self.allowed and self.pattern is None:
            raise ValueError("a string parameter needs `allowed` values or a `pattern`")
        return self

    def check(self, value: str) -> str | None:
        """None when `value` is acceptable, else why not."""
        if len(value) > self.max_length:
            return f"is longer than {self.max_length} characters"
        if self.allowed and value not in self.allowed:
            return f"must be one of {', '.join(self.allowed)}"
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            return f"must match `{self.pattern}`"
        return None

    def hint(self) -> str:
        return " | ".join(self.allowed) if self.allowed else f"matching {self.pattern}"


class IntegerParam(_Strict):
    type: Literal["integer"]
    description: str = ""
    min: int
    max: int

    @model_validator(mode="after")
    def _range(self) -> IntegerParam:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is above max ({self.max})")
        return self

    def check(self, value: str) -> str | None:
        if not re.fullmatch(r"-?\d{1,12}", value):
            return "must be a whole number"
        if not self.min <= int(value) <= self.max:
            return f"must be between {self.min} and {self.max}"
        return None

    def hint(self) -> str:
        return f"{self.min}–{self.max}"


Param = Annotated[StringParam | IntegerParam, Field(discriminator="type")]


class Approvers(_Strict):
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()  # Slack user group ids (S…), resolved with usergroups.users.list

    @field_validator("users")
    @classmethod
    def _user_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for u in v:
            if not SLACK_USER_ID.fullmatch(u):
                raise ValueError(f"{u!r} is not a Slack user id like U0123ABCD")
        return v

    @field_validator("groups")
    @classmethod
    def _group_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for g in v:
            if not _USERGROUP_ID.fullmatch(g):
                raise ValueError(f"{g!r} is not a Slack user group id like S0123ABCD")
        return v


class WebhookExecutor(_Strict):
    type: Literal["webhook"]
    url: str
    timeout_s: float = Field(10.0, gt=0, le=300)

    @field_validator("url")
    @classmethod
    def _http(cls, v: str) -> str:
        if not re.match(r"^https?://[^\s/]+", v):
            raise ValueError("must be an http:// or https:// URL")
        return v


class CommandExecutor(_Strict):
    type: Literal["command"]
    argv: tuple[str, ...] = Field(min_length=1)
    timeout_s: float = Field(60.0, gt=0, le=3600)


Executor = Annotated[WebhookExecutor | CommandExecutor, Field(discriminator="type")]


class Action(_Strict):
    """One catalogue entry; `name` comes from its key in the file."""

    name: str = ""
    title: str
    description: str
    aliases: tuple[str, ...] = ()  # phrases in a runbook or skill that propose this action
    risk: Literal["low", "medium", "high"]
    parameters: dict[str, Param] = {}
    approvers: Approvers | None = None  # None: OPSMEMORY_APPROVERS
    approvals_required: int = Field(1, ge=1, le=10)
    requester_may_approve: bool = False
    ttl: str = "30m"
    allow_when_resolved: bool = False
    dry_run: bool = True
    executor: Executor

    @field_validator("ttl")
    @classmethod
    def _ttl(cls, v: str) -> str:
        if not _TTL.fullmatch(v.strip()):
            raise ValueError("must be a duration like 15m, 2h or 1d")
        return v.strip()

    @field_validator("parameters")
    @classmethod
    def _param_names(cls, v: dict[str, Any]) -> dict[str, Any]:
        for name in v:
            if not PARAM_NAME.fullmatch(name):
                raise ValueError(f"parameter name {name!r} must be lowercase letters, digits, _")
        return v

    @model_validator(mode="after")
    def _rules(self) -> Action:
        if self.risk == "high" and self.approvals_required < 2:
            raise ValueError("a high-risk action needs approvals_required of at least 2")
        if self.risk == "high" and self.requester_may_approve:
            raise ValueError("a high-risk action cannot let the requester approve it")
        if isinstance(self.executor, CommandExecutor):
            for arg in self.executor.argv:
                for used in PLACEHOLDER.findall(arg):
                    if used not in self.parameters:
                        raise ValueError(f"executor.argv uses {{{used}}}, not a parameter")
        return self

    @property
    def time_to_live(self) -> timedelta:
        m = _TTL.fullmatch(self.ttl)
        assert m is not None
        unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}[m.group(2)]
        return timedelta(**{unit: int(m.group(1))})

    def usage(self) -> str:
        """`/incident run <name> key=<hint> …`, what a person types to request it."""
        parts = [f"{k}=<{p.hint()}>" for k, p in self.parameters.items()]
        return " ".join([f"/incident run {self.name}", *parts])


class _File(_Strict):
    actions: dict[str, Action]


class Catalogue:
    """The validated actions, by name."""

    def __init__(self, actions: dict[str, Action], source: Path | None = None) -> None:
        self.actions, self.source = actions, source

    @classmethod
    def empty(cls) -> Catalogue:
        return cls({})

    def get(self, name: str) -> Action | None:
        return self.actions.get(name)

    def vocabulary(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """(name, title, phrases that name it) per action, for matching runbook and skill text."""
        return tuple(
            (a.name, a.title, tuple(dict.fromkeys([a.name.replace("_", " "), *a.aliases])))
            for a in self.actions.values()
        )

    def uses_webhooks(self) -> bool:
        return any(
            isinstance(a.executor, WebhookExecutor) and not a.dry_run for a in self.actions.values()
        )


def load_catalogue(path: Path, *, variable: str = "OPSMEMORY_ACTIONS_FILE") -> Catalogue:
    """Read and validate `path`; SettingsError with one line per problem."""
    where = f"{variable} ({path})"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError([f"{where} does not exist; fix the path or unset it."]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError([f"{where} cannot be read: {exc}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise SettingsError([f"{where} is not valid YAML{at}."]) from None
    if not isinstance(raw, dict):
        raise SettingsError([f"{where} must be a mapping with an `actions:` key."])
    try:
        parsed = _File.model_validate(raw)
    except ValidationError as exc:
        raise SettingsError([_problem(where, e) for e in exc.errors()]) from None
    problems = [
        f"{where}: actions.{name}: the name must be lowercase letters, digits and _"
        for name in parsed.actions
        if not ACTION_NAME.fullmatch(name)
    ]
    if problems:
        raise SettingsError(problems)
    actions = {name: a.model_copy(update={"name": name}) for name, a in parsed.actions.items()}
    return Catalogue(actions, path)


def _problem(where: str, err: Any) -> str:
    # Drop pydantic's union tags ("webhook", "string") from the location a person reads.
    loc = [str(x) for x in err["loc"] if x not in ("webhook", "command", "string", "integer")]
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "is not a known field"
    elif err["type"] == "missing":
        msg = "is required"
    return f"{where}: {'.'.join(loc) or 'file'}: {msg}"
