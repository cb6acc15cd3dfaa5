"""Skills loader: cheap index from front matter, bodies only on match, at most 3 (issue 3)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from memory.errors import InvalidLimit
from skills.loader import SkillIndex

SHIPPED = Path(__file__).resolve().parents[2] / "skills"


def _skill(root: Path, folder: str, front: str, body: str = "Body text.") -> None:
    (root / folder).mkdir(parents=True)
    (root / folder / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n", "utf-8")


def _four(root: Path) -> None:
    _skill(
        root,
        "rollback",
        "name: rollback\ndescription: Roll back a bad deploy.\nkeywords: [rollback, deploy, revert]",
        "# Rollback steps",
    )
    _skill(
        root,
        "incident-triage",
        "name: incident-triage\ndescription: Triage a new incident.\nkeywords: [triage, severity, alert]",
    )
    _skill(
        root,
        "capacity-planning",
        "name: capacity-planning\ndescription: Plan capacity.\nkeywords: [capacity, growth]",
    )
    _skill(
        root,
        "stakeholder-update",
        "name: stakeholder-update\ndescription: Write a status update.\nkeywords: [update, status, stakeholder]",
    )


def test_index_lists_names_and_descriptions_without_reading_bodies(tmp_path: Path) -> None:
    _four(tmp_path)
    index = SkillIndex.load(tmp_path)
    names = [s.name for s in index.summaries()]
    assert names == ["capacity-planning", "incident-triage", "rollback", "stakeholder-update"]
    (tmp_path / "rollback" / "SKILL.md").write_text(
        (tmp_path / "rollback" / "SKILL.md")
        .read_text()
        .replace("# Rollback steps", "# Edited later")
    )
    assert index.match("please revert the deploy")[0].body == "# Edited later"


def test_match_loads_only_matching_bodies_best_first(tmp_path: Path) -> None:
    _four(tmp_path)
    matched = SkillIndex.load(tmp_path).match(
        "we need to rollback the deploy and send a status update"
    )
    assert {s.name for s in matched} == {"rollback", "stakeholder-update"}
    assert matched[0].body and "Rollback steps" in next(
        s.body for s in matched if s.name == "rollback"
    )
    assert SkillIndex.load(tmp_path).match("lunch plans") == []


def test_at_most_three_skills_per_answer(tmp_path: Path) -> None:
    _four(tmp_path)
    index = SkillIndex.load(tmp_path)
    text = "triage severity rollback deploy capacity growth status update"
    assert len(index.match(text)) == 3
    with pytest.raises(InvalidLimit):
        index.match(text, limit=4)


@pytest.mark.parametrize(
    ("folder", "front"),
    [
        ("Bad_Name", "name: Bad_Name\ndescription: x"),
        ("a", "name: ../a\ndescription: x"),
        ("other", "name: rollback\ndescription: x"),
        ("nodesc", "name: nodesc"),
        ("notyaml", "name: [unclosed\ndescription: x"),
    ],
)
def test_invalid_skills_are_skipped_with_a_warning(
    tmp_path: Path, folder: str, front: str, caplog: pytest.LogCaptureFixture
) -> None:
    _skill(tmp_path, folder, front)
    with caplog.at_level(logging.WARNING):
        index = SkillIndex.load(tmp_path)
    assert index.summaries() == [] and index.skipped[0][0] == folder
    assert any(r.message == "skill_skipped" for r in caplog.records)


def test_shipped_skills_load_with_the_required_names() -> None:
    index = SkillIndex.load(SHIPPED)
    names = {s.name for s in index.summaries()}
    assert {
        "incident-triage",
        "rollback",
        "capacity-planning",
        "monitoring-setup",
        "stakeholder-update",
    } <= names
    assert index.skipped == ()
