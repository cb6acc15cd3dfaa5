"""The `opsmemory` command as an operator uses it: help everywhere, redact, doctor, bad settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import build_parser
from tests.evals.test_memory import locomo_file

COMMANDS = [
    ["run"],
    ["index"],
    ["eval"],
    ["eval", "runbooks"],
    ["eval", "memory"],
    ["redact"],
    ["memory"],
    ["memory", "export"],
    ["memory", "forget"],
    ["doctor"],
]


def _opsmemory(
    *args: str, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "OPSMEMORY_"))}
    clean.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=clean,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([*command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: opsmemory " + " ".join(command))
    assert len(out.splitlines()) > 3  # a description, not just the usage line


def test_redact_reads_stdin_and_writes_redacted_stdout(tmp_path: Path) -> None:
    text = "deploy failed; ping ops@example.com, token xoxb-123456789012-abcdefghijklmn\n"
    done = _opsmemory("redact", stdin=text, env={"OPSMEMORY_DATA_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "deploy failed; ping <EMAIL_ADDRESS>, token <SLACK_TOKEN>\n"


def test_redact_json_reports_types_and_counts_never_values(tmp_path: Path) -> None:
    text = "a@example.com b@example.com ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    done = _opsmemory("redact", "--json", stdin=text, env={"OPSMEMORY_DATA_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    counts = {f["entity_type"]: f["count"] for f in result["findings"]}
    assert counts == {"EMAIL_ADDRESS": 2, "GITHUB_TOKEN": 1}
    assert "example.com" not in done.stdout and "ghp_" not in done.stdout


def test_bad_setting_exits_2_naming_the_variable(tmp_path: Path) -> None:
    done = _opsmemory(
        "doctor", env={"SLACK_APP_TOKEN": "xoxb-wrong", "OPSMEMORY_DATA_DIR": str(tmp_path)}
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "opsmemory: SLACK_APP_TOKEN must start with xapp- (an app-level token with connections:write)"
    )


def test_doctor_passes_on_embedded_defaults(tmp_path: Path) -> None:
    done = _opsmemory("doctor", env={"OPSMEMORY_DATA_DIR": str(tmp_path)}, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split()[1]: line for line in done.stdout.splitlines()}
    assert lines["sqlite"].startswith("ok") and "sqlite-vec" in lines["sqlite"]
    assert lines["redaction"].startswith("ok")
    assert lines["embedder"].startswith("ok") and "digest 8199be6f699a395f" in lines["embedder"]
    assert "not configured" in lines["ollama"]
    assert lines["slack"].startswith("warn") and "SLACK_BOT_TOKEN" in lines["slack"]


def test_doctor_fails_on_a_corrupt_database(tmp_path: Path) -> None:
    (tmp_path / "opsmemory.db").write_bytes(b"garbage" * 1000)
    done = _opsmemory("doctor", env={"OPSMEMORY_DATA_DIR": str(tmp_path)}, cwd=tmp_path)
    assert done.returncode == 1
    assert "FAIL database" in done.stdout and "move it aside" in done.stdout


def test_doctor_fails_when_ollama_is_configured_but_unreachable(tmp_path: Path) -> None:
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path), "OPSMEMORY_OLLAMA_HOST": "http://127.0.0.1:9"}
    done = _opsmemory("doctor", env=env, cwd=tmp_path)
    assert done.returncode == 1
    assert "FAIL ollama" in done.stdout and "unreachable" in done.stdout


def test_run_without_slack_credentials_exits_2_with_what_is_missing(tmp_path: Path) -> None:
    done = _opsmemory("run", env={"OPSMEMORY_DATA_DIR": str(tmp_path)}, cwd=tmp_path)
    assert done.returncode == 2
    assert "SLACK_BOT_TOKEN" in done.stderr and "bench.slack" in done.stderr
    assert not (tmp_path / "opsmemory.db").exists()  # nothing was started or created


def test_eval_memory_runs_end_to_end_and_ends_with_one_json_line(tmp_path: Path) -> None:
    """Through the real CLI: ingest with redaction and embedding, recall, score."""
    data = locomo_file(tmp_path)
    done = _opsmemory("eval", "memory", "--locomo", str(data), "--k", "1,5", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["n"] == 2 and result["recall@5"] == 1.0
    assert result["embedder"].startswith("onnx-minilm") and result["mode"] == "hybrid"


def test_eval_runbooks_runs_end_to_end_and_ends_with_one_json_line(tmp_path: Path) -> None:
    corpus = tmp_path / "runbooks"
    corpus.mkdir()
    (corpus / "disk-full.md").write_text("# Disk full\n\n## Symptoms\n\nDisk usage above 90%.\n")
    (corpus / "cert-expiry.md").write_text("# Certificate expiry\n\n## Symptoms\n\nTLS errors.\n")
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps({"query": "disk usage above 90% on db-1", "expected": "disk-full"}) + "\n"
    )
    done = _opsmemory(
        "eval",
        "runbooks",
        "--corpus",
        str(corpus),
        "--queries",
        str(queries),
        "--json",
        env={"OPSMEMORY_DATA_DIR": str(tmp_path / "data")},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["n"] == 1 and result["hit@1"] == 1.0
    assert result["provenance"]["embedder_digest"].startswith("8199be6f")
