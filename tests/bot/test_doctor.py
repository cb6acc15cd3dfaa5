"""`opsmemory doctor` tries the settings against Slack (issue 18 item 5): the token through
auth.test, its scopes against manifest.yml, the approvers and the digest channel, and the runbooks
directory; each broken setting is one FAIL line naming the variable and the fix, and exit 2."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.cli.doctor import (
    Check,
    check_approvals,
    check_runbooks_dir,
    check_slack_token,
    exit_code,
    run_check,
)
from bot.manifest import BOT_SCOPES
from bot.settings import Settings
from bot.standin.server import FakeSlack
from tests.e2e.workspace import BOSS, GENERAL, seed

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    seed(fake)
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def settings(make_settings: Callable[..., Settings], slack: FakeSlack) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "slack_bot_token": slack.workspace.bot_token,
            "slack_signing_secret": "s3cret",
            "slack_api_url": slack.api_url,
        }
        return make_settings(**{**values, **overrides})

    return make


def test_bot_scopes_match_manifest_yml() -> None:
    manifest = yaml.safe_load((ROOT / "manifest.yml").read_text())
    assert tuple(manifest["oauth_config"]["scopes"]["bot"]) == BOT_SCOPES


async def test_a_good_token_with_every_scope_passes(
    settings: Callable[..., Settings], slack: FakeSlack
) -> None:
    check = await run_check("slack", check_slack_token, settings())
    assert check.status == "ok", check.detail
    assert f"all {len(BOT_SCOPES)} manifest scopes granted" in check.detail
    assert "T0STANDIN" in check.detail
    assert [c.method for c in slack.calls] == ["auth.test"]


async def test_missing_scopes_are_named_with_where_to_add_them(
    settings: Callable[..., Settings], slack: FakeSlack
) -> None:
    slack.workspace.bot_scopes = tuple(s for s in BOT_SCOPES if s not in {"im:write", "commands"})
    check = await run_check("slack", check_slack_token, settings())
    assert check.status == "FAIL"
    assert check.detail.startswith("the token lacks commands, im:write (manifest.yml asks")
    assert "OAuth & Permissions > Bot Token Scopes, reinstall the app" in check.detail
    assert exit_code([check]) == 1  # the fix is in Slack, not in a setting


async def test_a_refused_bot_token_is_a_bad_setting(settings: Callable[..., Settings]) -> None:
    check = await run_check("slack", check_slack_token, settings(slack_bot_token="xoxb-wrong"))
    assert check.status == "FAIL" and check.bad_setting
    assert check.detail.startswith("SLACK_BOT_TOKEN was refused by Slack (invalid_auth)")
    assert exit_code([check]) == 2


async def test_a_refused_app_token_is_named(settings: Callable[..., Settings]) -> None:
    check = await run_check("slack", check_slack_token, settings(slack_app_token="xapp-wrong"))
    assert check.bad_setting and check.detail.startswith("SLACK_APP_TOKEN was refused by Slack")


async def test_an_unreachable_api_says_which_url(settings: Callable[..., Settings]) -> None:
    url = "http://127.0.0.1:9/api/"  # port 9 (discard) is closed on test machines
    check = await run_check("slack", check_slack_token, settings(slack_api_url=url))
    assert check.status == "FAIL" and not check.bad_setting
    assert check.detail.startswith(f"Could not reach the Slack API at {url}")


async def test_approvers_and_digest_channel_that_exist_pass(
    settings: Callable[..., Settings],
) -> None:
    check = await run_check(
        "approvals", check_approvals, settings(approvers=BOSS, digest_channel=GENERAL)
    )
    assert check == Check(
        "approvals",
        "ok",
        f"no action catalogue (OPSMEMORY_ACTIONS_FILE not set); digest to {GENERAL} at 09:00 UTC",
    )


async def test_unknown_approver_and_digest_channel_are_both_reported(
    settings: Callable[..., Settings],
) -> None:
    check = await run_check(
        "approvals",
        check_approvals,
        settings(approvers=f"{BOSS},U0NOBODY", digest_channel="C0NOPE"),
    )
    assert check.status == "FAIL" and check.bad_setting
    assert "OPSMEMORY_APPROVERS lists U0NOBODY, not found in this workspace" in check.detail
    assert "OPSMEMORY_DIGEST_CHANNEL is C0NOPE, which the bot cannot see" in check.detail


async def test_a_bot_approver_and_a_channel_without_the_bot_are_refused(
    settings: Callable[..., Settings], slack: FakeSlack
) -> None:
    slack.workspace.add_user("U0WORKFLOW", "deploy-bot", is_bot=True)
    slack.workspace.add_channel("C0QUIET", "quiet", members=[BOSS], bot_member=False)
    check = await run_check(
        "approvals", check_approvals, settings(approvers="U0WORKFLOW", digest_channel="C0QUIET")
    )
    assert "U0WORKFLOW, a deactivated account or a bot" in check.detail
    assert "the bot is not a member" in check.detail and "/invite @opsmemory" in check.detail


CATALOGUE = """
actions:
  restart:
    title: restart
    description: Restart a service
    risk: low
    parameters:
      service: {type: string, allowed: [checkout]}
    executor: {type: webhook, url: "http://127.0.0.1:9/hook"}
"""


async def test_an_action_nobody_can_approve_is_a_warning_naming_it(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    (tmp_path / "actions.yml").write_text(CATALOGUE)
    check = await run_check(
        "approvals", check_approvals, settings(actions_file=tmp_path / "actions.yml")
    )
    assert check.status == "warn" and "nobody can approve restart" in check.detail
    fallback = await run_check(
        "approvals",
        check_approvals,
        settings(actions_file=tmp_path / "actions.yml", approvers=BOSS),
    )
    assert fallback.status == "ok"
    assert "restart use the 1 approver in OPSMEMORY_APPROVERS" in fallback.detail


async def test_a_broken_catalogue_fails_doctor_naming_the_file(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    (tmp_path / "actions.yml").write_text(CATALOGUE.replace("risk: low", "risk: spicy"))
    check = await run_check(
        "approvals", check_approvals, settings(actions_file=tmp_path / "actions.yml")
    )
    assert check.status == "FAIL" and check.bad_setting
    assert "OPSMEMORY_ACTIONS_FILE" in check.detail


async def test_a_missing_runbooks_dir_fails_naming_the_variable(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    check = await run_check("runbooks", check_runbooks_dir, settings(runbooks_dir=tmp_path / "x"))
    assert check.status == "FAIL" and check.bad_setting
    assert check.detail.startswith("OPSMEMORY_RUNBOOKS_DIR is ")


async def test_an_allowed_empty_runbooks_dir_is_a_warning(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    check = await run_check(
        "runbooks", check_runbooks_dir, settings(runbooks_dir=tmp_path, runbooks_allow_empty=True)
    )
    assert check.status == "warn" and "holds no runbooks" in check.detail


async def _doctor(env: dict[str, str], cwd: Path, command: str = "doctor") -> tuple[int, str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "OPSMEMORY_"))}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        command,
        env={**clean, **env},
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_doctor_against_the_stand_in_exits_2_on_a_bad_runbooks_dir(
    slack: FakeSlack, tmp_path: Path
) -> None:
    """The whole command, as an operator runs it, with the stand-in answering auth.test."""
    env = {
        "SLACK_BOT_TOKEN": slack.workspace.bot_token,
        "SLACK_SIGNING_SECRET": "s3cret",
        "OPSMEMORY_SLACK_API_URL": slack.api_url,
        "OPSMEMORY_DATA_DIR": str(tmp_path / "data"),
        "OPSMEMORY_RUNBOOKS_DIR": str(tmp_path / "runbok"),
        "OPSMEMORY_APPROVERS": BOSS,
    }
    code, out, err = await _doctor(env, tmp_path)
    lines = {line.split()[1]: line for line in out.splitlines()}
    assert code == 2, out + err
    assert lines["runbooks"].startswith("FAIL runbooks   OPSMEMORY_RUNBOOKS_DIR is ")
    assert lines["slack"].startswith("ok") and lines["approvals"].startswith("ok")
    assert slack.calls_to("auth.test") and slack.calls_to("users.info")


async def test_doctor_refuses_approver_names_before_checking_anything(tmp_path: Path) -> None:
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path), "OPSMEMORY_APPROVERS": "alice,bob"}
    code, out, err = await _doctor(env, tmp_path)
    assert (code, out) == (2, "")
    assert err.startswith("opsmemory: OPSMEMORY_APPROVERS must list Slack user ids")
    assert len(err.splitlines()) == 1


async def test_run_with_a_refused_app_token_exits_2_instead_of_retrying_forever(
    slack: FakeSlack, tmp_path: Path
) -> None:
    """Socket Mode's client retries a refused token every 10 s and never exits (issue 18)."""
    env = {
        "SLACK_BOT_TOKEN": slack.workspace.bot_token,
        "SLACK_APP_TOKEN": "xapp-1-refused",
        "OPSMEMORY_SLACK_API_URL": slack.api_url,
        "OPSMEMORY_DATA_DIR": str(tmp_path / "data"),
    }
    code, _, err = await _doctor(env, tmp_path, command="run")
    assert code == 2, err
    assert "SLACK_APP_TOKEN was refused by Slack" in err
