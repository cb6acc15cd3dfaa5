"""The layout holds: no import cycles, SQL only behind the storage seam, evaluation code kept out
of the running bot, every package says what it owns (issue 20)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "memory", "knowledge", "skills", "evals")
STORE_PACKAGES = ("memory/store", "knowledge/store")

# SQL as it is written in this codebase: upper-case keywords in their statement shapes.
SQL = re.compile(
    r"\bSELECT\b[\s\S]+\bFROM\b"
    r"|\bINSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\b"
    r"|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(?:VIRTUAL\s+|TEMP\s+|UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER)\b"
    r"|\bDROP\s+(?:TABLE|INDEX|TRIGGER)\b"
    r"|\bPRAGMA\s+\w+"
    r"|\b(?:WHERE|AND|OR)\s+(?:\w+\.)?\w+\s*(?:=\s*[:?]|IN\s*\(|IS\s+(?:NOT\s+)?NULL|MATCH\b)"
)


def _modules() -> dict[str, Path]:
    """Every module of ours by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """Modules of ours that `name` imports anywhere in its file: top level, in functions and
    under TYPE_CHECKING alike (a cycle hidden behind a local import is still a cycle)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    out.add(sub)
                elif target in modules:
                    out.add(target)
    out.discard(name)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back_through_others() -> None:
    modules = _modules()
    graph = {name: _imports(path, name, modules) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_cycle_through_a_local_import() -> None:
    """Guards the test above: a cycle closed by a function-level import is reported."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(
                part.value if isinstance(part, ast.Constant) else "{}" for part in node.values
            )
            yield node.lineno, text


def _sql_outside_store() -> list[str]:
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(STORE_PACKAGES):
                continue
            for line, text in _strings(path):
                if SQL.search(text):
                    offenders.append(f"{rel}:{line}")
    return sorted(set(offenders))


def test_sql_lives_only_in_the_store_packages() -> None:
    """The storage seam: a second backend replaces memory/store and knowledge/store only."""
    assert _sql_outside_store() == []


def test_the_sql_detector_recognises_the_statements_we_write() -> None:
    for statement in (
        "SELECT id, text FROM memory_notes WHERE id = :id",
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
        "UPDATE memory_notes SET text = :t",
        "DELETE FROM memory_notes_fts WHERE rowid = ?",
        "CREATE VIRTUAL TABLE t USING fts5(x)",
        "PRAGMA secure_delete = ON",
        " AND n.channel_id = :channel",
        "WHERE scope IN ('channel', 'workspace')",
    ):
        assert SQL.search(statement), statement
    for prose in ("Select a runbook from the list.", "Delete this note?", "where to go next"):
        assert not SQL.search(prose), prose


def test_the_running_bot_never_imports_evaluation_code() -> None:
    code = (
        "import sys, bot.app, bot.runtime, bot.cli, bot.cli.run_cmd;"
        "bad = sorted(m for m in sys.modules if m == 'evals' or m.startswith('evals.'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_package_says_what_it_owns() -> None:
    silent = []
    for package in PACKAGES:
        for init in sorted((ROOT / package).rglob("__init__.py")):
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            if not doc or doc.strip().upper().startswith("TODO") or len(doc.split()) < 5:
                silent.append(init.relative_to(ROOT).as_posix())
    assert silent == []


def test_no_module_is_private_by_underscore() -> None:
    """Private modules are private by package (issue 20), not by a leading underscore."""
    underscored = [
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("_*.py")
        if path.name not in {"__init__.py", "__main__.py"}
    ]
    assert underscored == []
