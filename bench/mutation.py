"""Mutation testing of the safety code: how many one-line breakages of each gate its own tests catch.

Each target mutates one safety module (or the gate functions inside it) with mutmut and runs only
that module's own test files, in a private copy of the tree, so the work tree is never touched.
Prints the kill rate per target and overall; the goal is >= 90 %. Slow, so outside CI.

Run: .venv/bin/python -m bench.mutation [--only guarded-actions redaction-pii ...] [--list] [--keep DIR]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("bot", "memory", "knowledge", "skills", "evals")
# Files at the top of the repository that tests read; mutmut copies them next to its mutants.
TOP_FILES = ("manifest.yml", "actions.example.yml")
# Copied into each private tree; everything else (the venv, git, caches, data) stays behind.
COPIED = (*SOURCES, "tests", "bench", "pyproject.toml", *TOP_FILES)
IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")
CAUGHT = {"killed", "timeout", "caught by type check", "segfault"}
NOT_RUN = {"skipped", "not checked", "check was interrupted by user", "equivalent (SQL case)"}


@dataclass(frozen=True)
class Target:
    """One gate: the files mutated (paths or globs), optionally only some functions, and its own
    tests."""

    name: str
    files: tuple[str, ...]
    tests: tuple[str, ...]
    # mutmut mutant names are `module.x_function__mutmut_N` or `module.xǁClassǁmethod__mutmut_N`;
    # None mutates every function of `files`.
    functions: tuple[str, ...] | None = None

    def patterns(self) -> list[str]:
        if self.functions is None:
            return [f"{_module(f)}.*" for f in self.files]
        return [f"{_module(f)}.{fn}__mutmut_*" for f in self.files for fn in self.functions]


REDACTION_TESTS = (
    "tests/memory/test_redaction.py",
    "tests/memory/test_pii.py",
    "tests/memory/test_secret_catalogue.py",
    "tests/memory/redaction/test_context.py",
    "tests/memory/redaction/test_phones.py",
    "tests/memory/redaction/test_detectors.py",
    "tests/memory/redaction/test_redactor.py",
    "tests/memory/redaction/test_secrets.py",
)

TARGETS = (
    Target("scopes", ("memory/scopes.py",), ("tests/memory/test_scopes.py",)),
    Target(
        "visibility",
        ("memory/store/visibility.py",),
        ("tests/memory/store/test_visibility.py", "tests/memory/test_scopes.py"),
    ),
    # Redaction, one target per module (the whole package is ~1,000 mutants, hours at once).
    *(
        Target(
            f"redaction-{module}",
            (f"memory/redaction/{module}.py",),
            REDACTION_TESTS,
        )
        for module in ("redactor", "secrets", "detectors", "pii", "phones", "context")
    ),
    Target(
        "guarded-actions",
        ("bot/guarded/requests.py", "bot/guarded/catalogue.py"),
        (
            "tests/bot/test_guarded.py",
            "tests/bot/test_guarded_catalogue.py",
            "tests/bot/test_guarded_requests.py",
        ),
    ),
    Target("guarded-store", ("memory/store/guarded.py",), ("tests/memory/store/test_guarded.py",)),
    Target("dedupe", ("bot/state/dedupe.py",), ("tests/bot/state/test_dedupe.py",)),
    Target("dedupe-store", ("memory/store/dedupe.py",), ("tests/memory/store/test_dedupe.py",)),
    Target(
        "llm-citation-gate",
        ("bot/answer/llm.py",),
        ("tests/bot/answer/test_llm.py",),
        functions=("x_unknown_citations", "xǁGeneratorǁimprove"),
    ),
    Target(
        "abstention-search",
        ("knowledge/search.py",),
        ("tests/knowledge/test_search.py",),
        functions=("xǁKnowledgeǁsearch",),
    ),
    Target(
        "abstention-confidence",
        ("knowledge/ranking.py",),
        ("tests/knowledge/test_ranking.py",),
        functions=("x_confidence", "x_confidence_features"),
    ),
    Target(
        "abstention-answer",
        ("bot/answer/compose.py",),
        ("tests/bot/answer/test_compose.py",),
        functions=("xǁAnsweringǁ_runbooks", "x__summary"),
    ),
)


def _module(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def private_tree(parent: Path, target: Target) -> Path:
    """A copy of the sources and tests with this target's mutmut settings in its pyproject."""
    tree = parent / target.name
    tree.mkdir(parents=True)
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, tree / name, ignore=IGNORED)
        elif src.exists():
            shutil.copy2(src, tree / name)
    settings = {
        "source_paths": list(SOURCES),
        "only_mutate": list(target.files),
        # Test files that do not exist (yet) in this checkout are left out, not an error.
        "pytest_add_cli_args_test_selection": [t for t in target.tests if (ROOT / t).exists()],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q"],
        "also_copy": list(TOP_FILES),
    }
    lines = ["", "[tool.mutmut]", *(f"{k} = {json.dumps(v)}" for k, v in settings.items())]
    with (tree / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return tree


def mutmut(tree: Path, *args: str, log: Path | None = None) -> str:
    exe = Path(sys.executable).with_name("mutmut")
    out = subprocess.run(
        [str(exe), *args], cwd=tree, capture_output=True, text=True, encoding="utf-8"
    )
    if log is not None:
        log.write_text(out.stdout + out.stderr, "utf-8")
    if out.returncode != 0:
        raise SystemExit(f"mutmut {args[0]} failed for {tree.name}; see {log or 'its output'}.")
    return out.stdout


EQUIVALENT = "equivalent (SQL case)"
_SQL_WORD = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|WHERE|FROM|INTO|SET|VALUES)\b", re.I)
# What SQLite does read case-sensitively: quoted literals and named parameters.
_CASED = re.compile(r"'[^']*'|:[A-Za-z_]\w*")


# A column read from a database row by name (`row["team_id"]`): sqlean.Row, like
# sqlite3.Row, looks the name up case-insensitively.
_ROW_KEY = re.compile(r"""\brow\[(["'])[A-Za-z_]\w*\1\]""")


def _row_keys_lowered(line: str) -> str:
    return _ROW_KEY.sub(lambda m: m.group(0).lower(), line)


def sql_case_only(diff: str) -> bool:
    """The mutant only changes the letter case of SQL keywords or identifiers, which SQLite
    reads case-insensitively: every changed line is SQL text equal to the original but for
    case, with its quoted literals and :parameters unchanged, or differs only in the case of
    a column name read from a row (`row["ID"]`). Such a mutant cannot be killed."""
    removed = [
        ln[1:] for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")
    ]
    added = [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    if not removed or len(removed) != len(added):
        return False
    for old, new in zip(removed, added, strict=True):
        if old == new or old.lower() != new.lower():
            return False
        if _row_keys_lowered(old) == _row_keys_lowered(new):
            continue
        if not _SQL_WORD.search(old) or _CASED.findall(old) != _CASED.findall(new):
            return False
    return True


def statuses(tree: Path, target: Target) -> dict[str, str]:
    """Mutant name -> mutmut status, for this target's mutants only."""
    found: dict[str, str] = {}
    for line in mutmut(tree, "results", "--all", "true").splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and any(fnmatch.fnmatch(name, p) for p in target.patterns()):
            found[name] = status
    return found


def rate(counts: Counter[str]) -> tuple[int, int]:
    """(caught, counted): not-run mutants count neither way; 'no tests' and survivors miss."""
    counted = sum(n for s, n in counts.items() if s not in NOT_RUN)
    return sum(n for s, n in counts.items() if s in CAUGHT), counted


def run(target: Target, parent: Path, max_children: int | None) -> dict[str, str]:
    """Mutate and test one target; survivors that only change SQL's letter case are marked
    EQUIVALENT (counted neither way, and reported)."""
    tree = private_tree(parent, target)
    extra = ["--max-children", str(max_children)] if max_children else []
    mutmut(tree, "run", *extra, *target.patterns(), log=tree / "mutmut-run.log")
    found = statuses(tree, target)
    for name, status in found.items():
        if status == "survived" and sql_case_only(mutmut(tree, "show", name)):
            found[name] = EQUIVALENT
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="TARGET", help="run only these targets")
    parser.add_argument("--list", action="store_true", help="list targets and their tests")
    parser.add_argument("--keep", type=Path, help="keep the private trees here (default: delete)")
    parser.add_argument("--max-children", type=int, help="parallel mutant runs (mutmut default)")
    parser.add_argument("--show-survivors", action="store_true", help="print each survivor's diff")
    args = parser.parse_args()

    targets = [t for t in TARGETS if not args.only or t.name in args.only]
    if args.only and len(targets) != len(args.only):
        known = ", ".join(t.name for t in TARGETS)
        raise SystemExit(f"Unknown target in {args.only}; choose from: {known}.")
    if args.list:
        for t in targets:
            scope = ", ".join(t.functions) if t.functions else "every function"
            print(f"{t.name}: {', '.join(t.files)} ({scope}) <- {', '.join(t.tests)}")
        return

    parent = args.keep or Path(tempfile.mkdtemp(prefix="opsmemory-mutation-"))
    parent.mkdir(parents=True, exist_ok=True)
    total: Counter[str] = Counter()
    try:
        print(f"{'target':<24}{'mutants':>8}{'caught':>8}{'survived':>9}{'kill rate':>11}  time")
        for target in targets:
            started = time.monotonic()
            found = run(target, parent, args.max_children)
            counts = Counter(found.values())
            total += counts
            caught, counted = rate(counts)
            pct = f"{100 * caught / counted:.1f} %" if counted else "n/a"
            took = time.monotonic() - started
            same = (
                f", {counts[EQUIVALENT]} equivalent (SQL case) left out"
                if counts[EQUIVALENT]
                else ""
            )
            print(
                f"{target.name:<24}{counted:>8}{caught:>8}{counted - caught:>9}{pct:>11}"
                f"  {took:.0f} s{same}",
                flush=True,
            )
            for name, status in sorted(found.items()):
                if status not in CAUGHT and status not in NOT_RUN:
                    print(f"    {status}: {name}")
                    if args.show_survivors:
                        diff = mutmut(parent / target.name, "show", name)
                        print("\n".join(f"      {line}" for line in diff.splitlines()[2:]))
        caught, counted = rate(total)
        if counted:
            print(
                f"{'overall':<24}{counted:>8}{caught:>8}{counted - caught:>9}"
                f"{100 * caught / counted:>9.1f} %"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(parent, ignore_errors=True)


if __name__ == "__main__":
    main()
