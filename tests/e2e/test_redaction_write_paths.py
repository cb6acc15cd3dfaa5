"""Every write path stores none of a set of synthetic secrets and PII (issue 16, tests): slash
notes, thread messages, edits, the save modal, `/incident remember`, incident titles, roll-ups and
LLM summaries, each driven through real Bolt; and a redaction failure still writes nothing.

Each probe value is checked in every row of every table (SQL, shadow tables included) and in the
raw bytes of the database file and its WAL. Values are built by concatenation and derived from
the test's tag, so a leak names its path and this file holds no scanner-shaped literal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.runtime import Runtime
from bot.scheduler import Jobs
from bot.standin import FakeSlack, SlackDriver
from memory.errors import RedactionFailed
from memory.store.db import Database
from tests.e2e.workspace import (
    ALICE,
    BOB,
    INCIDENT,
    PRIVATE,
    SECRET,
    TEAM,
    eventually,
    eventually_async,
)
from tests.fakes.crashing_recognizer import CrashingRecognizer
from tests.fakes.ollama_server import FakeOllama

_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
_BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_DIGITS = "0123456789"
_HEX = "0123456789abcdef"


@dataclass(frozen=True)
class Probe:
    kind: str
    text: str  # how it is pasted
    value: str  # what must not be stored


def _chars(seed: str, alphabet: str, n: int) -> str:
    digest = hashlib.sha256(seed.encode()).digest() * 4
    return "".join(alphabet[b % len(alphabet)] for b in digest[:n])


def probes(tag: str) -> list[Probe]:
    """One value of each kind, unique to `tag`: four kinds redacted before issue 16, three new."""
    aws = "AK" + "IA" + _chars(tag + "aws", _BASE32, 16)
    slack = "xo" + "xb-" + _chars(tag + "s1", _DIGITS, 11) + "-" + _chars(tag + "s2", _DIGITS, 12)
    slack += "-" + _chars(tag + "s3", _ALNUM, 24)
    email = f"oncall.{tag}" + "@" + "corp-example.com"
    password = "Hz" + _chars(tag + "pw", _ALNUM, 12)
    datadog = _chars(tag + "dd", _HEX, 32)
    gitlab = "gl" + "pat-" + _chars(tag + "gl", _ALNUM, 20)
    stripe = "sk" + "_live_" + _chars(tag + "sk", _ALNUM, 24)
    return [
        Probe("aws_access_key", f"rotated {aws} today", aws),
        Probe("slack_token", f"the bot uses {slack} still", slack),
        Probe("email", f"page {email} now", email),
        Probe("password", f"password={password} in the env", password),
        Probe("datadog_api_key", f"DD_API_KEY={datadog}", datadog),
        Probe("gitlab_token", f"the runner has {gitlab} set", gitlab),
        Probe("stripe_key", f"billing logs {stripe} here", stripe),
    ]


def pasted(ps: list[Probe], lead: str = "checkout pool exhausted") -> str:
    return lead + "; " + "; ".join(p.text for p in ps)


async def stored_values(db: Database) -> list[str | bytes]:
    """Every value of every row of every table, shadow tables of FTS5 and sqlite-vec included."""
    tables = await db.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
    )
    out: list[str | bytes] = []
    for t in tables:
        name = str(t["name"]).replace('"', '""')
        for row in await db.fetchall(f'SELECT * FROM "{name}"'):
            out += [v for v in row if isinstance(v, str | bytes)]
    return out


async def leaks(bot: Runtime, ps: list[Probe]) -> dict[str, list[str]]:
    """{probe kind: [where its value was found]} over the rows and the raw database bytes."""
    values = await stored_values(bot.deps.db)
    path = Path(bot.deps.db.path)
    files = {p.name: p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists()}
    found: dict[str, list[str]] = {}
    for p in ps:
        raw = p.value.encode()
        in_rows = any(raw in v if isinstance(v, bytes) else p.value in v for v in values)
        where = ["rows"] if in_rows else []
        where += [name for name, blob in files.items() if raw in blob]
        if where:
            found[p.kind] = where
    return found


async def scalar(bot: Runtime, sql: str) -> Any:
    return await bot.deps.db.scalar(sql)


async def command(driver: SlackDriver, slack: FakeSlack, channel: str, user: str, text: str) -> str:
    """Run `/incident <text>` and return the reply the user sees: in the ack (writes answer
    there after their commit) or on response_url."""
    before = len(slack.calls_to("response_url"))
    d = await driver.command(channel, user, text)
    assert d.status == 200
    if d.body:
        return str(d.json()["text"])
    calls = await eventually(lambda: slack.calls_to("response_url")[before:])
    return str(calls[0].body["text"])


async def test_slash_note_stores_no_probe(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    ps = probes("slashnote")
    saved = await command(driver, slack, INCIDENT, ALICE, "note " + pasted(ps))
    assert saved.startswith("Saved")
    assert "<AWS_ACCESS_KEY>" in await scalar(bot, "SELECT text FROM memory_notes")
    assert await leaks(bot, ps) == {}


async def test_thread_messages_store_no_probe(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    ps = probes("threadmsg")
    root = await driver.say(INCIDENT, BOB, "checkout p99 at 4s")
    await driver.say(INCIDENT, ALICE, pasted(ps), thread_ts=root.ts)
    count = "SELECT count(*) FROM memory_thread_messages"
    await eventually_async(lambda: scalar(bot, count), lambda n: n == 2)
    assert await leaks(bot, ps) == {}


async def test_message_edits_store_no_probe(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    ps = probes("msgedit")
    msg = await driver.say(INCIDENT, BOB, "checkout p99 at 4s")
    edited = "SELECT count(*) FROM memory_thread_messages WHERE edited_at IS NOT NULL"
    await eventually_async(lambda: scalar(bot, "SELECT count(*) FROM memory_thread_messages"),
                           lambda n: n == 1)  # fmt: skip
    assert msg.ts
    await driver.edit(INCIDENT, msg.ts, pasted(ps, "checkout p99 at 4s"))
    await eventually_async(lambda: scalar(bot, edited), lambda n: n == 1)
    assert await leaks(bot, ps) == {}


async def test_save_modal_stores_no_probe(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    ps = probes("savemodal")
    msg = slack.workspace.post(INCIDENT, pasted(ps, "root cause: expired TLS cert"), user=BOB)
    await driver.message_shortcut(ALICE, INCIDENT, msg.ts)
    opened = await eventually(lambda: slack.calls_to("views.open"))
    view = next(v for v in slack.workspace.views.values()
                if v.get("callback_id") == "save_note_modal")  # fmt: skip
    assert ps[0].value in str(opened[0].body["view"]), "the modal is pre-filled with the message"
    await driver.submit_view(ALICE, view, {"note": {"text": pasted(ps, "root cause: TLS")}})
    saved = await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    assert saved[0].text.startswith("Saved note note:")
    assert await leaks(bot, ps) == {}


async def test_remember_stores_no_probe(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    ps = probes("remember")
    await command(driver, slack, INCIDENT, ALICE, "remember " + pasted(ps, "I run checkout"))
    assert await scalar(bot, "SELECT count(*) FROM memory_profile_facts") == 1
    assert await leaks(bot, ps) == {}


async def test_incident_titles_store_no_probe(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Titles hold at most 200 characters: the probes are split over two incidents."""
    ps = probes("title")
    for channel, part in ((INCIDENT, ps[:4]), (PRIVATE, ps[4:])):
        await command(driver, slack, channel, ALICE, "open sev2 " + " ".join(p.text for p in part))
    assert await scalar(bot, "SELECT count(*) FROM memory_incidents") == 2
    assert await leaks(bot, ps) == {}


async def test_roll_ups_store_no_probe(bot: Runtime, driver: SlackDriver, slack: FakeSlack) -> None:
    ps = probes("rollup")
    root = await driver.say(INCIDENT, BOB, "checkout p99 at 4s since the deploy")
    await driver.say(INCIDENT, ALICE, pasted(ps, "root cause: pool exhausted"), thread_ts=root.ts)
    await driver.say(INCIDENT, BOB, "decision: roll back checkout", thread_ts=root.ts)
    count = "SELECT count(*) FROM memory_thread_messages"
    await eventually_async(lambda: scalar(bot, count), lambda n: n == 3)
    assert await Jobs(bot.deps, bot.app.client, team_id=TEAM).roll_up_threads() >= 1
    summary = await scalar(bot, "SELECT summary FROM memory_episodes")
    assert "pool exhausted" in summary, "the roll-up quotes the message with the probes"
    assert await leaks(bot, ps) == {}


@pytest.fixture
async def ollama() -> AsyncIterator[FakeOllama]:
    fake = FakeOllama()
    fake.base_url = await fake.start()  # type: ignore[attr-defined]
    yield fake
    await fake.stop()


def ollama_chat(base_url: str) -> Callable[..., Any]:
    """The `Chat` an LLM summary is asked through (the scheduler passes none today)."""

    async def chat(messages: list[dict[str, str]], format: dict[str, Any]) -> str:
        body = {"model": "llama3.2", "messages": messages, "format": format, "stream": False}
        async with aiohttp.ClientSession() as s, s.post(f"{base_url}/api/chat", json=body) as r:
            return str((await r.json())["message"]["content"])

    return chat


async def test_llm_summaries_store_no_probe_the_model_echoes(
    start_bot: Callable[..., Any], ollama: FakeOllama, slack: FakeSlack
) -> None:
    """The model may repeat secrets it was never given (or invent them): re-redacted on store."""
    ps = probes("llmsummary")
    url = ollama.base_url  # type: ignore[attr-defined]
    bot = await start_bot(ollama_host=url)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        root = await d.say(INCIDENT, BOB, "checkout p99 at 4s since the deploy")
        await d.say(INCIDENT, ALICE, "decision: roll back checkout", thread_ts=root.ts)
    assert root.ts
    count = "SELECT count(*) FROM memory_thread_messages"
    await eventually_async(lambda: scalar(bot, count), lambda n: n == 2)
    ollama.reply = json.dumps({"summary": pasted(ps, "Rolled back checkout")})
    episode = await bot.deps.episodes.roll_up(TEAM, INCIDENT, root.ts, chat=ollama_chat(url))
    assert episode is not None and episode.llm_summary is not None
    assert "Rolled back checkout" in episode.llm_summary
    assert any(r.path == "/api/chat" for r in ollama.requests)
    assert await leaks(bot, ps) == {}


async def test_a_redaction_failure_writes_nothing_on_any_path(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Fail closed: with Presidio's analysis raising, the note, the fact and the message are
    refused, each person is told, and no probe reaches the database."""
    ps = probes("failclosed")
    # A real recognizer that raises, added to the running bot's own Presidio registry.
    bot.deps.redactor._get_engines().analyzer.registry.add_recognizer(CrashingRecognizer())
    with pytest.raises(RedactionFailed):
        await bot.deps.redactor.redact("probe")
    refused = "nothing was saved"
    note = await command(driver, slack, INCIDENT, ALICE, "note " + pasted(ps))
    assert refused in note
    fact = await command(driver, slack, INCIDENT, ALICE, "remember " + pasted(ps, "I run it"))
    assert refused in fact
    await driver.say(INCIDENT, BOB, pasted(ps))
    told = await eventually(lambda: slack.workspace.ephemerals_for(BOB))
    assert refused in told[0].text
    rows = (
        "SELECT (SELECT count(*) FROM memory_notes) + (SELECT count(*) FROM memory_profile_facts)"
        " + (SELECT count(*) FROM memory_thread_messages)"
    )
    assert await scalar(bot, rows) == 0
    assert await leaks(bot, ps) == {}
