"""Messages other apps post in an incident channel (Alertmanager, PagerDuty, Grafana…): what
they say and who said it, read from Slack's payload.

Alerting integrations put the words in `attachments` (title, text, fields) or `blocks`, and
often repeat them in `text` as a fallback; the alert that opens a thread is what a person
asking "what do we do?" under it is asking about, so it is read like a person's message (but
filed as plain talk: an alert decides nothing). Link previews (unfurls) are not the app's words
and are skipped; so is anything that carries opsmemory's own footer (another app re-posting an
answer would have memory quote itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Shown for an app that names itself nowhere in the payload.
UNNAMED_APP = "an app"
#: Appended to an app's name wherever it is shown as an author: a webhook may post under any
#: name it likes, a person's included.
APP_MARK = " (app)"
#: The last line of every opsmemory answer (`bot.answer.render`): text holding it is ours.
OWN_FOOTER = "opsmemory · "
#: Pieces shorter than this are never dropped as repeats of a longer one ("api", "critical").
_SHORT = 16
_UNFURL_KEYS = ("from_url", "original_url", "is_app_unfurl", "app_unfurl_url")
_BOT_ID = re.compile(r"^B[A-Z0-9]{1,31}$")  # as memory.subjects accepts ids


@dataclass(frozen=True)
class AppMessage:
    """Another app's message: its bot id (its durable identity), the name it is shown under
    (marked as an app), and its words (text, attachments and blocks, each said once)."""

    bot_id: str
    name: str
    text: str


def from_event(
    message: dict[str, Any],
    *,
    own_bot_id: str | None,
    own_user_id: str | None,
    team_id: str | None,
    shared_channel: bool = False,
) -> AppMessage | None:
    """The app message in `message` (an event, or a `message_changed` event's `message`);
    None when a person wrote it, this bot did, or it is in a Slack Connect channel
    (`shared_channel`) and does not name our team as its app's (fail closed: naming no team
    is refused there)."""
    bot_id = message.get("bot_id")
    if not isinstance(bot_id, str) or not _BOT_ID.match(bot_id):
        return None  # no bot id (a person), or not one Slack gives: nothing to key memory to
    if bot_id == own_bot_id or (own_user_id and message.get("user") == own_user_id):
        return None
    found = message.get("bot_profile")
    profile: dict[str, Any] = found if isinstance(found, dict) else {}
    teams = {
        t
        for t in (profile.get("team_id"), message.get("user_team"), message.get("source_team"))
        if isinstance(t, str) and t
    }
    # Only a Slack Connect channel holds other organisations' posts; elsewhere a team other
    # than ours is a sibling workspace of our Enterprise Grid org.
    if shared_channel and (not teams or (team_id and teams - {team_id})):
        return None
    text = words(message)
    if OWN_FOOTER in text:
        return None
    name = profile.get("name") or message.get("username") or UNNAMED_APP
    return AppMessage(bot_id=bot_id, name=f"{str(name)[:80]}{APP_MARK}", text=text)


def words(message: dict[str, Any]) -> str:
    """Every distinct piece of text the message shows, in reading order: its text, then each
    attachment's pretext, title, text and fields, then its blocks; a piece already said
    (Slack's fallback copies) is not repeated, and link previews are left out."""
    pieces: list[str] = []
    _add(pieces, message.get("text"))
    for att in _dicts(message.get("attachments")):
        if any(att.get(k) for k in _UNFURL_KEYS):
            continue
        before = len(pieces)
        for key in ("pretext", "title", "text"):
            _add(pieces, att.get(key))
        for f in _dicts(att.get("fields")):
            title, value = f.get("title"), f.get("value")
            if isinstance(title, str) and isinstance(value, str) and title and value:
                _add(pieces, f"{title}: {value}")
            else:
                _add(pieces, value)
        if len(pieces) == before:  # only a fallback line: that is what people were shown
            _add(pieces, att.get("fallback"))
        for block in _dicts(att.get("blocks")):
            _block(pieces, block)
    for block in _dicts(message.get("blocks")):
        _block(pieces, block)
    return "\n".join(pieces)


def _block(pieces: list[str], block: dict[str, Any]) -> None:
    kind = block.get("type")
    if kind in ("section", "header"):
        _add(pieces, _text_of(block.get("text")))
        for f in _dicts(block.get("fields")):
            _add(pieces, _text_of(f))
    elif kind == "context":
        for el in _dicts(block.get("elements")):
            _add(pieces, _text_of(el))
    elif kind == "rich_text":
        _add(pieces, _rich_text(block.get("elements")))


def _rich_text(elements: Any) -> str:
    """The characters a rich_text block shows: sections, list items, quotes and preformatted
    text each on their own line; links by their label, people and channels as Slack marks
    them up (escaped later like any stored text)."""
    out: list[str] = []
    for el in _dicts(elements):
        kind = el.get("type")
        if kind == "text" and isinstance(el.get("text"), str):
            out.append(el["text"])
        elif kind == "link":
            label = el.get("text") or el.get("url")
            out.append(str(label) if label else "")
        elif kind == "user" and isinstance(el.get("user_id"), str):
            out.append(f"<@{el['user_id']}>")
        elif kind == "channel" and isinstance(el.get("channel_id"), str):
            out.append(f"<#{el['channel_id']}>")
        elif kind == "usergroup" and isinstance(el.get("usergroup_id"), str):
            out.append(f"<!subteam^{el['usergroup_id']}>")
        elif kind == "emoji" and isinstance(el.get("name"), str):
            out.append(f":{el['name']}:")
        elif "elements" in el:
            inner = _rich_text(el.get("elements"))
            if inner:
                out.append(inner + "\n")
    return "".join(out).strip()


def _text_of(obj: Any) -> str | None:
    if isinstance(obj, dict) and isinstance(obj.get("text"), str):
        return obj["text"]
    return None


_LINK_LABEL = re.compile(r"<[^<>|]*\|([^<>]*)>")
_MARKUP = re.compile(r"[*_~`]")


def _plain(text: str) -> str:
    """`text` as read, for telling repeats apart: link labels for links, no emphasis marks."""
    return " ".join(_MARKUP.sub("", _LINK_LABEL.sub(r"\1", text)).split())


def _add(pieces: list[str], value: Any) -> None:
    """Add `value` unless it repeats what is there: an equal piece, or (for a piece long enough
    not to be a coincidence) one inside a longer piece; a longer piece replaces every shorter
    one it contains."""
    if not isinstance(value, str) or not (value := value.strip()):
        return
    plain = _plain(value)
    shown = [_plain(p) for p in pieces]
    if plain in shown or (len(plain) >= _SHORT and any(plain in s for s in shown)):
        return
    inside = [i for i, s in enumerate(shown) if len(s) >= _SHORT and s in plain]
    if inside:
        pieces[inside[0]] = value
        for i in reversed(inside[1:]):
            del pieces[i]
        return
    pieces.append(value)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
