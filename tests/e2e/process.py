"""The bot as a real `opsmemory run` process against the stand-in, for signals and kill -9."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from bot.standin import FakeSlack
from tests.e2e.workspace import RUNBOOKS, SECRET

ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    """`python -m bot.cli run --port 0`; `port` is read from its `http_listening` log line."""

    def __init__(self, slack: FakeSlack, data_dir: Path, **env: str) -> None:
        self.slack, self.data_dir, self.extra_env = slack, data_dir, env
        self.port: int | None = None
        self.logs: list[dict[str, Any]] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    @property
    def database(self) -> Path:
        return self.data_dir / "opsmemory.db"

    @property
    def events_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    async def start(self, within_s: float = 120.0) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/tmp"),
            "SLACK_BOT_TOKEN": self.slack.workspace.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "OPSMEMORY_SLACK_API_URL": self.slack.api_url,
            "OPSMEMORY_DATA_DIR": str(self.data_dir),
            "OPSMEMORY_RUNBOOKS_DIR": str(RUNBOOKS),
            "OPSMEMORY_HOST": "127.0.0.1",
            **self.extra_env,
        }
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", "--port", "0",
            env=env, cwd=ROOT, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        listening = asyncio.Event()
        self._reader = asyncio.create_task(self._read_logs(listening))
        async with asyncio.timeout(within_s):
            await listening.wait()

    async def _read_logs(self, listening: asyncio.Event) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        async for raw in self._proc.stderr:
            try:
                entry = json.loads(raw)
            except ValueError:
                entry = {"event": "stderr", "line": raw.decode(errors="replace").rstrip()}
            self.logs.append(entry)
            if entry.get("event") == "http_listening":
                self.port = int(entry["port"])
                listening.set()

    def signal(self, sig: signal.Signals) -> None:
        assert self._proc is not None
        self._proc.send_signal(sig)

    async def wait(self, within_s: float = 60.0) -> int:
        """The exit code, once the process has ended and its log is read to the end."""
        assert self._proc is not None and self._reader is not None
        async with asyncio.timeout(within_s):
            code = await self._proc.wait()
            await self._reader
        return code

    def events(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.logs if e.get("event") == name]

    async def kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
            await self.wait()
