"""Settings that fail loudly (issue 18 item 5): Slack ids, not names, and a runbooks directory
that exists and holds runbooks; each refusal names the variable and says how to fix it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.preflight import BUILT_IN_RUNBOOKS, check_runbooks, check_start
from bot.settings import Settings, SettingsError, load_settings


def _problems(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> list[str]:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings(_env_file=None)
    return caught.value.problems


@pytest.mark.parametrize("value", ["alice,bob", "U0BOSS, alice", "@alice", "u0boss", "T0TEAM"])
def test_approvers_given_as_names_are_refused_with_how_to_find_an_id(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    [problem] = _problems(monkeypatch, "OPSMEMORY_APPROVERS", value)
    assert problem.startswith("OPSMEMORY_APPROVERS must list Slack user ids like U0123ABCD")
    assert "Copy member ID" in problem


def test_the_refused_approver_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    [problem] = _problems(monkeypatch, "OPSMEMORY_APPROVERS", "U0BOSS,bob")
    assert "'bob' is not one" in problem


@pytest.mark.parametrize("value", ["U0BOSS", "U0BOSS,W0GRID1", " U0A1 , U0B2 ,"])
def test_member_ids_are_accepted_as_approvers(
    make_settings: Callable[..., Settings], value: str
) -> None:
    ids = make_settings(approvers=value).approver_ids
    assert ids and all(i[0] in "UW" for i in ids)


@pytest.mark.parametrize("value", ["#general", "general", "c0general", "U0BOSS", "#C0GENERAL"])
def test_digest_channel_given_as_a_name_is_refused_with_where_the_id_is(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    [problem] = _problems(monkeypatch, "OPSMEMORY_DIGEST_CHANNEL", value)
    assert problem.startswith("OPSMEMORY_DIGEST_CHANNEL must be a channel id like C0123ABCD")
    assert "Channel ID is at the bottom of the About tab" in problem


@pytest.mark.parametrize("value", ["C0GENERAL", "G0PRIV43", " C024BE91L "])
def test_public_and_private_channel_ids_are_accepted_for_the_digest(
    make_settings: Callable[..., Settings], value: str
) -> None:
    assert make_settings(digest_channel=value).digest_channel == value.strip()


def test_a_long_bad_value_is_cut_short_in_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    [problem] = _problems(monkeypatch, "OPSMEMORY_DIGEST_CHANNEL", "#" + "x" * 500)
    assert "x" * 41 not in problem and "…" in problem


async def test_a_missing_runbooks_dir_is_refused_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        await check_runbooks(tmp_path / "runbok", allow_empty=False)
    [problem] = caught.value.problems
    assert problem.startswith(f"OPSMEMORY_RUNBOOKS_DIR is {tmp_path / 'runbok'}, which does not")
    assert "unset it to use the runbooks that ship with opsmemory" in problem


async def test_a_file_instead_of_a_runbooks_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "disk-full.md").write_text("# Disk full\n")
    with pytest.raises(SettingsError) as caught:
        await check_runbooks(tmp_path / "disk-full.md", allow_empty=True)
    assert "which is a file" in caught.value.problems[0]


async def test_an_empty_runbooks_dir_is_refused_unless_allowed(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a runbook")
    with pytest.raises(SettingsError) as caught:
        await check_runbooks(tmp_path, allow_empty=False)
    assert "holds no runbooks (.md files)" in caught.value.problems[0]
    assert "OPSMEMORY_RUNBOOKS_ALLOW_EMPTY=true" in caught.value.problems[0]
    assert (await check_runbooks(tmp_path, allow_empty=True)).files == {}


async def test_a_dir_of_only_unreadable_runbooks_counts_as_empty(tmp_path: Path) -> None:
    (tmp_path / "Bad Name!.md").write_text("# odd\n")
    (tmp_path / "latin1.md").write_bytes(b"# caf\xe9\n")
    with pytest.raises(SettingsError) as caught:
        await check_runbooks(tmp_path, allow_empty=False)
    assert "no readable runbooks (2 .md files skipped" in caught.value.problems[0]


async def test_a_cli_path_is_named_as_the_option_not_the_variable(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        await check_runbooks(tmp_path / "nope", allow_empty=False, variable="--corpus")
    assert caught.value.problems[0].startswith("--corpus is ")
    assert "leave it out" in caught.value.problems[0]


async def test_start_accepts_the_built_in_runbooks_when_the_dir_is_unset(
    make_settings: Callable[..., Settings],
) -> None:
    await check_start(make_settings())  # no error
    assert any(BUILT_IN_RUNBOOKS.glob("*.md"))


async def test_start_refuses_an_empty_runbooks_dir(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    (tmp_path / "rb").mkdir()
    with pytest.raises(SettingsError):
        await check_start(make_settings(runbooks_dir=tmp_path / "rb"))
    await check_start(make_settings(runbooks_dir=tmp_path / "rb", runbooks_allow_empty=True))
