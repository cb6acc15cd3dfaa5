"""The `opsmemory` command as an operator uses it: help everywhere, redact, doctor, bad settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import build_parser
from memory.embedding.embedder import Embedder
from memory.notes.notes import Notes
from memory.redaction.redactor import Redactor
from memory.store.db import Database
from tests.evals.test_memory import locomo_file
from tests.memory.contexts import ALICE, ctx

COMMANDS = [
    ["run"],
    ["sandbox"],
    ["index"],
    ["eval"],
    ["eval", "runbooks"],
    ["eval", "memory"],
    ["redact"],
    ["memory"],
    ["memory", "export"],
    ["memory", "forget"],
    ["doctor"],
    ["audit"],
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


def test_run_with_half_the_slack_credentials_exits_2_with_what_is_missing(tmp_path: Path) -> None:
    """A signing secret without a bot token is a half-done deploy, not a newcomer: no sandbox."""
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path), "SLACK_SIGNING_SECRET": "s3cret"}
    done = _opsmemory("run", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert "SLACK_BOT_TOKEN" in done.stderr and "opsmemory sandbox" in done.stderr
    assert not (tmp_path / "opsmemory.db").exists()  # nothing was started or created


def test_sandbox_refuses_the_real_bots_data_dir(tmp_path: Path) -> None:
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path / "data")}
    done = _opsmemory("sandbox", "--data-dir", str(tmp_path / "data"), env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert "overlaps OPSMEMORY_DATA_DIR" in done.stderr
    assert not (tmp_path / "data").exists()


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


def test_index_with_a_missing_runbooks_dir_exits_2_naming_the_variable(tmp_path: Path) -> None:
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path), "OPSMEMORY_RUNBOOKS_DIR": str(tmp_path / "rb")}
    done = _opsmemory("index", env=env, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"opsmemory: OPSMEMORY_RUNBOOKS_DIR is {tmp_path / 'rb'}")
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "opsmemory.db").exists()  # refused before anything was created


def test_index_of_an_empty_corpus_exits_2_unless_empty_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "rb").mkdir()
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path / "data")}
    done = _opsmemory("index", "--corpus", str(tmp_path / "rb"), env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert "--corpus is" in done.stderr and "holds no runbooks" in done.stderr
    allowed = {**env, "OPSMEMORY_RUNBOOKS_ALLOW_EMPTY": "true"}
    done = _opsmemory("index", "--corpus", str(tmp_path / "rb"), env=allowed, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runbook_count"] == 0


def test_run_with_a_runbooks_dir_typo_exits_2_before_starting(tmp_path: Path) -> None:
    env = {
        "OPSMEMORY_DATA_DIR": str(tmp_path),
        "OPSMEMORY_RUNBOOKS_DIR": str(tmp_path / "runbok"),
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "s",
    }
    done = _opsmemory("run", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("opsmemory: OPSMEMORY_RUNBOOKS_DIR is ")
    assert not (tmp_path / "opsmemory.db").exists()


@pytest.mark.parametrize(
    ("name", "value"),
    [("OPSMEMORY_APPROVERS", "alice,bob"), ("OPSMEMORY_DIGEST_CHANNEL", "#general")],
)
def test_run_with_names_for_ids_exits_2_naming_the_variable(
    tmp_path: Path, name: str, value: str
) -> None:
    done = _opsmemory("run", env={"OPSMEMORY_DATA_DIR": str(tmp_path), name: value}, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"opsmemory: {name} must be") or done.stderr.startswith(
        f"opsmemory: {name} must list"
    )


@pytest.fixture
async def alices_note(db: Database, redactor: Redactor, embedder: Embedder) -> str:
    """One note by Alice in tmp_path/opsmemory.db (the `db` fixture's file); its item id."""
    note = await Notes(db, redactor, embedder).save(ctx("CINC1", author=ALICE), "rolled back")
    return f"note:{note.id}"


def _memory(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _opsmemory("memory", *args, env={"OPSMEMORY_DATA_DIR": str(tmp_path)}, cwd=tmp_path)


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1 and done.stdout == "", done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("opsmemory: ")
    return line


def test_export_of_an_unknown_subject_is_an_error(tmp_path: Path, alices_note: str) -> None:
    line = _one_error_line(_memory(tmp_path, "export", "--subject", "T1/U0NOBODY"))
    assert "Nothing is stored about T1/U0NOBODY; check the subject id" in line


def test_export_of_a_known_subject_prints_their_items(tmp_path: Path, alices_note: str) -> None:
    done = _memory(tmp_path, "export", "--subject", ALICE.subject_id)
    assert done.returncode == 0, done.stderr
    assert [n["id"] for n in json.loads(done.stdout)["notes"]] == [alices_note]


@pytest.mark.parametrize("mode", [[], ["--dry-run"], ["--yes"]], ids=["default", "dry", "yes"])
def test_forgetting_an_item_that_does_not_exist_is_an_error_in_every_mode(
    tmp_path: Path, alices_note: str, mode: list[str]
) -> None:
    for item in ("foo", "note:999999"):
        line = _one_error_line(
            _memory(tmp_path, "forget", "--subject", ALICE.subject_id, "--item", item, *mode)
        )
        assert f"{ALICE.subject_id} has no item {item}; item ids look like note:12" in line


def test_forgetting_someone_elses_item_is_an_error(tmp_path: Path, alices_note: str) -> None:
    args = ("forget", "--subject", "T1/UBOB", "--item", alices_note, "--dry-run")
    assert "T1/UBOB has no item" in _one_error_line(_memory(tmp_path, *args))


@pytest.mark.parametrize("mode", [[], ["--dry-run"], ["--yes"]], ids=["default", "dry", "yes"])
def test_forgetting_an_unknown_subject_is_an_error_in_every_mode(
    tmp_path: Path, alices_note: str, mode: list[str]
) -> None:
    line = _one_error_line(_memory(tmp_path, "forget", "--subject", "T1/U0NOBODY", *mode))
    assert "Nothing is stored about T1/U0NOBODY to forget" in line


def test_dry_run_of_an_existing_item_exits_0_and_keeps_it(tmp_path: Path, alices_note: str) -> None:
    args = ("forget", "--subject", ALICE.subject_id, "--item", alices_note, "--dry-run")
    done = _memory(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Would forget {alices_note} for {ALICE.subject_id}.\n"
    export = _memory(tmp_path, "export", "--subject", ALICE.subject_id)
    assert len(json.loads(export.stdout)["notes"]) == 1
