"""Skills in the Agent Skills format: `skills/<name>/SKILL.md` with YAML front matter.

The index (name, one-line description, keywords) is read from front matter only, so it is cheap
and always available; a skill's body is read from disk only when it matches a request, and at most
MAX_MATCHES bodies are returned per request. Names are validated like runbook slugs and must equal
their folder name; a skill that fails validation is skipped with a logged warning (see `skipped`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from memory.errors import InvalidLimit
from memory.text import STOP_WORDS

log = logging.getLogger(__name__)

NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1_024
MAX_FRONT_MATTER_BYTES = 8_192
MAX_BODY_BYTES = 64_000
MAX_MATCHES = 3
MIN_MATCH_SCORE = 2.0
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class SkillSummary:
    name: str
    description: str


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    body: str


@dataclass(frozen=True)
class _Entry:
    summary: SkillSummary
    keywords: frozenset[str]
    path: Path
    body_offset: int


def _terms(text: str) -> set[str]:
    """Lowercase words with a plural `s` dropped, stopwords out."""
    words = _WORD.findall(text.lower().replace("-", " "))
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in STOP_WORDS}


@dataclass(frozen=True)
class SkillIndex:
    """Names and descriptions of every valid skill under one root."""

    entries: tuple[_Entry, ...]
    skipped: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def load(cls, root: Path) -> SkillIndex:
        """Read the front matter of every `<root>/<name>/SKILL.md` (bodies stay on disk)."""
        entries: list[_Entry] = []
        skipped: list[tuple[str, str]] = []
        base = root.resolve()
        folders = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
        for folder in folders:
            path = folder / "SKILL.md"
            if not path.is_file():
                continue
            entry = _read_entry(base, folder.name, path)
            if isinstance(entry, str):
                log.warning("skill_skipped", extra={"skill_folder": folder.name, "reason": entry})
                skipped.append((folder.name, entry))
            else:
                entries.append(entry)
        return cls(entries=tuple(entries), skipped=tuple(skipped))

    def summaries(self) -> list[SkillSummary]:
        return [e.summary for e in self.entries]

    def match(self, text: str, limit: int = MAX_MATCHES) -> list[Skill]:
        """Skills whose name, keywords or description match `text`, best first, bodies loaded."""
        if isinstance(limit, bool) or not 1 <= limit <= MAX_MATCHES:
            raise InvalidLimit(got=int(limit), cap=MAX_MATCHES)
        query = _terms(text)
        scored: list[tuple[float, _Entry]] = []
        for e in self.entries:
            score = (
                3.0 * len(query & e.keywords)
                + 2.0 * len(query & _terms(e.summary.name))
                + 0.5 * len(query & _terms(e.summary.description))
            )
            if score >= MIN_MATCH_SCORE:
                scored.append((score, e))
        scored.sort(key=lambda se: (-se[0], se[1].summary.name))
        return [_load_body(e) for _, e in scored[:limit]]


def _read_entry(base: Path, folder: str, path: Path) -> _Entry | str:
    """Parse one SKILL.md front matter, or return why the skill is skipped."""
    real = path.resolve()
    if not real.is_relative_to(base):
        return "SKILL.md points outside the skills folder"
    with real.open("rb") as fh:
        head = fh.read(MAX_FRONT_MATTER_BYTES)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = head.decode("utf-8", errors="ignore")  # a body cut mid-character is fine here
    match = re.match(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*\r?\n", text, re.S)
    if not match:
        return "no YAML front matter (--- name/description ---) at the top"
    try:
        meta = yaml.safe_load(match[1])
    except yaml.YAMLError:
        return "front matter is not valid YAML"
    if not isinstance(meta, dict):
        return "front matter is not a mapping"
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS or not NAME_RE.fullmatch(name):
        return "name must be lowercase kebab-case of at most 64 characters"
    if name != folder:
        return "name must equal the folder name"
    if not isinstance(description, str) or not description.strip():
        return "description is missing"
    if len(description) > MAX_DESCRIPTION_CHARS:
        return f"description is longer than {MAX_DESCRIPTION_CHARS} characters"
    raw_keywords = meta.get("keywords") or []
    if isinstance(raw_keywords, str):
        raw_keywords = raw_keywords.split(",")
    keywords = frozenset(t for k in raw_keywords if isinstance(k, str) for t in _terms(k))
    offset = len(match[0].encode("utf-8"))
    summary = SkillSummary(name=name, description=" ".join(description.split()))
    return _Entry(summary=summary, keywords=keywords, path=real, body_offset=offset)


def _load_body(entry: _Entry) -> Skill:
    """Read one skill's body now that it is needed (bounded, invalid UTF-8 replaced)."""
    with entry.path.open("rb") as fh:
        fh.seek(entry.body_offset)
        body = fh.read(MAX_BODY_BYTES).decode("utf-8", errors="replace").strip()
    return Skill(name=entry.summary.name, description=entry.summary.description, body=body)
