"""bench.incident_day plays a scenario through the real bot and prints what people see."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.incident_day import run

SCENARIO = """
async def play(d):
    d.person("ana")
    d.person("ben")
    d.channel("inc-7-checkout", ["ana", "ben"])
    d.at("2026-11-02 10:00")
    await d.cmd("inc-7-checkout", "ana", "open sev2 checkout 503s")
    await d.say("inc-7-checkout", "ana", "checkout 503s since 10:02", thread="t")
    await d.say("inc-7-checkout", "ben", "root cause: v42 raised the DB pool to 200", thread="t")
    await d.settle()
    await d.ask("inc-7-checkout", "ana", "what was the root cause?", thread="t")
"""


async def test_a_scenario_prints_the_commands_messages_and_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = tmp_path / "day.py"
    day.write_text(SCENARIO)
    await run(day, None)
    out = capsys.readouterr().out
    assert "Opened inc-7 (sev2): checkout 503s" in out
    assert "[inc-7-checkout] ben: root cause: v42 raised the DB pool to 200" in out
    answer = out.split("@opsmemory what was the root cause?", 1)[1]
    assert "Memory says [S1] (root cause · ben" in answer and "v42 raised the DB pool" in answer
