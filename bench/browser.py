"""Debian's Chromium under Playwright, headless and offline: the browser tests and the sandbox
benchmark share this launcher. Playwright is the driver only; no browser is ever downloaded."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _fresh(profile_dir: Path) -> None:
    profile_dir.mkdir(parents=True, exist_ok=True)


def available() -> bool:
    """Debian's chromium is installed (tests skip without it; CI installs it)."""
    return Path(CHROMIUM).exists()


@contextlib.asynccontextmanager
async def launch_chromium(
    profile_dir: Path, *, width: int = 1400, height: int = 900
) -> AsyncIterator[Any]:
    """A Chromium browser context on a fresh profile in `profile_dir` (nothing shared with any
    other run); yields the Playwright BrowserContext."""
    from playwright.async_api import async_playwright

    _fresh(profile_dir)
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile_dir),
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": width, "height": height},
        )
        try:
            yield context
        finally:
            await context.close()
