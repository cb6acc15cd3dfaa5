"""A runbook section's Markdown as Slack mrkdwn, so an answer can lead with what to do.

Headings and `**bold**` become *bold*, bullets •, code fences stay code blocks (their language
tag dropped, since Slack would show it as text), and the text is cut at a line end, closing an
open code block. Links become `<url|text>` when the caller escapes (a complete reply), or just
their text when the caller's renderer escapes the whole message later.
"""

from __future__ import annotations

import re
from collections.abc import Callable

BODY_CHARS = 1_200
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$")
_LINK = re.compile(r"\[([^\[\]\n]+)\]\((https?://[^()\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_BLANKS = re.compile(r"\n{3,}")


def to_mrkdwn(
    text: str, *, escape: Callable[[str], str] | None = None, limit: int = BODY_CHARS
) -> str:
    """`text` as mrkdwn of at most about `limit` characters (see the module docstring)."""
    esc = escape or (lambda s: s)
    out: list[str] = []
    in_fence = False
    used = 0
    for raw in text.strip().splitlines():
        if _FENCE.match(raw):
            in_fence = not in_fence
            line = "```"
        elif in_fence:
            line = esc(raw)
        else:
            line = _inline(raw, esc, links=escape is not None)
        if used + len(line) + 1 > limit - 8:
            out.append("…")
            break
        out.append(line)
        used += len(line) + 1
    body = _BLANKS.sub("\n\n", "\n".join(out))
    if body.count("```") % 2:
        body = body.replace("\n…", "") + "\n```" + ("\n…" if body.endswith("…") else "")
    return body


def _inline(line: str, esc: Callable[[str], str], *, links: bool) -> str:
    heading = _HEADING.match(line)
    if heading:
        return f"*{esc(heading[1])}*"
    parts: list[str] = []
    last = 0
    for m in _LINK.finditer(line):
        parts.append(esc(line[last : m.start()]))
        parts.append(f"<{m[2]}|{esc(m[1])}>" if links else esc(m[1]))
        last = m.end()
    parts.append(esc(line[last:]))
    line = _BOLD.sub(lambda m: f"*{m[1] or m[2]}*", "".join(parts))
    return _BULLET.sub(lambda m: f"{m[1]}• ", line)
