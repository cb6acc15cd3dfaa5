"""Shared fixtures: clean environment, settings factory, a real database file, a controllable clock."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.settings import Settings
from memory.embedding.embedder import Embedder, build_embedder
from memory.redaction.redactor import Redactor
from memory.store.db import Database

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's Slack tokens or OPSMEMORY_* settings."""
    for name in list(os.environ):
        if name.startswith(("SLACK_", "OPSMEMORY_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Build Settings directly, defaulting the data dir to this test's tmp dir."""

    def make(**overrides: object) -> Settings:
        overrides.setdefault("data_dir", tmp_path / "data")
        return Settings(_env_file=None, **overrides)  # type: ignore[call-arg]

    return make


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "opsmemory.db")
    yield database
    await database.close()


@pytest.fixture(scope="session")
def redactor() -> Redactor:
    """The real Presidio redactor, built once per run (about a second to build)."""
    return Redactor()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real MiniLM ONNX embedder, loaded once per run (it is stateless after loading)."""
    embedder = build_embedder("onnx-minilm")
    assert embedder is not None
    return embedder


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def shared_data() -> Iterator[Path]:
    """../shared/data when present; tests that need it skip cleanly on a user's clone."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present on this machine")
    yield SHARED_DATA
