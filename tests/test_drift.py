"""Drift checks: docs, CI and code say the same thing (issue 2)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.settings import Settings, env_name

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_every_setting_is_documented(field: str) -> None:
    name = env_name(field)
    assert f"`{name}`" in (ROOT / "README.md").read_text(), f"{name} missing from README"
    assert re.search(rf"^{name}=", (ROOT / ".env.example").read_text(), re.M), name


def test_documented_settings_all_exist() -> None:
    documented = set(re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), re.M))
    assert documented == {env_name(f) for f in Settings.model_fields}


def test_ci_runs_the_readme_test_command() -> None:
    readme_blocks = re.findall(r"```sh\n(.+?)\n```", (ROOT / "README.md").read_text(), re.S)
    ci = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"^TEST_COMMAND='(.+)'$", ci, re.M)
    assert command is not None
    assert readme_blocks[1] == command[1]
    assert "pytest" in readme_blocks[1]
    assert readme_blocks[0].endswith("opsmemory run")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("memory", {"slack_bolt", "slack_sdk", "bot", "knowledge", "skills", "evals"}),
        ("knowledge", {"slack_bolt", "slack_sdk", "bot", "evals"}),
        ("skills", {"slack_bolt", "slack_sdk", "bot", "evals"}),
        ("evals", {"slack_bolt", "slack_sdk", "bot"}),
    ],
)
def test_domain_packages_import_no_slack(package: str, forbidden: set[str]) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted((_imports(path) & forbidden) - ALLOWED.get(rel, set()))
        for path in (ROOT / package).rglob("*.py")
        if (rel := str(path.relative_to(ROOT)))
        and (_imports(path) & forbidden) - ALLOWED.get(rel, set())
    }
    assert not offenders


# The one evaluation that measures what people see: it replays conversations through the real
# Bolt app and the stand-in, so it builds the bot (the bot never imports evals, see
# test_architecture).
ALLOWED: dict[str, set[str]] = {"evals/slack_replay.py": {"bot"}}


def test_answer_package_imports_no_slack() -> None:
    """Composing and rendering an answer is plain data in, plain data out (issue 20)."""
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & {"slack_bolt", "slack_sdk"})
        for path in (ROOT / "bot" / "answer").rglob("*.py")
        if _imports(path) & {"slack_bolt", "slack_sdk"}
    }
    assert not offenders
