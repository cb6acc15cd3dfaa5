"""The README's first command: `opsmemory run` with no Slack credentials starts the sandbox, from
any directory after install, in its own state directory (issue 19)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any


def _first_line_matching(proc: subprocess.Popen[str], pattern: str, within_s: float) -> str:
    deadline = time.monotonic() + within_s
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if re.search(pattern, line):
            return line
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"no line matching {pattern!r}; exit code {proc.poll()}")


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}api/state?user=U0DANA", timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def test_run_without_credentials_serves_the_seeded_sandbox_and_stops_cleanly(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "OPSMEMORY_"))}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    opsmemory = Path(sys.executable).with_name("opsmemory")
    proc = subprocess.Popen(
        [str(opsmemory), "run", "--port", "0"],
        cwd=tmp_path,  # not the repository: nothing may import `bench` or read ./knowledge
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = _first_line_matching(proc, r"open http://127\.0\.0\.1:\d+/", within_s=240)
        url = re.search(r"http://\S+/", line)[0]  # type: ignore[index]
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "opsmemory sandbox" in page and "/static/app.js" in page
        state = _state(url)
        assert {c["name"] for c in state["channels"]} >= {"inc-101-checkout-latency"}
        deadline = time.monotonic() + 240  # the page is up at once; the bot plays the seed
        while not state["ready"] and time.monotonic() < deadline:
            time.sleep(0.5)
            state = _state(url)
        assert state["ready"]
        names = {c["name"] for c in state["channels"]}
        assert {"inc-101-checkout-latency", "inc-102-search-errors", "general"} <= names
        incident = next(c for c in state["channels"] if c["name"] == "inc-101-checkout-latency")
        assert any("14:05 deploy" in m["text"] for m in incident["messages"])
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "no Slack credentials set" in err and "starting the local sandbox" in err
    assert "ready in" in err
    assert (tmp_path / "state" / "opsmemory-sandbox" / "bot").is_dir()
    assert not (tmp_path / "data").exists()  # the real bot's default data dir is untouched
