"""Checks of what the settings point at, shared by `run`, `index` and `doctor`: the runbooks
directory exists and holds runbooks. A failure is a SettingsError naming the variable and the fix.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import knowledge
from bot.settings import Settings, SettingsError
from knowledge.corpus import Corpus

BUILT_IN_RUNBOOKS = Path(knowledge.__file__).parent / "runbooks"


def runbooks_path(settings: Settings) -> Path:
    """OPSMEMORY_RUNBOOKS_DIR, or the runbooks that ship with opsmemory."""
    return settings.runbooks_dir or BUILT_IN_RUNBOOKS


async def check_runbooks(
    path: Path, *, allow_empty: bool, variable: str = "OPSMEMORY_RUNBOOKS_DIR"
) -> Corpus:
    """The corpus at `path`; SettingsError when it is missing, not a folder, or (unless
    `allow_empty`) holds no readable runbook. `variable` is what the operator set the path with."""
    return await asyncio.to_thread(_load_checked, path, allow_empty, variable)


def _load_checked(path: Path, allow_empty: bool, variable: str) -> Corpus:
    if not path.exists():
        raise SettingsError(
            [
                f"{variable} is {path}, which does not exist; fix the path, or "
                f"{'unset it' if variable.startswith('OPSMEMORY_') else 'leave it out'} to use "
                "the runbooks that ship with opsmemory."
            ]
        )
    if not path.is_dir():
        raise SettingsError(
            [
                f"{variable} is {path}, which is a file; point it at the folder that holds your "
                "runbook .md files."
            ]
        )
    corpus = Corpus.load(path)
    if not corpus.files and not allow_empty:
        found = (
            f"no readable runbooks ({len(corpus.skipped)} .md files skipped; "
            "`opsmemory index` lists why)"
            if corpus.skipped
            else "no runbooks (.md files)"
        )
        raise SettingsError(
            [
                f"{variable} is {path}, which holds {found}; add runbooks there, fix the path, "
                "or set OPSMEMORY_RUNBOOKS_ALLOW_EMPTY=true to run without runbooks."
            ]
        )
    return corpus


async def check_start(settings: Settings) -> None:
    """Everything `run` refuses to start without, beyond what Settings validates on its own."""
    await check_runbooks(runbooks_path(settings), allow_empty=settings.runbooks_allow_empty)
