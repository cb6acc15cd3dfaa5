"""The runbook corpus: slug validation and safe reads from one directory tree of Markdown files.

A slug is normalised once, at the boundary, and rejected (before any filesystem access) unless it
is lowercase kebab-case. Files are only ever reached through the map built by scanning the corpus
root, so no user-supplied text becomes a path. Documented behaviours for odd files:
- a file that is not valid UTF-8, larger than MAX_FILE_BYTES, or whose stem is not a valid slug
  is skipped with a logged warning (listed in `Corpus.skipped`);
- a symlink whose target lies outside the corpus root is skipped the same way;
- two files whose stems give the same slug (in different subfolders) raise DuplicateRunbook.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.errors import DuplicateRunbook, UnknownRunbook
from memory.errors import InvalidSlug

log = logging.getLogger(__name__)

SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_SLUG_CHARS = 80
MAX_FILE_BYTES = 1_000_000


def normalise_slug(text: str) -> str:
    """Lowercase, drop `.md`, turn `_`/spaces into `-`, collapse repeats; then accept only kebab-case.

    Only these harmless spellings are normalised; anything else that is not `[a-z0-9]+(-[a-z0-9]+)*`
    of at most 80 characters (dots, slashes, `%`, leading or trailing hyphens) is rejected.
    """
    if not isinstance(text, str):
        raise InvalidSlug("A runbook slug must be text like high-latency.")
    slug = re.sub(r"[-_\s]+", "-", text.strip().lower().removesuffix(".md"))
    if not slug:
        raise InvalidSlug("The runbook slug is empty; use a name like high-latency.")
    if len(slug) > MAX_SLUG_CHARS:
        raise InvalidSlug(
            f"Runbook slugs can be at most {MAX_SLUG_CHARS} characters; this one has {len(slug)}."
        )
    if not SLUG_RE.fullmatch(slug):
        raise InvalidSlug(
            "Runbook slugs use only lowercase letters, digits and single hyphens "
            "(like high-latency); paths, dots, slashes and encoded characters are not allowed."
        )
    return slug


@dataclass(frozen=True)
class RunbookFile:
    """One readable runbook: its slug, path relative to the root, text and sha256."""

    slug: str
    relpath: str
    text: str
    sha256: str


@dataclass(frozen=True)
class Corpus:
    """All runbooks under `root`, read once; `skipped` lists (relpath, reason) of ignored files."""

    root: Path
    files: dict[str, RunbookFile]
    skipped: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def load(cls, root: Path) -> Corpus:
        """Scan `root` (subfolders included, symlinked folders not followed) and read every `.md`."""
        base = root.resolve()
        files: dict[str, RunbookFile] = {}
        skipped: list[tuple[str, str]] = []
        if not base.is_dir():
            return cls(root=base, files={}, skipped=())
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith(".md") or name.startswith("."):
                    continue
                path = Path(dirpath) / name
                rel = path.relative_to(base).as_posix()
                loaded = _read_one(base, path, rel)
                if isinstance(loaded, str):
                    log.warning("runbook_skipped", extra={"path": rel, "reason": loaded})
                    skipped.append((rel, loaded))
                    continue
                if loaded.slug in files:
                    raise DuplicateRunbook(loaded.slug, files[loaded.slug].relpath, rel)
                files[loaded.slug] = loaded
        return cls(root=base, files=dict(sorted(files.items())), skipped=tuple(skipped))

    @property
    def slugs(self) -> list[str]:
        return list(self.files)

    @property
    def digest(self) -> str:
        """sha256 over every (slug, content hash): changes whenever any runbook changes."""
        h = hashlib.sha256()
        for slug, f in self.files.items():
            h.update(f"{slug}\0{f.sha256}\n".encode())
        return h.hexdigest()

    def get(self, slug: str) -> RunbookFile:
        """The runbook with this slug (normalised first); UnknownRunbook lists the known ones."""
        key = normalise_slug(slug)
        try:
            return self.files[key]
        except KeyError:
            raise UnknownRunbook(key, self.slugs) from None


def _read_one(base: Path, path: Path, rel: str) -> RunbookFile | str:
    """Read one file, or return why it is skipped."""
    try:
        slug = normalise_slug(path.stem)
    except InvalidSlug:
        return "file name is not a valid slug (use lowercase kebab-case)"
    try:
        real = path.resolve(strict=True)
    except OSError:
        return "broken symlink"
    if not real.is_relative_to(base):
        return "symlink points outside the corpus"
    if not real.is_file():
        return "not a regular file"
    if real.stat().st_size > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES} bytes"
    raw = real.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte {exc.start})"
    return RunbookFile(
        slug=slug,
        relpath=rel,
        text=text.removeprefix("\ufeff"),
        sha256=hashlib.sha256(raw).hexdigest(),
    )
