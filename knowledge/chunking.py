"""Heading-bounded chunking of one runbook: `##` and `###` sections with heading path and anchor.

Each chunk knows its slug, the runbook title, its heading path, a GitHub-style anchor and a content
hash, so a citation can render as `slug › Section` and link to `<base>/<slug>.md#<anchor>`.
Text before the first `##` (after the title) is the "overview" chunk; a file with no `##`/`###`
headings is a single chunk. An overview that is only a second title line (`# KubePodCrashLooping`
under front matter) stays indexed, since it names the alert, but search never cites it
(`knowledge.search.says_something`). Headings inside fenced code blocks are ignored.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import yaml

#: Bump whenever chunk boundaries, titles or anchors change: it is part of index provenance.
CHUNKER_VERSION = "heading-v1"

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)


@dataclass(frozen=True)
class Chunk:
    """One section of a runbook, ready to index and cite."""

    slug: str
    title: str
    heading_path: tuple[str, ...]
    anchor: str
    text: str
    content_hash: str
    ordinal: int

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else self.title


@dataclass(frozen=True)
class ChunkedRunbook:
    slug: str
    title: str
    chunks: tuple[Chunk, ...]


def github_anchor(heading: str) -> str:
    """GitHub's heading id: lowercase, drop punctuation but `-`/`_`, spaces become hyphens."""
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def content_hash(text: str) -> str:
    """Short, stable sha256 prefix of a chunk's text (64 bits: enough to spot edits)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def chunk_runbook(slug: str, text: str) -> ChunkedRunbook:
    """Split a Markdown runbook into heading-bounded chunks."""
    body, meta_title = _strip_front_matter(text)
    title = meta_title
    seen: dict[str, int] = {}
    sections: list[tuple[tuple[str, ...], str, list[str]]] = [((), "", [])]
    path: list[str] = []
    in_fence = False
    for line in body.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match is None:
            sections[-1][2].append(line)
            continue
        level, heading = len(match[1]), match[2].strip()
        anchor = _unique_anchor(github_anchor(heading), seen)
        if level == 1 and not title:
            title = heading
            continue
        if level not in (2, 3):
            sections[-1][2].append(line)
            continue
        path = [heading] if level == 2 or not path else [path[0], heading]
        sections.append((tuple(path), anchor, []))
    title = title or slug.replace("-", " ").capitalize()
    chunks: list[Chunk] = []
    for heading_path, anchor, lines in sections:
        section_text = "\n".join(lines).strip()
        if not section_text and not heading_path:
            continue
        chunk_text = "\n".join([*heading_path[-1:], section_text]).strip()
        chunks.append(
            Chunk(
                slug=slug,
                title=title,
                heading_path=heading_path,
                anchor=anchor,
                text=section_text,
                content_hash=content_hash(chunk_text),
                ordinal=len(chunks),
            )
        )
    if not chunks:
        chunks.append(Chunk(slug, title, (), "", "", content_hash(""), 0))
    return ChunkedRunbook(slug=slug, title=title, chunks=tuple(chunks))


def _unique_anchor(anchor: str, seen: dict[str, int]) -> str:
    """GitHub suffixes repeated anchors with -1, -2, ... in document order."""
    count = seen.get(anchor, 0)
    seen[anchor] = count + 1
    return anchor if count == 0 else f"{anchor}-{count}"


def _strip_front_matter(text: str) -> tuple[str, str]:
    """Remove YAML front matter; return (body, title from it or "")."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return text, ""
    try:
        meta = yaml.safe_load(match[1])
    except yaml.YAMLError:
        return text[match.end() :], ""
    title = meta.get("title") if isinstance(meta, dict) else None
    return text[match.end() :], str(title).strip() if isinstance(title, str | int) else ""
