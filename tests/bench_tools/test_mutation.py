"""bench.mutation's equivalence rule: only a change of SQL letter case SQLite cannot see (in
SQL text or a column name read from a row) is left out of the kill rate; anything SQLite or a
person reads differently still counts."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bench.mutation import TARGETS, TOP_FILES, private_tree, sql_case_only


def diff(old: str, new: str) -> str:
    return f"--- a.py\n+++ a.py\n@@ -1 +1 @@\n-{old}\n+{new}\n"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"SELECT id FROM t WHERE state = :state"', '"select id from t where state = :state"'),
        ('"INSERT INTO t (a, b) VALUES (:a, :b)"', '"INSERT INTO T (A, B) VALUES (:a, :b)"'),
        ("\"UPDATE t SET s = 'expired' \"", "\"update t set s = 'expired' \""),
        ('            id=int(row["id"]),', '            id=int(row["ID"]),'),
        ("team_id=row['team_id'],", "team_id=row['TEAM_ID'],"),
    ],
)
def test_keyword_and_identifier_case_is_equivalent(old: str, new: str) -> None:
    assert sql_case_only(diff(old, new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("\"SET s = 'expired' \"", "\"SET S = 'EXPIRED' \""),  # a stored value changes
        ('"WHERE state = :state"', '"WHERE STATE = :STATE"'),  # the parameter is unbound
        ('"Saved your note."', '"SAVED YOUR NOTE."'),  # not SQL: a person reads it
        ('"SELECT id FROM t"', '"SELECT id FROM u"'),  # not a case change
        ('"SELECT id FROM t"', "None"),
        ('x = params["team_id"]', 'x = params["TEAM_ID"]'),  # a dict is case-sensitive
        ('ok = row["state"] == "done"', 'ok = row["state"] == "DONE"'),  # a value, not a name
        ('x = row["id"]', 'x = row["ID"] or 1'),  # more than case
    ],
)
def test_anything_sqlite_or_a_person_reads_differently_still_counts(old: str, new: str) -> None:
    assert not sql_case_only(diff(old, new))


def test_a_mutant_that_removes_or_adds_lines_still_counts() -> None:
    assert not sql_case_only('--- a\n+++ a\n@@ -1 +1 @@\n-"SELECT 1 FROM t"\n')


def test_a_private_tree_carries_the_top_files_its_tests_read(tmp_path: Path) -> None:
    """The guarded tests read actions.example.yml from the top of the repository: it is copied
    into the private tree and mutmut is told to copy it next to its mutants."""
    target = next(t for t in TARGETS if t.name == "guarded-actions")
    tree = private_tree(tmp_path, target)
    assert "actions.example.yml" in TOP_FILES
    assert all((tree / name).is_file() for name in TOP_FILES)
    settings = tomllib.loads((tree / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    assert settings["also_copy"] == list(TOP_FILES)
    assert settings["only_mutate"] == list(target.files)
