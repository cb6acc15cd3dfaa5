"""The sandbox: the real bot in HTTP mode, the Slack stand-in as its backend, and a web page.

The page never talks to the bot directly. It posts what a person does (types, clicks, submits a
modal, opens App Home) to this server, which turns it into the signed request Slack would send
(through the stand-in's driver), and streams the stand-in's changes back over server-sent events.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import secrets
import shutil
import time
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import SecretStr

from bot.runtime import Runtime
from bot.sandbox import seed, snapshot
from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver, Workspace

log = logging.getLogger("opsmemory.sandbox")
SEEDED_MARKER = "seeded"
KEEPALIVE_S = 15.0
COMMANDS = ("/incident",)
Json = dict[str, Any]


class BadRequest(web.HTTPBadRequest):
    """A page request the sandbox cannot act on; the reason is shown to the person."""

    def __init__(self, reason: str) -> None:
        super().__init__(text=json.dumps({"error": reason}), content_type="application/json")


def sandbox_settings(base: Settings, data_dir: Path, slack: FakeSlack, secret: str) -> Settings:
    """The operator's settings with everything Slack-, storage- and model-related pinned to the
    sandbox: its own database, the stand-in, the seeded approvers and digest channel, the
    offline embedder and the built-in runbooks. An LLM is used only if OPSMEMORY_OLLAMA_HOST is
    set. Guarded actions come from the sandbox's own dry-run catalogue (`seed.CATALOGUE`)."""
    catalogue = data_dir / "actions.yml"
    catalogue.parent.mkdir(parents=True, exist_ok=True)
    catalogue.write_text(seed.CATALOGUE, encoding="utf-8")
    return base.model_copy(
        update={
            "slack_bot_token": SecretStr(slack.workspace.bot_token),
            "slack_app_token": None,
            "slack_signing_secret": SecretStr(secret),
            "slack_api_url": slack.api_url,
            "data_dir": data_dir / "bot",
            "runbooks_dir": None,
            "runbooks_url": None,
            "skills_dir": None,
            "embedder": "onnx-minilm",
            "approvers": ",".join(seed.APPROVERS),
            "actions_file": catalogue,
            "digest_channel": seed.GENERAL,
            "incident_channel_pattern": "^inc-",
            "host": "127.0.0.1",
        }
    )


class Sandbox:
    """Start with `await sandbox.start(port)` (returns the page URL); stop with `stop()`."""

    def __init__(self, base: Settings, data_dir: Path) -> None:
        self.base = base
        self.data_dir = data_dir
        self.slack = FakeSlack()
        self.runtime: Runtime | None = None
        self.driver: SlackDriver | None = None
        self.version = 0
        self.ready = asyncio.Event()
        self._seeded = False
        self._secret = secrets.token_hex(16)
        self._queues: set[asyncio.Queue[int | None]] = set()
        self._save_pending = False
        self._lock = asyncio.Lock()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # Life cycle ----------------------------------------------------------------------------
    async def start(self, *, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve the page, then boot the bot (seeding on a first start); returns the URL."""
        url = await self.serve(host=host, port=port)
        await self.boot()
        return url

    async def serve(self, *, host: str = "127.0.0.1", port: int = 0) -> str:
        """The stand-in and the page only: the page shows the scenario being played while
        `boot()` runs, and refuses actions until the bot is ready."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._seeded = self._prepare_workspace()
        self.slack.listeners.append(self._changed)
        await self.slack.start()
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/favicon.ico", _no_content)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events)
        for name, handler in {
            "post": self._post,
            "click": self._click,
            "shortcut": self._shortcut,
            "submit": self._submit,
            "close": self._close,
            "home": self._home,
            "jobs": self._jobs,
            "reset": self._reset,
        }.items():
            app.router.add_post(f"/api/{name}", handler)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        bound = self._runner.addresses[0][1]
        self.url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{bound}/"
        return self.url

    async def boot(self) -> None:
        async with self._lock:
            await self._boot()

    def _prepare_workspace(self) -> bool:
        """The saved workspace when the scenario was played here before (True), else a fresh
        one with only the seeded people and channels, and no bot database (False)."""
        if (self.data_dir / SEEDED_MARKER).exists() and snapshot.load(
            self.slack.workspace, self.data_dir
        ):
            return True
        shutil.rmtree(self.data_dir / "bot", ignore_errors=True)
        self.slack.workspace = Workspace()
        seed.add_people_and_channels(self.slack.workspace)
        return False

    async def _boot(self) -> None:
        """Start the bot against the stand-in; play the scenario when the data dir is new."""
        from bot.app import build_app

        seeded = self._seeded
        settings = sandbox_settings(self.base, self.data_dir, self.slack, self._secret)
        self.runtime = await build_app(settings)
        await self.runtime.warm_up()
        port = await self.runtime.start_http(host="127.0.0.1", port=0)
        events_url = f"http://127.0.0.1:{port}/slack/events"
        # Event ids must not repeat ones the bot's dedupe table saw before a restart.
        self.driver = SlackDriver(events_url, self._secret, self.slack, first_seq=time.time_ns())
        await self.driver.__aenter__()
        if not seeded:
            await seed.play(self.driver, self.runtime)
            (self.data_dir / SEEDED_MARKER).write_text("1\n")
            self._seeded = True
        await self.runtime.start_scheduler()
        self._save_now()
        self.ready.set()
        await self.slack.changed()

    async def _halt(self) -> None:
        self.ready.clear()
        if self.driver is not None:
            await self.driver.__aexit__(None, None, None)
            self.driver = None
        if self.runtime is not None:
            await self.runtime.stop()
            self.runtime = None

    async def stop(self) -> None:
        for q in self._queues:
            q.put_nowait(None)
        await self._halt()
        self._save_now()
        if self._runner is not None:
            await self._runner.cleanup()
        await self.slack.stop()

    async def reset(self) -> None:
        """Back to the seeded scenario: a fresh database and workspace, the scenario replayed."""
        if self._lock.locked():
            raise web.HTTPConflict(
                text=json.dumps({"error": "the sandbox is already starting or resetting"}),
                content_type="application/json",
            )
        async with self._lock:
            await self._halt()
            (self.data_dir / SEEDED_MARKER).unlink(missing_ok=True)
            (self.data_dir / snapshot.FILE).unlink(missing_ok=True)
            self._seeded = self._prepare_workspace()
            await self.slack.changed()
            await self._boot()

    # Change stream -------------------------------------------------------------------------
    def _changed(self) -> None:
        self.version += 1
        for q in self._queues:
            q.put_nowait(self.version)
        if not self._save_pending:
            self._save_pending = True
            asyncio.get_running_loop().call_later(0.5, self._save_now)

    def _save_now(self) -> None:
        self._save_pending = False
        if self.data_dir.exists():
            snapshot.save(self.slack.workspace, self.data_dir)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await resp.prepare(request)
        q: asyncio.Queue[int | None] = asyncio.Queue()
        self._queues.add(q)
        try:
            await resp.write(f"data: {self.version}\n\n".encode())
            while True:
                try:
                    version = await asyncio.wait_for(q.get(), KEEPALIVE_S)
                except TimeoutError:
                    await resp.write(b": keepalive\n\n")
                    continue
                if version is None:
                    break
                while not q.empty():  # many changes at once: one refresh
                    version = q.get_nowait() or version
                await resp.write(f"data: {version}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._queues.discard(q)
        return resp

    # Page ----------------------------------------------------------------------------------
    async def _index(self, request: web.Request) -> web.Response:
        return web.Response(text=_asset("index.html"), content_type="text/html")

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        types = {".js": "application/javascript", ".css": "text/css", ".png": "image/png"}
        kind = next((t for ext, t in types.items() if name.endswith(ext)), None)
        if kind is None or not re.fullmatch(r"[a-z]+\.[a-z]+", name):
            raise web.HTTPNotFound()
        try:
            return web.Response(text=_asset(name), content_type=kind)
        except FileNotFoundError:
            raise web.HTTPNotFound() from None

    async def _state(self, request: web.Request) -> web.Response:
        user = request.query.get("user", seed.ONCALL)
        return web.json_response(view_of(self.slack.workspace, user, self.version, self.ready))

    # Actions -------------------------------------------------------------------------------
    async def _body(self, request: web.Request) -> tuple[Json, str, SlackDriver]:
        try:
            body = await request.json()
        except ValueError:
            raise BadRequest("the request body must be JSON") from None
        ws = self.slack.workspace
        user = str(body.get("user", ""))
        if user not in ws.users:
            raise BadRequest(f"no such person in the sandbox: {user!r}")
        if self.driver is None or not self.ready.is_set():
            raise web.HTTPServiceUnavailable(
                text=json.dumps({"error": "the sandbox is starting or resetting; try again"}),
                content_type="application/json",
            )
        return body, user, self.driver

    def _channel(self, body: Json, user: str) -> str:
        channel = str(body.get("channel", ""))
        chan = self.slack.workspace.channels.get(channel)
        if chan is None or user not in chan.members:
            raise BadRequest(f"{self._name(user)} is not in that channel")
        return channel

    def _name(self, user: str) -> str:
        return self.slack.workspace.users[user].name

    async def _post(self, request: web.Request) -> web.Response:
        body, user, driver = await self._body(request)
        channel = self._channel(body, user)
        text = str(body.get("text", "")).strip()
        if not text:
            raise BadRequest("type a message first")
        thread_ts = str(body.get("thread_ts") or "") or None
        if text.startswith("/"):
            command, _, rest = text.partition(" ")
            if command not in COMMANDS:
                known = ", ".join(COMMANDS)
                raise BadRequest(f"{command} is not a command here; this workspace has {known}")
            d = await driver.command(channel, user, rest.strip(), command=command)
            await self.slack.changed()
            return _delivered(d.status, d.body)
        msg, deliveries = await driver.post(
            channel, user, to_slack_text(text, self.slack.workspace), thread_ts=thread_ts
        )
        status, answered = _worst(deliveries)
        if status != 200:
            return _delivered(status, answered)
        return web.json_response({"ok": True, "ts": msg.ts})

    async def _click(self, request: web.Request) -> web.Response:
        body, user, driver = await self._body(request)
        ws = self.slack.workspace
        common: dict[str, Any] = {
            "action_id": str(body.get("action_id", "")),
            "value": str(body.get("value", "")),
            "block_id": str(body.get("block_id") or "b"),
            "label": str(body.get("label") or ""),
        }
        view_id = body.get("view_id")
        if view_id:
            view = ws.views.get(str(view_id))
            if view is None:
                raise BadRequest("that view is gone; reopen it")
            d = await driver.click(user, view=view, **common)
        else:
            channel = self._channel(body, user)
            d = await driver.click(
                user, channel=channel, message_ts=str(body.get("message_ts", "")), **common
            )
        return _delivered(d.status, d.body)

    async def _shortcut(self, request: web.Request) -> web.Response:
        body, user, driver = await self._body(request)
        channel = self._channel(body, user)
        ts = str(body.get("message_ts", ""))
        if self.slack.workspace.channels[channel].find(ts) is None:
            raise BadRequest("that message is gone")
        d = await driver.message_shortcut(user, channel, ts)
        return _delivered(d.status, d.body)

    async def _submit(self, request: web.Request) -> web.Response:
        body, user, driver = await self._body(request)
        ws = self.slack.workspace
        view = ws.views.get(str(body.get("view_id", "")))
        if view is None:
            raise BadRequest("that modal is gone")
        values = body.get("values") or {}
        if not isinstance(values, dict) or not all(isinstance(v, dict) for v in values.values()):
            raise BadRequest("values must be {block_id: {action_id: value}}")
        d = await driver.submit_view(user, view, values)
        if d.status != 200:
            return _delivered(d.status, d.body)
        ack = d.json() if d.body.startswith("{") else {}
        action = ack.get("response_action")
        if action == "errors":
            return web.json_response({"ok": False, "errors": ack.get("errors", {})})
        stack = ws.modal_stacks.setdefault(user, [])
        if action in ("update", "push") and isinstance(ack.get("view"), dict):
            stored = {**ack["view"], "id": ws.next_id("V"), "team_id": ws.team_id}
            ws.views[stored["id"]] = stored
            if action == "update" and stack:
                stack[-1] = stored["id"]
            else:
                stack.append(stored["id"])
        else:
            ws.close_modals(user, top_only=action != "clear")
        await self.slack.changed()
        return web.json_response({"ok": True})

    async def _close(self, request: web.Request) -> web.Response:
        _, user, _ = await self._body(request)
        self.slack.workspace.close_modals(user, top_only=True)
        await self.slack.changed()
        return web.json_response({"ok": True})

    async def _home(self, request: web.Request) -> web.Response:
        _, user, driver = await self._body(request)
        d = await driver.home_opened(user)
        return _delivered(d.status, d.body)

    async def _jobs(self, request: web.Request) -> web.Response:
        """Run the scheduler's roll-up and digest now, instead of waiting for them."""
        await self._body(request)
        from bot.scheduler import Jobs

        assert self.runtime is not None
        jobs = Jobs(
            self.runtime.deps, self.runtime.app.client, team_id=self.slack.workspace.team_id
        )
        rolled = await jobs.roll_up_threads()
        posted = await jobs.post_digest()
        return web.json_response({"ok": True, "rolled_up": rolled, "digest_posted": posted})

    async def _reset(self, request: web.Request) -> web.Response:
        await self.reset()
        return web.json_response({"ok": True})


async def _no_content(request: web.Request) -> web.Response:
    return web.Response(status=204)


def _asset(name: str) -> str:
    return resources.files("bot.sandbox").joinpath("static", name).read_text(encoding="utf-8")


def _worst(deliveries: list[Any]) -> tuple[int, str]:
    bad = [d for d in deliveries if d.status != 200]
    d = bad[0] if bad else deliveries[-1]
    return d.status, d.body


def _delivered(status: int, body: str) -> web.Response:
    """What the bot answered, for the page: a failure is shown, never swallowed."""
    if status == 200:
        return web.json_response({"ok": True})
    return web.json_response(
        {"ok": False, "error": f"the bot answered HTTP {status}: {body[:200]}"}, status=502
    )


MENTION = re.compile(r"(?<![\w<])@([a-z0-9][a-z0-9._-]*)", re.I)


def to_slack_text(typed: str, ws: Workspace) -> str:
    """What Slack stores for typed text: &, < and > escaped, @name turned into <@U…>."""
    escaped = html.escape(typed, quote=False)
    by_name = {u.name.lower(): u.id for u in ws.users.values()}
    by_name["opsmemory"] = ws.bot_user_id

    def mention(m: re.Match[str]) -> str:
        uid = by_name.get(m[1].lower())
        return f"<@{uid}>" if uid else m[0]

    return MENTION.sub(mention, escaped)


def view_of(ws: Workspace, user: str, version: int, ready: asyncio.Event) -> Json:
    """What `user` would see in Slack right now: their channels with messages, their own
    ephemerals, their App Home and their open modals."""
    if user not in ws.users:
        user = seed.ONCALL
    roles = {p.id: p for p in seed.PEOPLE}
    users = [
        {
            "id": u.id,
            "name": u.name,
            "real_name": u.real_name or u.name,
            "role": roles[u.id].role if u.id in roles else "",
            "guest": u.is_restricted,
            "approver": u.id in seed.APPROVERS,
        }
        for u in ws.users.values()
    ]
    channels = []
    for c in ws.channels.values():
        if c.id.startswith("D") or user not in c.members:
            continue
        channels.append(
            {
                "id": c.id,
                "name": c.name,
                "private": c.is_private,
                "messages": [_message(m, ws) for m in c.messages],
            }
        )
    return {
        "version": version,
        "ready": ready.is_set(),
        "me": user,
        "bot": {"id": ws.bot_user_id, "name": "opsmemory"},
        "users": users,
        "channels": channels,
        "ephemerals": [
            {
                "channel": e.channel,
                "ts": e.ts,
                "text": e.text,
                "blocks": e.blocks,
                "thread_ts": e.thread_ts,
            }
            for e in ws.ephemerals_for(user)
        ],
        "home": ws.home_views.get(user),
        "dm": [_message(m, ws) for m in ws.channels[f"D{user}"].messages]
        if f"D{user}" in ws.channels
        else [],
        "modals": ws.modal_stack(user),
    }


def _message(m: Any, ws: Workspace) -> Json:
    author = ws.users.get(m.user or "")
    return {
        "ts": m.ts,
        "user": m.user,
        "name": "opsmemory"
        if m.bot_id == ws.bot_id
        else m.username or (author.real_name or author.name if author else "?"),
        "bot": bool(m.bot_id),
        "text": m.text,
        "blocks": m.blocks,
        "attachments": m.attachments,
        "thread_ts": m.thread_ts,
        "edited": m.edited,
    }
