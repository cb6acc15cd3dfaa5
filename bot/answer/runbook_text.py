"""A runbook section's Markdown as Slack mrkdwn, so an answer can lead with what to do.

Headings and `**bold**` become *bold*, bullets •, code fences stay code blocks (their language
tag dropped, since Slack would show it as text), and the text is cut at a line end, closing an
open code block. `lead` cuts a section's Markdown to the part an answer leads with at a sentence,
line or word boundary with an ellipsis, never inside a `code span`, a `<…>` Slack entity or an
`&…;` escape, so an answer never ends in "Check l". Links become `<url|text>` when the caller
escapes (a complete reply), or "text (url)" when the caller's renderer escapes the whole message
later. Layout HTML (`<details>`, `<summary>`) is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from knowledge.names import name_key

BODY_CHARS = 1_200
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$")
_LINK = re.compile(r"\[([^\[\]\n]+)\]\((https?://[^()\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_BLANKS = re.compile(r"\n{3,}")
ELLIPSIS = "…"
#: Room below which an overflowing paragraph is not started at all.
MIN_PART = 40
#: A boundary this far back from the limit is still a good place to cut: past it, cut at a word.
BOUNDARY_SHARE = 0.5
_SENTENCE_END = re.compile(r"[.!?:;](?=\s)|\n")
#: An `&…;` escape cut before its `;` (a cut must move before it).
OPEN_ENTITY = re.compile(r"&[#a-zA-Z0-9]*$")


_HEADING_MARK = re.compile(r"^\s*#{1,6}\s+", re.MULTILINE)


def plain(text: str) -> str:
    """A runbook's Markdown as the words a one-line excerpt shows: links as their words ("See
    [Debugging Pods](https://…)" -> "See Debugging Pods", not a raw URL cut mid-way), headings
    without their `#`, bold without its `**`, and no layout HTML."""
    words = _LINK.sub(r"\1", _HEADING_MARK.sub("", text))
    return without_html(_BOLD.sub(lambda m: m[1] or m[2], words))


#: HTML that Markdown runbooks use for layout (GitHub renders it; Slack would show the tags).
_SUMMARY = re.compile(r"<summary>.*?</summary>", re.IGNORECASE | re.DOTALL)
_LAYOUT_TAG = re.compile(
    r"</?(?:details|summary|br|p|div|span|b|i|em|strong|sub|sup|kbd)\b[^<>]*/?>", re.IGNORECASE
)


def without_html(text: str) -> str:
    """`text` without layout HTML: a `<summary>` label ("Full context") goes whole, other tags
    (`<details>`, `<br>`, `<b>`…) leave their words."""
    return _LAYOUT_TAG.sub("", _SUMMARY.sub("", text))


def lead(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters (ellipsis and a closing fence included) at the
    last line or sentence end in its second half, else at the last word boundary; a cut that
    would fall inside an inline code span, a `<…>` entity or an `&…;` escape moves before it, and
    an open code fence is closed. Text within `limit` is returned as it is."""
    if len(text) <= limit:
        return text
    room = limit - len(ELLIPSIS) - len("\n```")
    cut = _at_boundary(text[: room + 1], room)
    cut = _outside_spans(cut).rstrip()
    if cut.count("```") % 2:
        return f"{cut}\n```\n{ELLIPSIS}"
    if cut.endswith("```"):
        return f"{cut}\n{ELLIPSIS}"
    return cut + (" " if cut.endswith(("`", ">", ".", "!", "?", ":", ";")) else "") + ELLIPSIS


def _at_boundary(head: str, room: int) -> str:
    """`head` (room + 1 characters, so a word ending right at the limit counts as whole) cut at
    a line/sentence end past BOUNDARY_SHARE of `room`, else at its last whitespace."""
    ends = [m.end() for m in _SENTENCE_END.finditer(head, 0, room + 1) if m.end() <= room]
    if ends and ends[-1] >= BOUNDARY_SHARE * room:
        return head[: ends[-1]]
    space = max(head.rfind(" ", 0, room + 1), head.rfind("\n", 0, room + 1))
    return head[:space] if space > 0 else head[:room]


def _outside_spans(cut: str) -> str:
    """`cut` moved back before an inline code span, Slack entity or escape it ends inside."""
    while True:
        line_start = cut.rfind("\n") + 1
        line = cut[line_start:]
        in_fence = cut.count("```") % 2 == 1
        if in_fence and line and not line.lstrip().startswith("```"):
            # A command is cut whole or not at all.
            cut = cut[:line_start]
            continue
        if in_fence and cut.rstrip().splitlines()[-1].lstrip().startswith("```"):
            cut = cut.rstrip()[: cut.rstrip().rfind("```")].rstrip()  # an opening fence alone
            continue
        ticks = line.replace("```", "").count("`")
        if not in_fence and ticks % 2:
            cut = cut[: line_start + line.rfind("`")].rstrip()
            continue
        if cut.rfind("<") > cut.rfind(">"):
            cut = cut[: cut.rfind("<")].rstrip()
            continue
        trimmed = OPEN_ENTITY.sub("", cut)
        if trimmed != cut:
            cut = trimmed.rstrip()
            continue
        return cut


def without_leading_headings(text: str, names: Iterable[str]) -> str:
    """`text` without the heading lines it opens with that only repeat one of `names` (the
    runbook's slug or title, the section's name, as its label already shows them): "#
    PrometheusOutOfOrderTimestamps\n\nMore information…" -> "More information…". A heading that
    says more ("### Option A: flush the session cache") stays; "" when only such headings."""
    said = {name_key(n) for n in names}
    lines = text.strip().splitlines()
    while lines and (
        not lines[0].strip()
        or ((h := _HEADING.match(lines[0].strip())) and name_key(h.group(1)) in said)
    ):
        lines.pop(0)
    return "\n".join(lines)


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
            raw = without_html(raw)
            if not raw.strip() and raw:
                continue  # a line that held only HTML (<details>) says nothing in Slack
            line = _inline(raw, esc, links=escape is not None)
        if used + len(line) + 1 > limit - 8:
            room = limit - 8 - used
            if in_fence and out and out[-1] == "```":
                out.pop()  # a code block whose first command does not fit is not opened
                out.append(ELLIPSIS)
                in_fence = False
                break
            # A paragraph that does not fit is cut at a word, not dropped (a command line is).
            out.append(lead(line, room) if not in_fence and room >= MIN_PART else ELLIPSIS)
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
        # Without links (the caller escapes the whole message later) the address is shown
        # after the words, where Slack links it itself: the words alone lose the link.
        # The address is the runbook file's text: `<`, `>` and `|` in it would end the link
        # early and let the rest be read as Slack markup, so they are percent-encoded.
        url = m[2].replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")
        parts.append(f"<{url}|{esc(m[1])}>" if links else f"{esc(m[1])} ({url})")
        last = m.end()
    parts.append(esc(line[last:]))
    line = _BOLD.sub(lambda m: f"*{m[1] or m[2]}*", "".join(parts))
    return _BULLET.sub(lambda m: f"{m[1]}• ", line)


_RULE = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")  # a rule, or a setext heading's underline
_SETEXT = re.compile(r"^\s*(?:=+|-+)\s*$")
_TABLE = re.compile(r"^\s*\|")
_QUOTE = re.compile(r"^\s*(?:>\s*)+")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


_COMMENT = re.compile(r"^\s*(?:#|//|--)")  # a comment in the code, no command
CONTINUED_LINES = 3  # lines of one command shown at most


def first_words(text: str) -> str:
    """What a runbook section says first, as one line of plain words: its first paragraph or
    list item (a paragraph ending in ":" takes the item it introduces), without Markdown, list
    numbers, bullets, checkboxes, quote marks, images, tables, rules or layout HTML; a section
    that is only code gives its first command, as code. A wrapped paragraph is read whole."""
    in_fence = False
    kept: list[str] = []
    command = ""
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        if in_fence:
            command = command or raw.strip()
            if kept and kept[-1].endswith(":") and raw.strip() and not _COMMENT.match(raw):
                # "Kafka:" introduces the code under it: the label and its first command, with
                # the lines a trailing backslash continues it on (a few: a line, not a script).
                said = [raw.strip()]
                for more in lines[i + 1 : i + CONTINUED_LINES]:
                    if not said[-1].endswith("\\") or _FENCE.match(more):
                        break
                    said.append(more.strip())
                return f"{plain(' '.join(kept))} `{' '.join(said)}`"
            continue
        if i + 1 < len(lines) and _SETEXT.match(lines[i + 1]) and not _ITEM.match(raw):
            continue  # a heading underlined on the next line
        line = without_html(_IMAGE.sub("", raw))
        skip = _HEADING.match(line.strip()) or _RULE.match(line) or _TABLE.match(line)
        if skip or not line.strip():
            if kept and not kept[-1].endswith(":"):
                break
            continue
        item = _ITEM.match(line) is not None
        if kept and item and not kept[-1].endswith(":"):
            break  # the next item starts
        kept.append(_ITEM.sub("", _QUOTE.sub("", line)).strip())
        if item and len(kept) > 1:
            break  # the item a "…:" line introduces
    if kept:
        return plain(" ".join(kept))
    return f"`{command}`" if command else ""
