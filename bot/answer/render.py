"""Block Kit rendering (pure: domain objects in, dicts out) with Slack's limits enforced here:
at most 50 blocks per message, 3,000 characters per section text, long content cut with a link.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.answer import messages
from bot.answer.compose import Answer, SimilarIncident, Source

Block = dict[str, Any]
MAX_BLOCKS = 50
MAX_HOME_BLOCKS = 100
MAX_SECTION_CHARS = 3000
MAX_BUTTON_VALUE = 2000


def truncate(text: str, limit: int = MAX_SECTION_CHARS, *, link: str | None = None) -> str:
    """`text` cut to `limit` characters; the cut says so and links to the full text if it can."""
    if len(text) <= limit:
        return text
    tail = f"… <{link}|(truncated, full text)>" if link else "… (truncated)"
    return text[: limit - len(tail)].rstrip() + tail


def section(text: str, *, link: str | None = None) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, link=link)}}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": truncate(text)}]}


def button(text: str, action_id: str, value: str, *, style: str | None = None) -> Block:
    b: Block = {
        "type": "button",
        "text": {"type": "plain_text", "text": text[:75]},
        "action_id": action_id,
        "value": value[:MAX_BUTTON_VALUE],
    }
    if style:
        b["style"] = style
    return b


def fit(blocks: list[Block], *, limit: int = MAX_BLOCKS, link: str | None = None) -> list[Block]:
    """At most `limit` blocks; when cut, the last block says how many were left out."""
    if len(blocks) <= limit:
        return blocks
    kept = blocks[: limit - 1]
    more = len(blocks) - len(kept)
    where = f" <{link}|See everything>" if link else ""
    return [*kept, context(f"{more} more not shown.{where}")]


def _cite(s: Source) -> str:
    label = f"<{s.url}|{s.label}>" if s.url else s.label
    return f"[{s.key}] {label}"


def _source_lines(title: str, sources: Sequence[Source]) -> list[Block]:
    if not sources:
        return []
    lines = [f"*{title}*"] + [f"• {_cite(s)} — {_one_line(s.text)}" for s in sources]
    return [section("\n".join(lines))]


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def answer(a: Answer, *, link: str | None = None) -> list[Block]:
    """The threaded answer: summary, cited runbooks, memory, similar incidents, buttons."""
    blocks: list[Block] = [section(a.summary, link=link)]
    blocks += _source_lines("Runbooks", a.of_kind("runbook"))
    blocks += _source_lines("This incident's memory", a.of_kind("incident", "episode"))
    blocks += _source_lines("Your memory", a.of_kind("mine"))
    blocks += similar_incidents(a.similar)
    if a.notice:
        blocks.append(context(a.notice))
    buttons = [
        button("Remember this", "remember_answer", "remember"),
        button("Not helpful", "not_helpful", "not_helpful"),
    ]
    buttons += [
        button(f"Propose: {messages.ACTION_NAMES[p.kind]}", "propose_action", p.kind)
        for p in a.actions
    ]
    blocks.append({"type": "actions", "block_id": "answer_actions", "elements": buttons})
    origin = "generated from the sources above" if a.generated else "cited, no model used"
    blocks.append(context(f"opsmemory · {origin}"))
    return fit(blocks, link=link)


def similar_incidents(similar: Sequence[SimilarIncident]) -> list[Block]:
    """Up to three past incidents: id (linked), title, when, status, root cause line; or a
    plain statement that nothing similar was found."""
    if not similar:
        return [context(messages.NOTHING_SIMILAR)]
    lines = ["*Similar past incidents*"]
    for s in similar[:3]:
        name = f"<{s.url}|{s.incident_id}>" if s.url else s.incident_id
        where = f" in <#{s.channel_id}>" if s.channel_id and not s.url else ""
        facts = " · ".join(x for x in (s.when, s.status) if x)
        head = f"• {name} {_one_line(s.title, 80)}{where} ({facts})"
        line = s.line or s.why
        lines.append(f"{head} — {_one_line(line)}" if line else head)
    return [section("\n".join(lines))]


def plain(text: str) -> list[Block]:
    return [section(text)]


def approval_request(approval_id: int, text: str) -> list[Block]:
    """Approve/Reject buttons: the only way a production change can be approved."""
    value = str(approval_id)
    return [
        section(text),
        {
            "type": "actions",
            "block_id": "approval",
            "elements": [
                button("Approve", "approve_action", value, style="primary"),
                button("Reject", "reject_action", value, style="danger"),
            ],
        },
    ]


def save_modal(text: str, *, channel_id: str, message_ts: str) -> dict[str, Any]:
    """The message shortcut's modal, pre-filled with the message text."""
    meta = json.dumps({"channel_id": channel_id, "message_ts": message_ts})
    return {
        "type": "modal",
        "callback_id": "save_note_modal",
        "private_metadata": meta,
        "title": {"type": "plain_text", "text": messages.SAVE_MODAL_TITLE[:24]},
        "submit": {"type": "plain_text", "text": "Save"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {
                "type": "input",
                "block_id": "note",
                "label": {"type": "plain_text", "text": "Note"},
                "element": {
                    "type": "plain_text_input",
                    "action_id": "text",
                    "multiline": True,
                    "initial_value": text[:3000],
                    "max_length": 3000,
                },
            }
        ],
    }


def forget_everything_modal() -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": "forget_everything_modal",
        "title": {"type": "plain_text", "text": "Forget everything?"},
        "submit": {"type": "plain_text", "text": "Forget everything"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            section(
                "This deletes every fact, note and preference opsmemory keeps "
                "about you. It cannot be undone."
            )
        ],
    }


def home(
    *,
    counts: Mapping[str, int],
    facts: Sequence[Any],
    notes: Sequence[Any],
    episodes: Sequence[Any],
) -> dict[str, Any]:
    """The App Home memory inspector: counts per kind, the latest items each with Delete, plus
    export and forget-everything."""
    blocks: list[Block] = [
        {"type": "header", "text": {"type": "plain_text", "text": "What opsmemory remembers"}},
        {
            "type": "actions",
            "block_id": "home_controls",
            "elements": [
                button("Export my memory", "export_memory", "export"),
                button("Forget everything", "forget_everything", "forget", style="danger"),
            ],
        },
    ]
    held = ", ".join(f"{kind} {n:,}" for kind, n in sorted(counts.items()))
    blocks.append(context(f"Stored about you: {held or 'nothing'}."))
    for title, items in (("About you", facts), ("Recent notes", notes)):
        blocks.append(section(f"*{title}*" + ("" if items else "\nNothing yet.")))
        for item in items[:20]:
            blocks.append(
                {
                    **section(f"{_one_line(item.text, 280)}  `{item.id}`"),
                    "accessory": button("Delete", "delete_item", str(item.id)),
                }
            )
    blocks.append(section("*Last episodes*" + ("" if episodes else "\nNothing yet.")))
    for ep in episodes[:10]:
        blocks.append(section(_one_line(getattr(ep, "summary", str(ep)), 280)))
    return {"type": "home", "blocks": fit(blocks, limit=MAX_HOME_BLOCKS)}


# A code section spends 6 characters on its fences; escaping can grow a line, so leave room.
EXPORT_CHUNK_CHARS = MAX_SECTION_CHARS - 200
EXPORT_SECTIONS_PER_MESSAGE = 10


def _mrkdwn_escape(text: str) -> str:
    """Slack's three control characters, escaped so stored placeholders like <EMAIL> survive."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _chunks(text: str, limit: int) -> list[str]:
    """`text` cut at line ends into pieces of at most `limit` characters (long lines are split)."""
    out: list[str] = []
    buf = ""
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            if buf:
                out.append(buf)
                buf = ""
            out.append(line[:limit])
            line = line[limit:]
        if len(buf) + len(line) > limit:
            out.append(buf)
            buf = ""
        buf += line
    if buf:
        out.append(buf)
    return out


def export_messages(dump: str) -> list[list[Block]]:
    """The whole export as code sections, split over as many messages as it needs; nothing is
    cut. Joining the code sections in order (and un-escaping &amp; &lt; &gt;) gives `dump`."""
    sections = [
        section(f"```{piece}```") for piece in _chunks(_mrkdwn_escape(dump), EXPORT_CHUNK_CHARS)
    ]
    per = EXPORT_SECTIONS_PER_MESSAGE
    groups = [sections[i : i + per] for i in range(0, len(sections), per)] or [[]]
    return [
        [context(messages.EXPORT_PART.format(part=n, parts=len(groups))), *group]
        for n, group in enumerate(groups, 1)
    ]
