"""Messages other apps post in an incident channel (Alertmanager, PagerDuty, Grafana…): what
they say and who said it, read from Slack's payload.

Alerting integrations put the words in `attachments` (title, text, fields) or `blocks`, and
often repeat them in `text` as a fallback; the alert that opens a thread is what a person
asking "what do we do?" under it is asking about, so it is read like a person's message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Shown for an app that names itself nowhere in the payload.
UNNAMED_APP = "an app"


@dataclass(frozen=True)
class AppMessage:
    """Another app's message: its bot id (its durable identity), the name it posts under, and
    its words (text, attachments and blocks, each said once)."""

    bot_id: str
    name: str
    text: str


def from_event(
    message: dict[str, Any],
    *,
    own_bot_id: str | None,
    own_user_id: str | None,
    team_id: str | None,
) -> AppMessage | None:
    """The app message in `message` (an event, or a `message_changed` event's `message`);
    None when a person wrote it, this bot did, or an app of another organisation (a Slack
    Connect channel) did."""
    bot_id = message.get("bot_id")
    if not isinstance(bot_id, str) or not bot_id:
        return None
    if bot_id == own_bot_id or (own_user_id and message.get("user") == own_user_id):
        return None
    found = message.get("bot_profile")
    profile: dict[str, Any] = found if isinstance(found, dict) else {}
    app_team = profile.get("team_id")
    if team_id and isinstance(app_team, str) and app_team and app_team != team_id:
        return None
    name = message.get("username") or profile.get("name") or UNNAMED_APP
    return AppMessage(bot_id=bot_id, name=str(name)[:80], text=words(message))


def words(message: dict[str, Any]) -> str:
    """Every distinct piece of text the message shows, in reading order: its text, then each
    attachment's pretext, title, text and fields, then its blocks; a piece already said
    (Slack's fallback copies) is not repeated."""
    pieces: list[str] = []
    _add(pieces, message.get("text"))
    for att in _dicts(message.get("attachments")):
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
    """The characters a rich_text block shows (sections, lists, quotes, preformatted)."""
    out: list[str] = []
    for el in _dicts(elements):
        if el.get("type") in ("text", "link") and isinstance(el.get("text"), str):
            out.append(el["text"])
        elif el.get("type") == "link" and isinstance(el.get("url"), str):
            out.append(el["url"])
        elif "elements" in el:
            inner = _rich_text(el.get("elements"))
            if inner:
                out.append(inner + ("\n" if el.get("type") != "rich_text_section" else ""))
    return "".join(out).strip()


def _text_of(obj: Any) -> str | None:
    if isinstance(obj, dict) and isinstance(obj.get("text"), str):
        return obj["text"]
    return None


def _add(pieces: list[str], value: Any) -> None:
    if not isinstance(value, str):
        return
    value = value.strip()
    if not value or any(value in p for p in pieces):
        return
    for i, p in enumerate(pieces):
        if p in value:  # a fallback line that the fuller text repeats: keep the fuller one
            pieces[i] = value
            return
    pieces.append(value)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
