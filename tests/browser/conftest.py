"""Browser fixtures: a real sandbox (bot + stand-in + page) in this event loop and Debian's
Chromium driven by Playwright. Skips cleanly where Chromium or Playwright is absent; CI installs
both (`.ci/run`)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bench.browser import CHROMIUM, available, launch_chromium
from bot.sandbox.server import Sandbox
from bot.settings import Settings


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    base = Settings(_env_file=None, data_dir=tmp_path / "real-bot")  # type: ignore[call-arg]
    box = Sandbox(base, tmp_path / "sandbox")
    await box.start(port=0)
    yield box
    await box.stop()


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Any]:
    if not available():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.async_api")
    async with launch_chromium(tmp_path / "chromium-profile") as b:
        yield b
    shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


@pytest.fixture
async def page(browser: Any, sandbox: Sandbox) -> Any:
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(sandbox.url)
    yield page
    assert not errors, f"the page raised: {errors}"
