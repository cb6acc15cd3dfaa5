"""The sandbox's server without a browser: its own state survives a restart, the page's API says
precisely what it cannot do, and Slack's scoping holds for whoever you act as (issue 19)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp

from bot.sandbox import seed
from bot.sandbox.server import Sandbox
from bot.settings import Settings
from tests.e2e.workspace import eventually_async


async def _call(url: str, name: str, **body: Any) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as s, s.post(f"{url}api/{name}", json=body) as r:
        return r.status, await r.json()


async def _state(url: str, user: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as s, s.get(f"{url}api/state", params={"user": user}) as r:
        return await r.json()


def _texts(state: dict[str, Any], channel_id: str) -> list[str]:
    chan = next(c for c in state["channels"] if c["id"] == channel_id)
    return [m["text"] for m in chan["messages"]]


async def test_what_you_did_is_still_there_after_a_restart_and_bad_input_is_named(
    tmp_path: Path,
) -> None:
    base = Settings(_env_file=None, data_dir=tmp_path / "real-bot")  # type: ignore[call-arg]
    box = Sandbox(base, tmp_path / "sandbox")
    url = await box.start(port=0)
    try:
        status, out = await _call(
            url, "post", user=seed.ONCALL, channel=seed.INCIDENT, text="pool raised to 120 & <ok>"
        )
        assert status == 200 and out["ok"]
        assert _texts(await _state(url, seed.ONCALL), seed.INCIDENT)[-1] == (
            "pool raised to 120 &amp; &lt;ok&gt;"  # stored escaped, as Slack stores it
        )
        # Scoping as in Slack: the guest does not see the private channel, nor can post there.
        guest = await _state(url, seed.GUEST)
        assert seed.PRIVATE not in {c["id"] for c in guest["channels"]}
        status, out = await _call(url, "post", user=seed.GUEST, channel=seed.PRIVATE, text="hi")
        assert status == 400 and "not in that channel" in out["error"]
        status, out = await _call(url, "post", user=seed.ONCALL, channel=seed.INCIDENT, text="/x y")
        assert status == 400 and "/x is not a command here" in out["error"]
        status, out = await _call(url, "post", user="U0NOBODY", channel=seed.INCIDENT, text="hi")
        assert status == 400 and "no such person" in out["error"]
    finally:
        await box.stop()

    again = Sandbox(base, tmp_path / "sandbox")
    url = await again.start(port=0)
    try:
        texts = _texts(await _state(url, seed.ONCALL), seed.INCIDENT)
        assert texts[-1] == "pool raised to 120 &amp; &lt;ok&gt;"
        assert sum("Opened inc-101" in t for t in texts) == 1  # not seeded a second time
        status, out = await _call(
            url, "post", user=seed.ONCALL, channel=seed.INCIDENT, text="still here"
        )
        assert status == 200
        # Event ids never repeat ones the bot saw before the restart: it stores this one.
        assert again.runtime is not None
        threads, team = again.runtime.deps.threads, again.slack.workspace.team_id
        await eventually_async(
            lambda: threads.messages(team, seed.INCIDENT, out["ts"]), lambda m: len(m) == 1
        )
    finally:
        await again.stop()
