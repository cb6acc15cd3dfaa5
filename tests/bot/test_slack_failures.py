"""Slack's error code read from a failed call, whatever the answer's body was."""

from __future__ import annotations

from slack_sdk.errors import SlackApiError
from slack_sdk.web.slack_response import SlackResponse

from bot.slack_failures import slack_error


def _failed(data: object, status: int) -> SlackApiError:
    resp = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="https://slack.com/api/chat.postMessage",
        req_args={},
        data=data,  # type: ignore[arg-type]
        headers={},
        status_code=status,
    )
    return SlackApiError("failed", resp)


def test_slacks_json_error_code_is_read() -> None:
    assert slack_error(_failed({"ok": False, "error": "channel_not_found"}, 200)) == (
        "channel_not_found"
    )
    assert slack_error(_failed({"ok": False}, 200)) == "slack_error"


def test_an_answer_that_is_not_slacks_json_names_its_http_status() -> None:
    """A proxy's 502 page or a lost reply: `exc.response.get` would raise on it."""
    assert slack_error(_failed("upstream error", 502)) == "http_502"
