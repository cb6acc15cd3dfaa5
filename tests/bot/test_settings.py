"""Settings: defaults, env names, and one clear line per bad value (issue 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, env_name, load_settings


def test_defaults_run_without_any_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent)  # no .env here
    settings = load_settings()
    assert settings.port == 3000
    assert settings.embedder == "onnx-minilm"
    assert settings.ollama_host is None
    assert settings.slack_api_base == "https://slack.com/api/"
    assert settings.database_path == Path("data") / "opsmemory.db"


def test_slack_and_opsmemory_names_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1-2-abc")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-A-1-abc")
    monkeypatch.setenv("OPSMEMORY_PORT", "8080")
    monkeypatch.setenv("OPSMEMORY_SLACK_API_URL", "http://127.0.0.1:9999/api")
    monkeypatch.setenv("OPSMEMORY_APPROVERS", "U1, U2,,")
    settings = load_settings()
    assert settings.slack_bot_token is not None
    assert settings.slack_bot_token.get_secret_value() == "xoxb-1-2-abc"
    assert settings.port == 8080
    assert settings.slack_api_base == "http://127.0.0.1:9999/api/"
    assert settings.approver_ids == {"U1", "U2"}


def test_tokens_never_show_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1-2-verysecret")
    assert "verysecret" not in repr(load_settings())


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("SLACK_APP_TOKEN", "xoxb-wrong-kind", "SLACK_APP_TOKEN must start with xapp-"),
        ("SLACK_BOT_TOKEN", "xapp-wrong-kind", "SLACK_BOT_TOKEN must start with xoxb-"),
        ("OPSMEMORY_PORT", "eighty", "OPSMEMORY_PORT is invalid"),
        ("OPSMEMORY_PORT", "70000", "OPSMEMORY_PORT is invalid"),
        ("OPSMEMORY_EMBEDDER", "bert", "OPSMEMORY_EMBEDDER is invalid"),
        ("OPSMEMORY_OLLAMA_HOST", "localhost:11434", "OPSMEMORY_OLLAMA_HOST must be an http"),
        ("OPSMEMORY_INCIDENT_CHANNEL_PATTERN", "inc-(", "must be a valid regular expression"),
        ("OPSMEMORY_DIGEST_TIME", "9am", "OPSMEMORY_DIGEST_TIME must be a 24-hour time"),
        ("OPSMEMORY_NOTE_MAX_CHARS", "-5", "OPSMEMORY_NOTE_MAX_CHARS is invalid"),
    ],
)
def test_bad_value_names_the_variable_and_the_fix(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert any(expected in problem for problem in caught.value.problems), caught.value.problems


def test_every_problem_is_reported_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_APP_TOKEN", "nope")
    monkeypatch.setenv("OPSMEMORY_PORT", "nope")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert len(caught.value.problems) == 2


def test_empty_values_mean_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """A copied .env.example has empty values; they must not break start-up."""
    monkeypatch.setenv("OPSMEMORY_RETENTION_DAYS_USER", "")
    monkeypatch.setenv("OPSMEMORY_OLLAMA_HOST", "")
    settings = load_settings()
    assert settings.retention_days_user is None
    assert settings.ollama_host is None


def test_env_name_matches_field() -> None:
    assert env_name("slack_bot_token") == "SLACK_BOT_TOKEN"
    assert env_name("data_dir") == "OPSMEMORY_DATA_DIR"
    assert set(Settings.model_fields)  # sanity: the drift test below relies on this list
