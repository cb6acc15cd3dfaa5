"""Slack Web API method behaviour for the stand-in: one function per method, state in, JSON out.

Block Kit limits are checked the way Slack checks them (`invalid_blocks`), so a renderer that
breaks them fails in tests exactly as it would in a real workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.standin.workspace import Workspace

Json = dict[str, Any]
MAX_MESSAGE_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
MAX_SECTION_TEXT = 3000


def _err(error: str, *messages: str) -> Json:
    out: Json = {"ok": False, "error": error}
    if messages:
        out["response_metadata"] = {"messages": list(messages)}
    return out


def block_problems(blocks: Any, *, limit: int = MAX_MESSAGE_BLOCKS) -> list[str]:
    """Slack's `invalid_blocks` reasons for a block list (empty when valid)."""
    if not isinstance(blocks, list):
        return ["[ERROR] blocks must be an array"]
    problems = []
    if len(blocks) > limit:
        problems.append(f"[ERROR] no more than {limit} items allowed [json-pointer:/blocks]")
    for i, block in enumerate(blocks):
        text = (block.get("text") or {}).get("text", "") if isinstance(block, dict) else ""
        if block.get("type") == "section" and len(text) > MAX_SECTION_TEXT:
            problems.append(
                f"[ERROR] must be less than {MAX_SECTION_TEXT + 1} characters "
                f"[json-pointer:/blocks/{i}/text/text]"
            )
    return problems


def _message_args(ws: Workspace, body: Json) -> Json | tuple[str, str, list[Any]]:
    channel = str(body.get("channel", ""))
    if channel in ws.users:  # posting to a user id opens (or reuses) the DM with them
        channel = ws.open_dm(channel).id
    if channel not in ws.channels:
        return _err("channel_not_found")
    if ws.bot_user_id not in ws.channels[channel].members:
        return _err("not_in_channel")
    text, blocks = str(body.get("text") or ""), body.get("blocks") or []
    if not text and not blocks:
        return _err("no_text")
    problems = block_problems(blocks)
    if problems:
        return _err("invalid_blocks", *problems)
    return channel, text, blocks


def auth_test(ws: Workspace, body: Json) -> Json:
    return {
        "ok": True,
        "url": f"https://{ws.domain}.slack.com/",
        "team": "Stand-in",
        "user": "opsmemory",
        "team_id": ws.team_id,
        "user_id": ws.bot_user_id,
        "bot_id": ws.bot_id,
        "enterprise_id": ws.enterprise_id,
        "is_enterprise_install": False,
    }


def chat_post_message(ws: Workspace, body: Json) -> Json:
    args = _message_args(ws, body)
    if isinstance(args, dict):
        return args
    channel, text, blocks = args
    thread_ts = body.get("thread_ts") or None
    metadata = body.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict) and isinstance(metadata.get("event_type"), str)
    ):
        return _err("invalid_metadata_format")
    msg = ws.post(channel, text, thread_ts=thread_ts, blocks=blocks, bot=True, metadata=metadata)
    return {"ok": True, "channel": channel, "ts": msg.ts, "message": msg.as_api()}


def conversations_history(ws: Workspace, body: Json) -> Json:
    """A channel's top-level messages, newest first, after `oldest` (metadata on request)."""
    chan = ws.channels.get(str(body.get("channel", "")))
    if chan is None:
        return _err("channel_not_found")
    oldest = float(body.get("oldest") or 0)
    meta = _truthy(body.get("include_all_metadata"))
    msgs = [m for m in chan.messages if m.thread_ts in (None, m.ts) and float(m.ts) > oldest]
    limit = int(body.get("limit") or 100)
    shown = [m.as_api(with_metadata=meta) for m in reversed(msgs)][:limit]
    return {"ok": True, "messages": shown, "has_more": len(msgs) > limit}


def conversations_replies(ws: Workspace, body: Json) -> Json:
    """A thread: its parent, then its replies oldest first (metadata on request)."""
    chan = ws.channels.get(str(body.get("channel", "")))
    if chan is None:
        return _err("channel_not_found")
    ts = str(body.get("ts", ""))
    if chan.find(ts) is None:
        return _err("thread_not_found")
    meta = _truthy(body.get("include_all_metadata"))
    oldest = float(body.get("oldest") or 0)
    msgs = [
        m
        for m in chan.messages
        if (m.ts == ts or m.thread_ts == ts) and (m.ts == ts or float(m.ts) > oldest)
    ]
    limit = int(body.get("limit") or 1000)
    shown = [m.as_api(with_metadata=meta) for m in msgs][:limit]
    return {"ok": True, "messages": shown, "has_more": len(msgs) > limit}


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() in ("1", "true")


def chat_update(ws: Workspace, body: Json) -> Json:
    args = _message_args(ws, body)
    if isinstance(args, dict):
        return args
    channel, text, blocks = args
    msg = ws.channels[channel].find(str(body.get("ts", "")))
    if msg is None:
        return _err("message_not_found")
    if msg.bot_id != ws.bot_id:  # a person's message, or another app's
        return _err("cant_update_message")
    msg.text, msg.blocks, msg.edited = text, blocks, True
    return {"ok": True, "channel": channel, "ts": msg.ts, "text": text, "message": msg.as_api()}


def chat_post_ephemeral(ws: Workspace, body: Json) -> Json:
    args = _message_args(ws, body)
    if isinstance(args, dict):
        return args
    channel, text, blocks = args
    user = str(body.get("user", ""))
    if user not in ws.users:
        return _err("user_not_found")
    eph = ws.add_ephemeral(channel, user, text, blocks, body.get("thread_ts"))
    return {"ok": True, "message_ts": eph.ts}


def chat_get_permalink(ws: Workspace, body: Json) -> Json:
    channel, ts = str(body.get("channel", "")), str(body.get("message_ts", ""))
    if channel not in ws.channels:
        return _err("channel_not_found")
    if ws.channels[channel].find(ts) is None:
        return _err("message_not_found")
    return {"ok": True, "channel": channel, "permalink": ws.permalink(channel, ts)}


def conversations_info(ws: Workspace, body: Json) -> Json:
    channel = ws.channels.get(str(body.get("channel", "")))
    if channel is None:
        return _err("channel_not_found")
    return {"ok": True, "channel": channel.as_api(bot_user_id=ws.bot_user_id)}


def conversations_members(ws: Workspace, body: Json) -> Json:
    channel = ws.channels.get(str(body.get("channel", "")))
    if channel is None:
        return _err("channel_not_found")
    return {"ok": True, "members": channel.members, "response_metadata": {"next_cursor": ""}}


def users_conversations(ws: Workspace, body: Json) -> Json:
    """The conversations a user is in that the bot can see, paged as Slack pages them."""
    user = str(body.get("user", ""))
    if user not in ws.users:
        return _err("user_not_found")
    types = set(str(body.get("types") or "public_channel").split(","))
    wanted = [
        c
        for c in ws.channels.values()
        if user in c.members
        and not c.id.startswith("D")
        and ("private_channel" if c.is_private else "public_channel") in types
        and (not c.is_private or ws.bot_user_id in c.members)
    ]
    limit = max(1, min(int(body.get("limit") or 100), 1000))
    start = int(body.get("cursor") or 0)
    page = wanted[start : start + limit]
    more = start + limit < len(wanted)
    return {
        "ok": True,
        "channels": [c.as_api(bot_user_id=ws.bot_user_id) for c in page],
        "response_metadata": {"next_cursor": str(start + limit) if more else ""},
    }


def users_info(ws: Workspace, body: Json) -> Json:
    user = ws.users.get(str(body.get("user", "")))
    if user is None:
        return _err("user_not_found")
    return {"ok": True, "user": user.as_api()}


def usergroups_users_list(ws: Workspace, body: Json) -> Json:
    group = str(body.get("usergroup", ""))
    if group not in ws.usergroups:
        return _err("no_such_subteam")
    return {"ok": True, "users": list(ws.usergroups[group])}


def _store_view(ws: Workspace, view: Any, *, view_id: str | None = None) -> Json:
    if not isinstance(view, dict) or "type" not in view:
        return _err("invalid_arguments", "[ERROR] missing required field: type")
    limit = MAX_VIEW_BLOCKS
    problems = block_problems(view.get("blocks", []), limit=limit)
    if problems:
        return _err("invalid_arguments", *problems)
    stored = {**view, "id": view_id or ws.next_id("V"), "team_id": ws.team_id}
    ws.views[stored["id"]] = stored
    return {"ok": True, "view": stored}


def views_open(ws: Workspace, body: Json) -> Json:
    """Open a modal for the user the trigger was issued to (a new stack of one)."""
    trigger = str(body.get("trigger_id") or "")
    if not trigger:
        return _err("invalid_arguments", "[ERROR] missing required field: trigger_id")
    result = _store_view(ws, body.get("view"))
    user = ws.triggers.get(trigger)
    if result["ok"] and user:
        ws.modal_stacks[user] = [result["view"]["id"]]
    return result


def views_push(ws: Workspace, body: Json) -> Json:
    """Push a modal on top of the one the trigger's user has open (Slack allows three)."""
    trigger = str(body.get("trigger_id") or "")
    if not trigger:
        return _err("invalid_arguments", "[ERROR] missing required field: trigger_id")
    user = ws.triggers.get(trigger)
    stack = ws.modal_stacks.get(user or "", [])
    if user and len(stack) >= 3:
        return _err("push_limit_reached")
    result = _store_view(ws, body.get("view"))
    if result["ok"] and user:
        ws.modal_stacks.setdefault(user, []).append(result["view"]["id"])
    return result


def views_update(ws: Workspace, body: Json) -> Json:
    view_id = str(body.get("view_id", ""))
    if not view_id and body.get("external_id"):
        wanted = body.get("external_id")
        view_id = next((k for k, v in ws.views.items() if v.get("external_id") == wanted), "")
    if view_id not in ws.views:
        return _err("not_found")
    return _store_view(ws, body.get("view"), view_id=view_id)


def views_publish(ws: Workspace, body: Json) -> Json:
    user = str(body.get("user_id", ""))
    if user not in ws.users:
        return _err("invalid_arguments", "invalid `user_id`")
    result = _store_view(ws, body.get("view"))
    if result["ok"]:
        ws.home_views[user] = result["view"]
    return result


def reactions_add(ws: Workspace, body: Json) -> Json:
    channel = ws.channels.get(str(body.get("channel", "")))
    if channel is None:
        return _err("channel_not_found")
    msg = channel.find(str(body.get("timestamp", "")))
    if msg is None:
        return _err("message_not_found")
    name = str(body.get("name", ""))
    if ws.bot_user_id in msg.reactions.get(name, []):
        return _err("already_reacted")
    msg.reactions.setdefault(name, []).append(ws.bot_user_id)
    return {"ok": True}


def apply_response_url(ws: Workspace, key: str, body: Json) -> None:
    """What a response_url POST does: ephemeral by default, in_channel, or replace_original."""
    channel, user, message_ts = [*key.split("~"), "", "", ""][:3]
    text, blocks = str(body.get("text") or ""), body.get("blocks") or []
    eph = ws.find_ephemeral(message_ts) if message_ts else None
    if body.get("delete_original") and message_ts:
        if eph is not None:
            ws.ephemerals.remove(eph)
        elif channel in ws.channels and (msg := ws.channels[channel].find(message_ts)):
            ws.channels[channel].messages.remove(msg)
        return
    if body.get("replace_original") and eph is not None:  # an ephemeral's button was clicked
        eph.text, eph.blocks = text, blocks
        return
    if body.get("replace_original") and message_ts and channel in ws.channels:
        msg = ws.channels[channel].find(message_ts)
        if msg is not None:
            msg.text, msg.blocks, msg.edited = text, blocks, True
            return
    if body.get("response_type") == "in_channel" and channel in ws.channels:
        ws.post(channel, text, blocks=blocks, bot=True)
        return
    # An ephemeral answering a click on a threaded message shows in that thread, as in Slack.
    clicked = ws.channels[channel].find(message_ts) if channel in ws.channels else None
    thread_ts = clicked.thread_ts if clicked else (eph.thread_ts if eph else None)
    ws.add_ephemeral(channel, user, text, blocks, thread_ts)


HANDLERS: dict[str, Callable[[Workspace, Json], Json]] = {
    "auth.test": auth_test,
    "chat.postMessage": chat_post_message,
    "chat.update": chat_update,
    "chat.postEphemeral": chat_post_ephemeral,
    "chat.getPermalink": chat_get_permalink,
    "conversations.info": conversations_info,
    "conversations.history": conversations_history,
    "conversations.replies": conversations_replies,
    "conversations.members": conversations_members,
    "users.info": users_info,
    "users.conversations": users_conversations,
    "usergroups.users.list": usergroups_users_list,
    "views.open": views_open,
    "views.push": views_push,
    "views.update": views_update,
    "views.publish": views_publish,
    "reactions.add": reactions_add,
}
