"""The action catalogue on its own: what a bad file tells the admin (one exact line per
problem), which values a parameter accepts, the usage people are shown, and the phrases that
propose an action (issue 17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.guarded.catalogue import Action, Catalogue, load_catalogue
from bot.settings import SettingsError

# A valid action, indented to sit under `actions:`; tests add or replace fields.
BASE = """
    title: restart it
    description: Restart a service
    risk: low
    executor: {type: webhook, url: "https://hooks.example/x"}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "actions.yml"
    path.write_text(text, "utf-8")
    return path


def problems(path: Path, **kwargs: str) -> list[str]:
    with pytest.raises(SettingsError) as err:
        load_catalogue(path, **kwargs)
    return err.value.problems


def test_each_action_is_named_by_its_key_and_the_catalogue_knows_its_file(tmp_path: Path) -> None:
    path = write(tmp_path, "actions:\n  restart:" + BASE + "  drain_node:" + BASE)
    catalogue = load_catalogue(path)
    assert catalogue.source == path
    assert list(catalogue.actions) == ["restart", "drain_node"]
    assert [a.name for a in catalogue.actions.values()] == ["restart", "drain_node"]
    restart = catalogue.get("restart")
    assert restart is not None and restart.name == "restart"
    assert catalogue.get("reboot") is None
    assert Catalogue.empty().actions == {} and Catalogue.empty().get("restart") is None


def test_a_missing_unreadable_or_non_yaml_file_is_one_line_naming_the_variable(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "nope.yml"
    assert problems(missing) == [
        f"OPSMEMORY_ACTIONS_FILE ({missing}) does not exist; fix the path or unset it."
    ]
    assert problems(missing, variable="ACTIONS") == [
        f"ACTIONS ({missing}) does not exist; fix the path or unset it."
    ]
    binary = tmp_path / "binary.yml"
    binary.write_bytes(b"actions: \xff\xfe\n")
    [line] = problems(binary)
    assert line.startswith(f"OPSMEMORY_ACTIONS_FILE ({binary}) cannot be read: ")
    assert "decode" in line
    [line] = problems(tmp_path)  # a directory
    assert line.startswith(f"OPSMEMORY_ACTIONS_FILE ({tmp_path}) cannot be read: ")
    broken = write(tmp_path, "actions:\n  restart: {title: x\n")
    assert problems(broken) == [
        f"OPSMEMORY_ACTIONS_FILE ({broken}) is not valid YAML at line 3, column 1."
    ]
    control = write(tmp_path, "actions:\n  restart: \x07\n")  # no position to point at
    assert problems(control) == [f"OPSMEMORY_ACTIONS_FILE ({control}) is not valid YAML."]


@pytest.mark.parametrize("text", ["- restart\n", "just words\n", ""])
def test_a_file_that_is_not_a_mapping_says_what_it_must_be(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    assert problems(path) == [
        f"OPSMEMORY_ACTIONS_FILE ({path}) must be a mapping with an `actions:` key."
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{}", "actions: is required"),
        ("actions: {}\nextra: 1", "extra: is not a known field"),
        (
            "actions:\n  restart:" + BASE.replace("    description: Restart a service\n", ""),
            "actions.restart.description: is required",
        ),
        (
            "actions:\n  restart:" + BASE.replace("https://hooks.example/x", "ftp://x"),
            "actions.restart.executor.url: must be an http:// or https:// URL",
        ),
        (
            "actions:\n  restart:"
            + BASE
            + "    parameters:\n      n: {type: integer, min: 5, max: 1}\n",
            "actions.restart.parameters.n: min (5) is above max (1)",
        ),
        (
            "actions:\n  restart:"
            + BASE
            + "    parameters:\n      n: {type: string, pattern: '('}\n",
            "actions.restart.parameters.n.pattern: is not a valid regular expression "
            "(missing ), unterminated subpattern at position 0)",
        ),
        (
            "actions:\n  restart:"
            + BASE.replace('{type: webhook, url: "https://hooks.example/x"}', "{type: command}"),
            "actions.restart.executor.argv: is required",
        ),
        (
            "actions:\n  restart:" + BASE + "    ttl: soon\n",
            "actions.restart.ttl: must be a duration like 15m, 2h or 1d",
        ),
        (
            "actions:\n  restart:" + BASE + "    approvers: {users: [alice]}\n",
            "actions.restart.approvers.users: 'alice' is not a Slack user id like U0123ABCD",
        ),
        (
            "actions:\n  restart:" + BASE.replace("risk: low", "risk: high"),
            "actions.restart: a high-risk action needs approvals_required of at least 2",
        ),
    ],
)
def test_each_problem_names_the_field_and_why_without_pydantic_noise(
    tmp_path: Path, text: str, says: str
) -> None:
    path = write(tmp_path, text)
    assert problems(path) == [f"OPSMEMORY_ACTIONS_FILE ({path}): {says}"]


def test_every_badly_named_action_is_listed_and_nothing_is_loaded(tmp_path: Path) -> None:
    path = write(tmp_path, "actions:\n  Restart:" + BASE + "  ok:" + BASE + "  9lives:" + BASE)
    where = f"OPSMEMORY_ACTIONS_FILE ({path})"
    assert problems(path) == [
        f"{where}: actions.Restart: the name must be lowercase letters, digits and _",
        f"{where}: actions.9lives: the name must be lowercase letters, digits and _",
    ]


PARAMS = """
    parameters:
      service: {type: string, allowed: [checkout, payments], max_length: 8}
      version: {type: string, pattern: 'v[0-9]+', max_length: 4}
      replicas: {type: integer, min: 2, max: 40}
"""


@pytest.fixture
def action(tmp_path: Path) -> Action:
    catalogue = load_catalogue(write(tmp_path, "actions:\n  scale_out:" + BASE + PARAMS))
    return catalogue.actions["scale_out"]


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("service", "checkout", None),
        ("service", "payments", None),
        ("service", "search", "must be one of checkout, payments"),
        ("service", "checkouts", "is longer than 8 characters"),
        ("version", "v123", None),
        ("version", "v1234", "is longer than 4 characters"),
        ("version", "v1x", "must match `v[0-9]+`"),
        ("version", "xv12", "must match `v[0-9]+`"),
        ("replicas", "2", None),
        ("replicas", "40", None),
        ("replicas", "1", "must be between 2 and 40"),
        ("replicas", "41", "must be between 2 and 40"),
        ("replicas", "-3", "must be between 2 and 40"),
        ("replicas", "3.5", "must be a whole number"),
        ("replicas", "ten", "must be a whole number"),
        ("replicas", "1" * 13, "must be a whole number"),
    ],
)
def test_a_parameter_accepts_exactly_its_values(
    action: Action, name: str, value: str, problem: str | None
) -> None:
    assert action.parameters[name].check(value) == problem


def test_the_usage_shows_every_parameter_with_what_it_accepts(action: Action) -> None:
    assert action.usage() == (
        "/incident run scale_out service=<checkout | payments> version=<matching v[0-9]+> "
        "replicas=<2–40>"
    )


def test_an_action_without_parameters_is_requested_by_its_name_alone(tmp_path: Path) -> None:
    catalogue = load_catalogue(write(tmp_path, "actions:\n  restart:" + BASE))
    assert catalogue.actions["restart"].usage() == "/incident run restart"


def test_an_action_is_proposed_by_its_name_spelled_out_and_its_aliases_once_each(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "actions:\n  scale_out:" + BASE + "    aliases: [scale out, increase the replicas]\n"
        "  restart:" + BASE.replace("restart it", "restart"),
    )
    assert load_catalogue(path).vocabulary() == (
        ("scale_out", "restart it", ("scale out", "increase the replicas")),
        ("restart", "restart", ("restart",)),
    )
    assert Catalogue.empty().vocabulary() == ()


@pytest.mark.parametrize(
    ("executor", "dry_run", "webhooks"),
    [
        ('{type: webhook, url: "https://hooks.example/x"}', "false", True),
        ('{type: webhook, url: "https://hooks.example/x"}', "true", False),
        ("{type: command, argv: [/bin/true]}", "false", False),
    ],
)
def test_only_a_webhook_that_really_runs_needs_the_webhook_secret(
    tmp_path: Path, executor: str, dry_run: str, webhooks: bool
) -> None:
    text = (
        "actions:\n  restart:\n    title: t\n    description: d\n    risk: low\n"
        f"    dry_run: {dry_run}\n    executor: {executor}\n"
        "  dry:" + BASE  # a dry-run webhook next to it changes nothing
    )
    assert load_catalogue(write(tmp_path, text)).uses_webhooks() is webhooks
