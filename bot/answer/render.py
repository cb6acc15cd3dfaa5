"""Block Kit rendering (pure: domain objects in, dicts out) with Slack's limits enforced here:
at most 50 blocks per message, 3,000 characters per section text, long content cut with a link.

Slack-safe text lives here too: every stored text the bot re-emits goes through `escape` (or
`one_line`), so `<!channel>`, `<@U…>` and disguised links `<https://evil|https://good>` show as
inert text; links the bot builds itself (`bot_link`) stay links; `clip` never cuts an entity.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bot.answer import messages, runbook_text
from bot.answer.compose import Answer, SimilarIncident, Source
from memory.episodes.statements import labelled_part
from memory.text import at_word

if TYPE_CHECKING:
    from knowledge.search import RunbookHit

Block = dict[str, Any]
MAX_BLOCKS = 50
MAX_HOME_BLOCKS = 100
MAX_SECTION_CHARS = 3000
MAX_BUTTON_VALUE = 2000
#: Section titles of an answer's memory items (the Slack replay eval reads answers by them).
MEMORY_TITLE = "Memory"
SIMILAR_TITLE = "Similar past incidents"


def escape(text: str) -> str:
    """Stored text made inert for Slack mrkdwn: `&`, `<` and `>` as Slack's entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def bot_link(url: str, label: str) -> str:
    """A link the bot builds itself (a permalink, a runbook URL): `label` is escaped text."""
    safe_url = url.replace("<", "%3C").replace(">", "%3E").replace("|", "%7C").replace(" ", "%20")
    return f"<{safe_url}|{escape(label)}>"


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, never ending inside an `&…;` entity or a `<…>` link."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    cut = runbook_text.OPEN_ENTITY.sub("", cut)
    if cut.rfind("<") > cut.rfind(">"):
        cut = cut[: cut.rfind("<")]
    return cut


#: A word boundary this far into the room is where a long line is cut; before it, mid-word.
WORD_CUT_SHARE = 0.6


def one_line(text: str, limit: int = 200) -> str:
    """Stored text on one line, escaped, at most `limit` characters, cut after a whole word
    (mid-word only when the line has no space late enough) and never inside an entity; an
    ellipsis says it was cut."""
    flat = escape(" ".join(text.split()))
    if len(flat) <= limit:
        return flat
    cut = at_word(flat, len(clip(flat, limit - 1)), share=WORD_CUT_SHARE)
    return cut.rstrip() + "…"


def truncate(text: str, limit: int = MAX_SECTION_CHARS, *, link: str | None = None) -> str:
    """`text` cut to `limit` characters; the cut says so and links to the full text if it can.
    The cut never lands inside an entity or a link (`clip`)."""
    if len(text) <= limit:
        return text
    tail = f"… <{link}|(truncated, full text)>" if link else "… (truncated)"
    return clip(text, limit - len(tail)).rstrip() + tail


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
    label = bot_link(s.url, s.label) if s.url else escape(s.label)
    return f"[{s.key}] {label}"


def _plain(s: Source) -> str:
    """A source's text as a line reads it: a runbook's Markdown links as their words."""
    return runbook_text.plain(s.text) if s.kind == "runbook" else s.text


def _source_lines(title: str, sources: Sequence[Source]) -> list[Block]:
    if not sources:
        return []
    lines = [f"*{title}*"] + [f"• {_cite(s)} — {one_line(_plain(s))}" for s in sources]
    return [section("\n".join(lines))]


def shown_refs(a: Answer) -> str:
    """The "Remember this" button value: what the answer showed, as stored ids (JSON)."""
    refs: list[str] = []
    for s in a.sources:
        if s.ref and len(json.dumps([*refs, s.ref])) <= MAX_BUTTON_VALUE:
            refs.append(s.ref)
    return json.dumps(refs)


def answer(a: Answer, *, link: str | None = None) -> list[Block]:
    """The threaded answer others read: summary, cited runbooks, memory, similar incidents,
    buttons. The asker's personal memory is never here (`personal_addendum`)."""
    blocks: list[Block] = [section(escape(a.summary), link=link)]
    blocks += _source_lines("Runbooks", a.of_kind("runbook"))
    blocks += _source_lines(MEMORY_TITLE, a.of_kind("incident", "episode"))
    if a.similar_searched:
        blocks += similar_incidents(a.similar)
    if a.notice:
        blocks.append(context(a.notice))
    buttons = [
        button("Remember this", "remember_answer", shown_refs(a)),
        button("Not helpful", "not_helpful", "not_helpful"),
    ]
    buttons += [
        button(
            f"Propose: {p.title}",
            "propose_action",
            json.dumps({"action": p.kind, "source": p.source_label}),
        )
        for p in a.actions
    ]
    blocks.append({"type": "actions", "block_id": "answer_actions", "elements": buttons})
    if a.actions:
        named = "; ".join(
            f"{escape(p.title)} is named by {escape(p.source_label)}" for p in a.actions
        )
        blocks.append(context(f"Proposals: {named}. Proposing asks you for every parameter."))
    origin = "generated from the sources above" if a.generated else "cited, no model used"
    blocks.append(context(f"opsmemory · {origin}"))
    return fit(blocks, link=link)


def personal_addendum(a: Answer) -> list[Block]:
    """What the asker alone sees (an ephemeral message): their own memory for this question."""
    if not a.personal:
        return []
    lines = [f"*{messages.PERSONAL_ADDENDUM}*"] + [
        f"• {_cite(s)} — {one_line(s.text)}" for s in a.personal
    ]
    return [section("\n".join(lines))]


def similar_incidents(similar: Sequence[SimilarIncident]) -> list[Block]:
    """Up to three past incidents: id (linked), title, when, status, root cause line; or a
    plain statement that nothing similar was found."""
    if not similar:
        return [context(messages.NOTHING_SIMILAR)]
    lines = [f"*{SIMILAR_TITLE}*"]
    for s in similar[:3]:
        name = bot_link(s.url, s.incident_id) if s.url else escape(s.incident_id)
        where = f" in <#{s.channel_id}>" if s.channel_id and not s.url else ""
        facts = " · ".join(escape(x) for x in (s.when, s.status) if x)
        if s.said_status:  # `/incident status` may lag what the thread says
            facts += f"; thread says: {one_line(labelled_part(s.said_status), 60)}"
        head = f"• {name} {one_line(s.title, 80)}{where} ({facts})"
        line = s.headline
        lines.append(f"{head} — {one_line(line)}" if line else head)
    return [section("\n".join(lines))]


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
                    **section(f"{one_line(item.text, 280)}  `{escape(str(item.id))}`"),
                    "accessory": button("Delete", "delete_item", str(item.id)),
                }
            )
    blocks.append(section("*Last episodes*" + ("" if episodes else "\nNothing yet.")))
    for ep in episodes[:10]:
        blocks.append(section(one_line(getattr(ep, "summary", str(ep)), 280)))
    return {"type": "home", "blocks": fit(blocks, limit=MAX_HOME_BLOCKS)}


# A code section spends 6 characters on its fences; escaping can grow a line, so leave room.
EXPORT_CHUNK_CHARS = MAX_SECTION_CHARS - 200
EXPORT_SECTIONS_PER_MESSAGE = 10


def _chunks(text: str, limit: int) -> list[str]:
    """`text` cut at line ends into pieces of at most `limit` characters (long lines are split)."""
    out: list[str] = []
    buf = ""
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            if buf:
                out.append(buf)
                buf = ""
            piece = clip(line, limit) or line[:limit]  # never split an `&amp;` across pieces
            out.append(piece)
            line = line[len(piece) :]
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
    sections = [section(f"```{piece}```") for piece in _chunks(escape(dump), EXPORT_CHUNK_CHARS)]
    per = EXPORT_SECTIONS_PER_MESSAGE
    groups = [sections[i : i + per] for i in range(0, len(sections), per)] or [[]]
    return [
        [context(messages.EXPORT_PART.format(part=n, parts=len(groups))), *group]
        for n, group in enumerate(groups, 1)
    ]


_STATE_LINES = {
    "requested": "Waiting for approval",
    "approved": "Approved; running now",
    "denied": "Denied by {deniers}; it will not run",
    "expired": "Expired unapproved; it will not run",
    "executing": "Running now",
    "succeeded": "Succeeded",
    "failed": "Failed",
    "unknown": "Outcome unknown",
}


def guarded_request(
    request: Any, action: Any, decisions: Sequence[Any], approvers: frozenset[str]
) -> tuple[str, list[Block]]:
    """A guarded action request as the thread shows it, updated in place as it moves: the
    action, every parameter, requester, risk, approvals, expiry, state and outcome. Approve
    and Deny buttons only while it can still be decided."""
    esc = escape
    order = [k for k in action.parameters if k in request.params]  # the catalogue's order
    order += [k for k in request.params if k not in order]
    params = "\n".join(f"• {esc(k)}: `{esc(request.params[k])}`" for k in order)
    approved = [d.approver_user for d in decisions if d.verdict == "approve"]
    deniers = [d.approver_user for d in decisions if d.verdict == "deny"]
    who = ", ".join(f"<@{u}>" for u in sorted(approvers)) or "nobody"
    mode = (
        "*dry run* (nothing changes; shows what would run)"
        if request.dry_run
        else "*runs for real*"
    )
    expiry = request.expires_at.strftime("%Y-%m-%d %H:%M UTC")
    head = f"*Action request #{request.id}: `{esc(request.action)}`* — {esc(action.description)}"
    facts = (
        f"Requested by <@{request.requester_user}> ({esc(request.source)}) · risk *{request.risk}*"
        f" · needs {request.approvals_needed} approval(s) from {who}"
        + ("" if action.requester_may_approve else ", not the requester")
        + f" · {mode} · expires {expiry}"
    )
    state = _STATE_LINES[request.state].format(deniers=", ".join(f"<@{u}>" for u in deniers))
    if request.dry_run and request.state == "succeeded":
        state = "Dry run done; nothing was changed (set `dry_run: false` for it to run)"
    if request.state == "requested":
        state += f" ({len(approved)} of {request.approvals_needed} approvals"
        state += (": " + ", ".join(f"<@{u}>" for u in approved)) if approved else ""
        state += ")"
    elif approved:
        state += " · approved by " + ", ".join(f"<@{u}>" for u in approved)
    if request.outcome:
        state += f"\n> {one_line(request.outcome, 500)}"
    text = f"{head}\n{params or '• no parameters'}\n{facts}"
    blocks: list[Block] = [section(text), section(f"*State:* {state}")]
    if request.state == "requested":
        value = str(request.id)
        blocks.append(
            {
                "type": "actions",
                "block_id": "guarded_decision",
                "elements": [
                    button("Approve", "approve_action", value, style="primary"),
                    button("Deny", "reject_action", value, style="danger"),
                ],
            }
        )
    summary = f"Action request #{request.id} ({request.action}): {_STATE_LINES[request.state]}"
    return summary.format(deniers="an approver"), blocks


# Runbook replies (issue 15): a section's own Markdown, as Slack mrkdwn, commands kept as code.


def runbook_body(text: str, limit: int = runbook_text.BODY_CHARS) -> str:
    """A runbook section as escaped mrkdwn (see bot.answer.runbook_text)."""
    return runbook_text.to_mrkdwn(text, escape=escape, limit=limit)


def runbook_link(slug: str, heading: str | None, url: str | None) -> str:
    """`slug › heading`, linked to the section when the corpus has a base URL."""
    label = f"{slug} › {heading}" if heading else slug
    return bot_link(url, label) if url else f"*{escape(label)}*"


def runbook_reply(hit: RunbookHit, see_also: Sequence[RunbookHit] = ()) -> str:
    """The `/incident runbook` reply: the best section's content first, the runbook's other
    sections as links, then other runbooks only as "see also"."""
    if not hit.sections:
        return runbook_link(hit.slug, None, None)
    best, *rest = hit.sections
    lines = [
        runbook_link(hit.slug, best.heading, best.url),
        runbook_body(best.text or best.snippet),
    ]
    if rest:
        links = " · ".join(runbook_link(hit.slug, s.heading, s.url) for s in rest)
        lines.append(f"{messages.RUNBOOK_MORE_SECTIONS} {links}")
    if see_also:
        links = " · ".join(
            runbook_link(h.slug, h.sections[0].heading if h.sections else None,
                         h.sections[0].url if h.sections else None)
            for h in see_also
        )  # fmt: skip
        lines.append(f"{messages.RUNBOOK_SEE_ALSO} {links}")
    return "\n".join(lines)


def runbook_words(text: str, limit: int = 120) -> str:
    """What someone typed, escaped and bounded, for a reply that quotes it."""
    flat = " ".join(text.split())
    return escape(flat if len(flat) <= limit else flat[: limit - 1] + "…")
