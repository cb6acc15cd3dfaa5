"""The stand-in's Slack state: users, channels, messages, threads, ephemerals, views, reactions.

Pure data with Slack-shaped `as_api()` renderings, so the HTTP layer stays a thin dispatcher and
tests can seed and inspect a workspace directly.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from bot.manifest import BOT_SCOPES


@dataclass
class User:
    id: str
    team_id: str
    name: str
    real_name: str = ""
    is_bot: bool = False
    is_restricted: bool = False  # multi-channel guest
    is_ultra_restricted: bool = False  # single-channel guest
    enterprise_id: str | None = None
    deleted: bool = False

    def as_api(self) -> dict[str, Any]:
        user: dict[str, Any] = {
            "id": self.id,
            "team_id": self.team_id,
            "name": self.name,
            "deleted": self.deleted,
            "real_name": self.real_name or self.name,
            "tz": "UTC",
            "tz_label": "Coordinated Universal Time",
            "tz_offset": 0,
            "profile": {
                "real_name": self.real_name or self.name,
                "display_name": self.name,
                "team": self.team_id,
            },
            "is_admin": False,
            "is_owner": False,
            "is_restricted": self.is_restricted or self.is_ultra_restricted,
            "is_ultra_restricted": self.is_ultra_restricted,
            "is_bot": self.is_bot,
            "is_app_user": False,
            "updated": 1_700_000_000,
        }
        if self.enterprise_id:
            user["enterprise_user"] = {
                "id": self.id,
                "enterprise_id": self.enterprise_id,
                "enterprise_name": "Stand-in Org",
                "teams": [self.team_id],
            }
        return user


@dataclass
class Message:
    channel: str
    ts: str
    text: str
    user: str | None = None
    bot_id: str | None = None
    thread_ts: str | None = None
    blocks: list[dict[str, Any]] = field(default_factory=list)
    edited: bool = False
    reactions: dict[str, list[str]] = field(default_factory=dict)
    username: str | None = None  # another app's name (an incoming webhook's `username`)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] | None = None  # message metadata (event_type, event_payload)

    def as_api(self, *, with_metadata: bool = False) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "message", "text": self.text, "ts": self.ts}
        if with_metadata and self.metadata:
            msg["metadata"] = self.metadata
        if self.user:
            msg["user"] = self.user
        if self.bot_id:
            msg["bot_id"] = self.bot_id
            msg["subtype"] = "bot_message"
        if self.username:
            msg["username"] = self.username
        if self.attachments:
            msg["attachments"] = self.attachments
        if self.thread_ts:
            msg["thread_ts"] = self.thread_ts
        if self.blocks:
            msg["blocks"] = self.blocks
        if self.edited:
            msg["edited"] = {"user": self.user or "", "ts": self.ts}
        return msg


@dataclass
class Channel:
    id: str
    name: str
    is_private: bool = False
    is_ext_shared: bool = False
    members: list[str] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)

    def as_api(self, *, bot_user_id: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "is_channel": not self.is_private,
            "is_group": self.is_private,
            "is_im": False,
            "is_private": self.is_private,
            "is_archived": False,
            "is_general": False,
            "is_shared": self.is_ext_shared,
            "is_ext_shared": self.is_ext_shared,
            "is_org_shared": False,
            "is_member": bot_user_id in self.members,
            "created": 1_700_000_000,
            "num_members": len(self.members),
        }

    def find(self, ts: str) -> Message | None:
        return next((m for m in self.messages if m.ts == ts), None)

    def thread(self, thread_ts: str) -> list[Message]:
        """The parent and its replies, oldest first, as Slack shows a thread."""
        return [m for m in self.messages if m.ts == thread_ts or m.thread_ts == thread_ts]


@dataclass
class Ephemeral:
    channel: str
    user: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None
    ts: str = ""  # the message_ts Slack gives an ephemeral (a click on it carries this)


@dataclass
class Workspace:
    """One team (optionally inside an Enterprise Grid org) with the bot installed."""

    team_id: str = "T0STANDIN"
    domain: str = "standin"
    enterprise_id: str | None = None
    bot_user_id: str = "U0BOT"
    bot_id: str = "B0BOT"
    bot_token: str = "xoxb-standin-token"
    app_token: str = "xapp-standin-token"
    bot_scopes: tuple[str, ...] = BOT_SCOPES  # sent back in x-oauth-scopes, as Slack does
    users: dict[str, User] = field(default_factory=dict)
    channels: dict[str, Channel] = field(default_factory=dict)
    ephemerals: list[Ephemeral] = field(default_factory=list)
    home_views: dict[str, dict[str, Any]] = field(default_factory=dict)
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Who each trigger_id was issued to, and each user's open modal stack (ids, bottom first):
    # views.open/push/update act on the stack of the user whose click made the trigger.
    triggers: dict[str, str] = field(default_factory=dict)
    modal_stacks: dict[str, list[str]] = field(default_factory=dict)
    usergroups: dict[str, list[str]] = field(default_factory=dict)  # group id → member ids
    _ts_counter: itertools.count = field(default_factory=lambda: itertools.count(1), repr=False)
    _id_counter: itertools.count = field(default_factory=lambda: itertools.count(1), repr=False)

    def next_ts(self) -> str:
        """A Slack-style ts, unique and increasing within this workspace."""
        return f"{int(time.time())}.{next(self._ts_counter):06d}"

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._id_counter):06d}"

    def add_user(self, user_id: str, name: str, **kwargs: Any) -> User:
        kwargs.setdefault("team_id", self.team_id)
        kwargs.setdefault("enterprise_id", self.enterprise_id)
        user = User(id=user_id, name=name, **kwargs)
        self.users[user_id] = user
        return user

    def add_channel(
        self,
        channel_id: str,
        name: str,
        *,
        private: bool = False,
        members: tuple[str, ...] | list[str] = (),
        ext_shared: bool = False,
        bot_member: bool = True,
    ) -> Channel:
        member_ids = list(members) + ([self.bot_user_id] if bot_member else [])
        channel = Channel(channel_id, name, private, ext_shared, member_ids)
        self.channels[channel_id] = channel
        return channel

    def open_dm(self, user_id: str) -> Channel:
        """The bot's DM channel with a user, created on first use."""
        dm_id = f"D{user_id}"
        if dm_id not in self.channels:
            self.channels[dm_id] = Channel(dm_id, dm_id, True, False, [user_id, self.bot_user_id])
        return self.channels[dm_id]

    def post(
        self,
        channel: str,
        text: str,
        *,
        user: str | None = None,
        thread_ts: str | None = None,
        blocks: list[dict[str, Any]] | None = None,
        bot: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> Message:
        """Store a message as Slack would (used for both humans and the bot)."""
        msg = Message(
            channel=channel,
            ts=self.next_ts(),
            text=text,
            user=user,
            bot_id=self.bot_id if bot else None,
            thread_ts=thread_ts,
            blocks=blocks or [],
            metadata=metadata,
        )
        self.channels[channel].messages.append(msg)
        return msg

    def post_app(
        self,
        channel: str,
        text: str,
        *,
        app: str,
        bot_id: str = "B0ALERTS",
        attachments: list[dict[str, Any]] | None = None,
        thread_ts: str | None = None,
    ) -> Message:
        """Store a message another app posted (an alerting integration's incoming webhook)."""
        msg = Message(
            channel=channel,
            ts=self.next_ts(),
            text=text,
            bot_id=bot_id,
            thread_ts=thread_ts,
            username=app,
            attachments=attachments or [],
        )
        self.channels[channel].messages.append(msg)
        return msg

    def bot_messages(self, channel: str, thread_ts: str | None = None) -> list[Message]:
        """What the bot posted in a channel (or one thread): what a user would see."""
        msgs = self.channels[channel].messages if channel in self.channels else []
        return [
            m
            for m in msgs
            if m.bot_id == self.bot_id
            and (thread_ts is None or m.thread_ts == thread_ts or m.ts == thread_ts)
        ]

    def ephemerals_for(self, user: str) -> list[Ephemeral]:
        return [e for e in self.ephemerals if e.user == user]

    def add_ephemeral(
        self,
        channel: str,
        user: str,
        text: str,
        blocks: list[dict[str, Any]],
        thread_ts: str | None = None,
    ) -> Ephemeral:
        """Show a message to one user only, with its own ts as Slack gives it."""
        eph = Ephemeral(channel, user, text, blocks, thread_ts, ts=self.next_ts())
        self.ephemerals.append(eph)
        return eph

    def find_ephemeral(self, ts: str) -> Ephemeral | None:
        return next((e for e in self.ephemerals if e.ts == ts), None)

    def modal_stack(self, user: str) -> list[dict[str, Any]]:
        """The modals open for `user`, bottom first (the last one is on screen)."""
        return [self.views[v] for v in self.modal_stacks.get(user, []) if v in self.views]

    def close_modals(self, user: str, *, top_only: bool = False) -> None:
        stack = self.modal_stacks.get(user, [])
        if top_only and stack:
            stack.pop()
        else:
            stack.clear()

    def permalink(self, channel: str, ts: str) -> str:
        return f"https://{self.domain}.slack.com/archives/{channel}/p{ts.replace('.', '')}"
