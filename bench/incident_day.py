"""Play a scripted incident day through the real bot and print what people would see.

A scenario is a Python file defining `async def play(day: Day) -> None`. It adds people and
channels, posts thread messages, runs `/incident` commands, mentions the bot, moves the clock
(`day.at(...)`, `day.later(hours=...)`) and runs the scheduler's jobs. Every step goes through
the real Bolt app over HTTP with signed requests against the Slack stand-in, exactly as in the
e2e tests; what the bot posts, and to whom, is printed as a transcript to read as an on-call
engineer would.

  python -m bench.incident_day path/to/day.py [--runbooks DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import itertools
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.app import build_app
from bot.runtime import Runtime
from bot.scheduler import Jobs
from bot.settings import Settings
from bot.standin import FakeSlack, Message, SlackDriver

SECRET = "incident-day-signing-secret-0123456789"
DIGEST = "C0GENERAL"  # the digest goes to the scenario's channel named "general"


class MovableClock:
    """The bot's clock and the stand-in's message timestamps, moved by the scenario."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


class Day:
    """One scenario run: the stand-in, the bot, a driver and the transcript printer."""

    def __init__(self, slack: FakeSlack, bot: Runtime, driver: SlackDriver, clock: MovableClock):
        self.slack, self.bot, self.driver, self.clock = slack, bot, driver, clock
        self.ws = slack.workspace
        self.jobs = Jobs(bot.deps, bot.app.client, team_id=self.ws.team_id)
        self._names: dict[str, str] = {}
        self._channels: dict[str, str] = {}
        self._seq = itertools.count(1)
        self.threads: dict[str, str] = {}  # label -> root ts

    # -- the world ---------------------------------------------------------------------------
    def person(self, name: str, *, guest: bool = False, other_org: bool = False) -> str:
        uid = f"U0{name.upper()[:8]}"
        kw: dict[str, Any] = {"real_name": name.title()}
        if guest:
            kw["is_restricted"] = True
        if other_org:
            kw["team_id"] = "T0OTHERORG"
        self.ws.add_user(uid, name, **kw)
        self._names[name] = uid
        return uid

    def channel(self, name: str, members: list[str], *, private: bool = False) -> str:
        cid = DIGEST if name == "general" else f"{'G' if private else 'C'}0{next(self._seq):04d}"
        self.ws.add_channel(cid, name, private=private, members=[self._names[m] for m in members])
        self._channels[name] = cid
        return cid

    def at(self, when: str) -> None:
        """Set the clock: "2026-11-03 10:02" (UTC)."""
        self.clock.now = datetime.strptime(when, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
        print(f"\n--- {when} UTC ---")

    def later(self, **delta: float) -> None:
        self.clock.now += timedelta(**delta)
        print(f"\n--- {self.clock.now:%Y-%m-%d %H:%M} UTC ---")

    # -- people talking ----------------------------------------------------------------------
    async def say(self, channel: str, who: str, text: str, *, thread: str | None = None) -> str:
        """Post a message (a reply when `thread` names a label); a message outside any thread
        starts the label `thread`... unless given, its ts is returned."""
        self.clock.now += timedelta(seconds=40)
        cid = self._channels[channel]
        root = self.threads.get(thread) if thread else None
        msg, _ = await self.driver.post(cid, self._names[who], text, thread_ts=root)
        if thread and root is None:
            self.threads[thread] = msg.ts
        indent = "    " if root else ""
        print(f"{indent}[{channel}] {who}: {text}")
        return msg.ts

    async def edit(self, channel: str, ts: str, text: str) -> None:
        await self.driver.edit(self._channels[channel], ts, text)
        print(f"    (edited) {text}")

    async def delete(self, channel: str, ts: str) -> None:
        await self.driver.delete(self._channels[channel], ts)
        print("    (deleted a message)")

    async def alert(self, channel: str, app: str, attachments: list[dict[str, Any]], *,
                    thread: str) -> None:  # fmt: skip
        self.clock.now += timedelta(seconds=40)
        msg, _ = await self.driver.app_post(
            self._channels[channel], app, "", attachments=attachments
        )
        self.threads.setdefault(thread, msg.ts)
        print(f"[{channel}] {app} (app): {attachments[0].get('title') or attachments[0]}")

    async def ask(self, channel: str, who: str, question: str, *, thread: str | None = None,
                  within_s: float = 20.0) -> str:  # fmt: skip
        """Mention the bot and print its answer in the thread and any ephemeral to the asker."""
        self.clock.now += timedelta(seconds=40)
        cid, uid = self._channels[channel], self._names[who]
        root = self.threads.get(thread) if thread else None
        eph_before = len(self.ws.ephemerals_for(uid))
        (m, _) = await self.driver.mention(cid, uid, question, thread_ts=root)
        asked: str = m.ts or ""
        where = root or asked
        answers = await _until(lambda: self.ws.bot_messages(cid, where), within_s, asked)
        answer = answers[-1]
        print(f"\n>>> [{channel}] {who}: @opsmemory {question}")
        print(_indent(answer.text))
        for block in answer.blocks:
            text = str(block.get("text", {}).get("text", ""))
            if text.startswith(("*Memory*", "*Similar")):
                print(_indent(text))
        for eph in self.ws.ephemerals_for(uid)[eph_before:]:
            print(_indent(f"(only {who} sees) {eph.text}"))
        return answer.text

    async def cmd(self, channel: str, who: str, text: str) -> str:
        """Run `/incident <text>` and print the reply its caller sees."""
        self.clock.now += timedelta(seconds=20)
        cid, uid = self._channels[channel], self._names[who]
        before = len(self.slack.calls_to("response_url"))
        eph_before = len(self.ws.ephemerals_for(uid))
        d = await self.driver.command(cid, uid, text)
        reply = ""
        if d.body:
            reply = str(d.json().get("text", ""))
        else:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                calls = self.slack.calls_to("response_url")[before:]
                ephs = self.ws.ephemerals_for(uid)[eph_before:]
                if calls:
                    reply = str(calls[0].body.get("text", ""))
                    break
                if ephs:
                    reply = ephs[0].text
                    break
                await asyncio.sleep(0.05)
        print(f"\n>>> [{channel}] {who}: /incident {text}")
        print(_indent(reply or "(no reply)"))
        return reply

    async def explain(self, channel: str, who: str, question: str, top: int = 8) -> None:
        """Print the ranked candidates of `question` as the floor reads them (to debug)."""
        from bot.directory import requester_for
        from memory.recall.recall import features

        deps = self.bot.deps
        requester = await requester_for(
            deps.users,
            deps.memberships,
            team_id=self.ws.team_id,
            user_id=self._names[who],
            channel_id=self._channels[channel],
        )
        recall = deps.recall
        ranked = await recall.recall(requester, question, k=recall._config.candidates)
        subjects = await recall.subjects(requester, ranked)
        floor = recall._config.floors["hybrid"]
        print(f"\n??? {question}")
        for r, it in enumerate(ranked[:top]):
            f = features(question, it, r, subjects.get(it.id, ""))
            p = floor.probability(f)
            print(
                f"  {r:2d} p={p:.3f} sim={f.similarity:.3f} cov={f.coverage:.2f} "
                f"{it.kind}: {it.text[:110]!r}"
            )

    async def settle(self) -> None:
        """Let capture finish and run the scheduler's per-minute vector job."""
        await asyncio.sleep(0.5)
        await self.jobs.index_vectors()

    async def rollup_and_digest(self, *, digest: bool = True) -> None:
        """Roll up changed threads and, when a channel named "general" exists, post the digest."""
        await self.settle()
        count = await self.jobs.roll_up_threads()
        print(f"\n=== rolled up {count} thread(s)")
        self.clock.now += timedelta(minutes=1)  # the digest job runs after the roll-up job
        if digest and DIGEST in self.ws.channels:
            before = len(self.ws.channels[DIGEST].messages)
            posted = await self.jobs.post_digest()
            print(f"=== digest posted: {posted}")
            for msg in self.ws.channels[DIGEST].messages[before:]:
                print(_indent(msg.text))


def _indent(text: str) -> str:
    return "\n".join("    | " + line for line in text.splitlines())


async def _until(read: Callable[[], list[Message]], within_s: float, after: str) -> list[Message]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = [m for m in read() if float(m.ts) > float(after)]
        if found:
            return found
        await asyncio.sleep(0.05)
    raise TimeoutError("the bot did not answer in time")


def _load(path: Path) -> Callable[[Day], Awaitable[None]]:
    spec = importlib.util.spec_from_file_location("scenario", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    play: Callable[[Day], Awaitable[None]] = module.play
    return play


async def run(path: Path, runbooks: Path | None) -> None:
    play = _load(path)
    clock = MovableClock(datetime(2026, 11, 2, 9, 0, tzinfo=UTC))
    slack = FakeSlack()
    counter = itertools.count(1)
    slack.workspace.next_ts = lambda: f"{int(clock().timestamp())}.{next(counter):06d}"  # type: ignore[method-assign]
    await slack.start()
    with tempfile.TemporaryDirectory() as tmp:
        values: dict[str, Any] = {
            "data_dir": Path(tmp) / "data",
            "slack_bot_token": slack.workspace.bot_token,
            "slack_signing_secret": SECRET,
            "slack_api_url": slack.api_url,
            "embedder": "onnx-minilm",
            "digest_channel": DIGEST,
        }
        if runbooks:
            values["runbooks_dir"] = runbooks
        settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
        bot = await build_app(settings, clock=clock)
        await bot.warm_up()
        await bot.start_http(host="127.0.0.1", port=0)
        try:
            url = f"http://127.0.0.1:{bot.port}/slack/events"
            async with SlackDriver(url, SECRET, slack) as driver:
                await play(Day(slack, bot, driver, clock))
        finally:
            await bot.stop()
            await slack.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", type=Path)
    parser.add_argument("--runbooks", type=Path, default=None)
    args = parser.parse_args(argv)
    asyncio.run(run(args.scenario, args.runbooks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
