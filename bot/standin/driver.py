"""Sends requests to the bot exactly as Slack does: signed (v0 HMAC-SHA256), JSON events with
event_id, form-encoded slash commands, `payload=` interactivity, retries with X-Slack-Retry-Num.

Human actions (post, mention, edit, delete) are stored in the stand-in's workspace first, so the
bot's later Web API calls (permalinks, updates, thread replies) see the same state Slack would.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.standin.methods import apply_response_url
from bot.standin.server import FakeSlack
from bot.standin.workspace import Message


@dataclass(frozen=True)
class Delivery:
    """What the bot answered to one request."""

    status: int
    body: str
    elapsed_s: float
    event_id: str | None = None
    ts: str | None = None

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def signature(secret: str, timestamp: str, body: str) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


class SlackDriver:
    """Plays Slack's side towards the bot at `events_url` (e.g. http://127.0.0.1:PORT/slack/events)."""

    def __init__(
        self, events_url: str, signing_secret: str, slack: FakeSlack, *, first_seq: int = 1
    ) -> None:
        self.events_url = events_url
        self.signing_secret = signing_secret
        self.slack = slack
        self._seq = itertools.count(first_seq)
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> SlackDriver:
        self._session = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    @property
    def ws(self):  # -> Workspace
        return self.slack.workspace

    # Transport -----------------------------------------------------------------------------
    async def send(
        self,
        body: str,
        *,
        content_type: str,
        timestamp: int | None = None,
        secret: str | None = None,
        retry_num: int | None = None,
        retry_reason: str = "http_timeout",
    ) -> Delivery:
        """POST one signed body; override `timestamp`/`secret` to test verification."""
        assert self._session is not None, "use `async with SlackDriver(...)`"
        ts = str(int(time.time()) if timestamp is None else timestamp)
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": signature(secret or self.signing_secret, ts, body),
        }
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = retry_reason
        started = time.perf_counter()
        async with self._session.post(self.events_url, data=body.encode(), headers=headers) as r:
            text = await r.text()
            return Delivery(r.status, text, time.perf_counter() - started)

    async def send_event(self, envelope: dict[str, Any], **kw: Any) -> Delivery:
        d = await self.send(json.dumps(envelope), content_type="application/json", **kw)
        return Delivery(
            d.status,
            d.body,
            d.elapsed_s,
            envelope.get("event_id"),
            envelope.get("event", {}).get("ts"),
        )

    async def send_interaction(self, payload: dict[str, Any], **kw: Any) -> Delivery:
        body = urlencode({"payload": json.dumps(payload)})
        return await self.send(body, content_type="application/x-www-form-urlencoded", **kw)

    # Events --------------------------------------------------------------------------------
    def envelope(self, event: dict[str, Any], *, user: str | None = None) -> dict[str, Any]:
        """An event_callback envelope with a fresh event_id, shaped like Slack's."""
        ws = self.ws
        team = ws.users[user].team_id if user in ws.users else ws.team_id
        env: dict[str, Any] = {
            "token": "legacy-verification-token",
            "team_id": ws.team_id,
            "api_app_id": "A0STANDIN",
            "event": {**event, "team": team} if user else event,
            "type": "event_callback",
            "event_id": f"Ev{next(self._seq):010d}",
            "event_time": int(time.time()),
            "authorizations": [
                {
                    "enterprise_id": ws.enterprise_id,
                    "team_id": ws.team_id,
                    "user_id": ws.bot_user_id,
                    "is_bot": True,
                    "is_enterprise_install": False,
                }
            ],
            "is_ext_shared_channel": ws.channels[event["channel"]].is_ext_shared
            if event.get("channel") in ws.channels
            else False,
        }
        if ws.enterprise_id:
            env["enterprise_id"] = ws.enterprise_id
        return env

    def _message_event(self, msg: Message, kind: str) -> dict[str, Any]:
        channel = self.ws.channels[msg.channel]
        event: dict[str, Any] = {
            "type": kind,
            "user": msg.user,
            "text": msg.text,
            "ts": msg.ts,
            "channel": msg.channel,
            "event_ts": msg.ts,
            "client_msg_id": f"cm-{msg.ts}",
        }
        if kind == "message":
            event["channel_type"] = "group" if channel.is_private else "channel"
        if msg.thread_ts:
            event["thread_ts"] = msg.thread_ts
            event["parent_user_id"] = (channel.find(msg.thread_ts) or msg).user
        return event

    async def say(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None, **kw: Any
    ) -> Delivery:
        """A human posts a message: stored, then delivered as a `message` event."""
        msg = self.ws.post(channel, text, user=user, thread_ts=thread_ts)
        return await self.send_event(
            self.envelope(self._message_event(msg, "message"), user=user), **kw
        )

    async def post(
        self, channel: str, user: str, text: str, *, thread_ts: str | None = None
    ) -> tuple[Message, list[Delivery]]:
        """A human posts `text` as typed: stored, then delivered as Slack would (`app_mention`
        first when it mentions the bot, then the `message` event)."""
        msg = self.ws.post(channel, text, user=user, thread_ts=thread_ts)
        await self.slack.changed()
        kinds = ["app_mention"] if f"<@{self.ws.bot_user_id}>" in text else []
        out = [
            await self.send_event(self.envelope(self._message_event(msg, kind), user=user))
            for kind in [*kinds, "message"]
        ]
        return msg, out

    async def mention(
        self,
        channel: str,
        user: str,
        question: str,
        *,
        thread_ts: str | None = None,
        also_message: bool = True,
    ) -> list[Delivery]:
        """A human mentions the bot: Slack delivers app_mention and (subscribed) message."""
        text = f"<@{self.ws.bot_user_id}> {question}"
        msg = self.ws.post(channel, text, user=user, thread_ts=thread_ts)
        out = [
            await self.send_event(self.envelope(self._message_event(msg, "app_mention"), user=user))
        ]
        if also_message:
            out.append(
                await self.send_event(self.envelope(self._message_event(msg, "message"), user=user))
            )
        return out

    async def app_post(
        self,
        channel: str,
        app: str,
        text: str,
        *,
        attachments: list[dict[str, Any]] | None = None,
        thread_ts: str | None = None,
        bot_id: str = "B0ALERTS",
    ) -> tuple[Message, Delivery]:
        """Another app posts (an alerting integration's webhook): stored, then delivered as the
        `bot_message` event Slack sends for it (no `user`, the app's `username`)."""
        msg = self.ws.post_app(
            channel, text, app=app, bot_id=bot_id, attachments=attachments, thread_ts=thread_ts
        )
        await self.slack.changed()
        chan = self.ws.channels[channel]
        event: dict[str, Any] = {
            **msg.as_api(),
            "channel": channel,
            "event_ts": msg.ts,
            "channel_type": "group" if chan.is_private else "channel",
        }
        return msg, await self.send_event(self.envelope(event))

    async def edit(
        self,
        channel: str,
        ts: str,
        new_text: str,
        *,
        attachments: list[dict[str, Any]] | None = None,
    ) -> Delivery:
        """A message changes (a person edits it, or an app updates its alert to RESOLVED)."""
        msg = self.ws.channels[channel].find(ts)
        assert msg is not None, f"no message {ts} in {channel}"
        previous = msg.as_api()
        msg.text, msg.edited = new_text, True
        if attachments is not None:
            msg.attachments = attachments
        event = {
            "type": "message",
            "subtype": "message_changed",
            "hidden": True,
            "channel": channel,
            "ts": self.ws.next_ts(),
            "event_ts": self.ws.next_ts(),
            "message": msg.as_api(),
            "previous_message": previous,
            "channel_type": "group" if self.ws.channels[channel].is_private else "channel",
        }
        return await self.send_event(self.envelope(event))

    async def delete(self, channel: str, ts: str) -> Delivery:
        chan = self.ws.channels[channel]
        msg = chan.find(ts)
        assert msg is not None, f"no message {ts} in {channel}"
        chan.messages.remove(msg)
        event = {
            "type": "message",
            "subtype": "message_deleted",
            "hidden": True,
            "channel": channel,
            "ts": self.ws.next_ts(),
            "deleted_ts": ts,
            "event_ts": self.ws.next_ts(),
            "previous_message": msg.as_api(),
            "channel_type": "group" if chan.is_private else "channel",
        }
        return await self.send_event(self.envelope(event))

    async def join(self, channel: str, user: str) -> Delivery:
        """A person joins a channel: membership changes, then member_joined_channel arrives."""
        chan = self.ws.channels[channel]
        if user not in chan.members:
            chan.members.append(user)
        return await self.send_event(self.envelope(self._member_event(chan, user, "joined")))

    async def leave(self, channel: str, user: str) -> Delivery:
        """A person leaves a channel: membership changes, then member_left_channel arrives."""
        chan = self.ws.channels[channel]
        if user in chan.members:
            chan.members.remove(user)
        return await self.send_event(self.envelope(self._member_event(chan, user, "left")))

    def _member_event(self, chan: Any, user: str, what: str) -> dict[str, Any]:
        return {
            "type": f"member_{what}_channel",
            "user": user,
            "channel": chan.id,
            "channel_type": "G" if chan.is_private else "C",
            "team": self.ws.users[user].team_id,
            "event_ts": self.ws.next_ts(),
        }

    async def home_opened(self, user: str) -> Delivery:
        event = {
            "type": "app_home_opened",
            "user": user,
            "channel": f"D{user}",
            "tab": "home",
            "event_ts": self.ws.next_ts(),
        }
        return await self.send_event(self.envelope(event))

    # Commands and interactivity ------------------------------------------------------------
    def _actor(self, user: str) -> dict[str, Any]:
        u = self.ws.users[user]
        return {"id": user, "username": u.name, "name": u.name, "team_id": u.team_id}

    def _team(self, user: str) -> dict[str, Any]:
        u = self.ws.users[user]
        team: dict[str, Any] = {"id": u.team_id, "domain": self.ws.domain}
        if u.enterprise_id:
            team["enterprise_id"] = u.enterprise_id
        return team

    def trigger_id(self, user: str | None = None) -> str:
        """A fresh trigger_id; with `user`, views.open/push made with it act on their modals."""
        trigger = f"{next(self._seq)}.{int(time.time())}.standin"
        if user is not None:
            self.ws.triggers[trigger] = user
        return trigger

    async def command(
        self, channel: str, user: str, text: str, *, command: str = "/incident", **kw: Any
    ) -> Delivery:
        u, chan = self.ws.users[user], self.ws.channels[channel]
        form = {
            "token": "legacy-verification-token",
            "team_id": u.team_id,
            "team_domain": self.ws.domain,
            "channel_id": channel,
            "channel_name": chan.name,
            "user_id": user,
            "user_name": u.name,
            "command": command,
            "text": text,
            "api_app_id": "A0STANDIN",
            "is_enterprise_install": "false",
            "response_url": self.slack.response_url(key := f"{channel}~{user}~~{next(self._seq)}"),
            "trigger_id": self.trigger_id(user),
        }
        if u.enterprise_id:
            form["enterprise_id"] = u.enterprise_id
        d = await self.send(urlencode(form), content_type="application/x-www-form-urlencoded", **kw)
        if d.status == 200 and d.body.startswith("{"):  # Slack shows a reply given in the ack
            apply_response_url(self.ws, key, d.json())
        return d

    async def click(
        self,
        user: str,
        *,
        action_id: str,
        value: str,
        channel: str | None = None,
        message_ts: str | None = None,
        view: dict[str, Any] | None = None,
        block_id: str = "b",
        label: str = "x",
        **kw: Any,
    ) -> Delivery:
        """Click a button in a message (channel + message_ts; an ephemeral's ts works too) or
        in a view (home/modal)."""
        action = {
            "type": "button",
            "action_id": action_id,
            "block_id": block_id,
            "value": value,
            "action_ts": self.ws.next_ts(),
            "text": {"type": "plain_text", "text": label},
        }
        payload: dict[str, Any] = {
            "type": "block_actions",
            "user": self._actor(user),
            "team": self._team(user),
            "api_app_id": "A0STANDIN",
            "token": "legacy-verification-token",
            "trigger_id": self.trigger_id(user),
            "actions": [action],
            "state": {"values": {}},
        }
        if view is not None:
            payload["container"] = {"type": "view", "view_id": view["id"]}
            payload["view"] = view
        else:
            assert channel and message_ts, "a message click needs channel and message_ts"
            msg = self.ws.channels[channel].find(message_ts)
            eph = None if msg else self.ws.find_ephemeral(message_ts)
            payload["container"] = {
                "type": "message",
                "message_ts": message_ts,
                "channel_id": channel,
                "is_ephemeral": eph is not None,
            }
            payload["channel"] = {"id": channel, "name": self.ws.channels[channel].name}
            if eph is not None:
                payload["message"] = {"type": "message", "ts": message_ts, "text": eph.text,
                                      "blocks": eph.blocks}  # fmt: skip
            else:
                payload["message"] = msg.as_api() if msg else {"ts": message_ts}
            key = f"{channel}~{user}~{message_ts}~{next(self._seq)}"
            payload["response_url"] = self.slack.response_url(key)
        return await self.send_interaction(payload, **kw)

    async def message_shortcut(
        self,
        user: str,
        channel: str,
        message_ts: str,
        *,
        callback_id: str = "save_to_incident_memory",
    ) -> Delivery:
        msg = self.ws.channels[channel].find(message_ts)
        assert msg is not None
        payload = {
            "type": "message_action",
            "callback_id": callback_id,
            "token": "legacy",
            "action_ts": self.ws.next_ts(),
            "team": self._team(user),
            "user": self._actor(user),
            "channel": {"id": channel, "name": self.ws.channels[channel].name},
            "trigger_id": self.trigger_id(user),
            "message_ts": message_ts,
            "message": msg.as_api(),
            "response_url": self.slack.response_url(f"{channel}~{user}~~{next(self._seq)}"),
        }
        return await self.send_interaction(payload)

    async def submit_view(
        self, user: str, view: dict[str, Any], values: dict[str, dict[str, Any]]
    ) -> Delivery:
        """Submit a modal the bot opened; `values` is {block_id: {action_id: text}}, or a state
        value as Slack shapes it (e.g. {"type": "static_select", "selected_option": {...}})."""
        state = {
            b: {
                a: v if isinstance(v, dict) else {"type": "plain_text_input", "value": v}
                for a, v in acts.items()
            }
            for b, acts in values.items()
        }
        payload = {
            "type": "view_submission",
            "team": self._team(user),
            "user": self._actor(user),
            "api_app_id": "A0STANDIN",
            "token": "legacy",
            "trigger_id": self.trigger_id(user),
            "view": {**view, "state": {"values": state}},
            "response_urls": [],
        }
        return await self.send_interaction(payload)
