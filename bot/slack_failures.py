"""What a Slack Web API call can fail with, named once: Slack answered with an error, or it could
not be reached (a connection error or a timeout). Callers that must go on without the call (a
notice, a retry later) catch these and nothing broader."""

from __future__ import annotations

import aiohttp
from slack_sdk.errors import SlackApiError

from memory.errors import OpsmemoryError

UNREACHABLE: tuple[type[Exception], ...] = (aiohttp.ClientError, TimeoutError)
FAILED: tuple[type[Exception], ...] = (SlackApiError, *UNREACHABLE)
#: A scheduled job's step that may fail on its own without stopping the rest.
STEP_FAILED: tuple[type[Exception], ...] = (OpsmemoryError, *UNREACHABLE)


def slack_error(exc: SlackApiError, default: str = "slack_error") -> str:
    """Slack's error code in `exc` ("channel_not_found"); for an answer that is not Slack's
    JSON (an HTTP 5xx from a proxy, a lost reply), "http_<status>". `exc.response.get` raises
    on such an answer, which turned a Slack outage into a crashed listener."""
    data = exc.response.data
    if isinstance(data, dict):
        return str(data.get("error") or default)
    status = getattr(exc.response, "status_code", None)
    return f"http_{status}" if status else default
