"""End-to-end fixtures: the Slack stand-in, a real bot (Bolt over HTTP) and a signed driver."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import build_app
from bot.runtime import Runtime
from bot.settings import Settings
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import BOSS, RUNBOOKS, SECRET, seed


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    seed(fake)
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def bot_settings(tmp_path: Path, slack: FakeSlack) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        runbooks = tmp_path / "runbooks"
        if not runbooks.exists():
            shutil.copytree(RUNBOOKS, runbooks)
        values: dict[str, Any] = {
            "data_dir": tmp_path / "data",
            "runbooks_dir": runbooks,
            "slack_bot_token": slack.workspace.bot_token,
            "slack_signing_secret": SECRET,
            "slack_api_url": slack.api_url,
            "approvers": BOSS,
            "embedder": "onnx-minilm",
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return make


@pytest.fixture
async def start_bot(bot_settings: Callable[..., Settings]):  # type: ignore[no-untyped-def]
    started: list[Runtime] = []

    async def start(**overrides: Any) -> Runtime:
        runtime = await build_app(bot_settings(**overrides))
        started.append(runtime)
        await runtime.warm_up()
        await runtime.start_http(host="127.0.0.1", port=0)
        return runtime

    yield start
    for runtime in started:
        await runtime.stop()


@pytest.fixture
async def bot(start_bot: Callable[..., Any]) -> Runtime:
    return await start_bot()


@pytest.fixture
async def driver(bot: Runtime, slack: FakeSlack) -> AsyncIterator[SlackDriver]:
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        yield d
