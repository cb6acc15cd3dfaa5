"""The Slack half of `opsmemory doctor`: tries the tokens and the configured ids against the Web
API (OPSMEMORY_SLACK_API_URL, so the stand-in answers in tests) and says which setting to fix."""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.settings import Settings, SettingsError
from bot.slack_failures import slack_error
from memory.errors import OpsmemoryError

#: auth.test errors that mean the token itself is wrong, not Slack or the network.
_REFUSED = frozenset(
    {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive"}
)
_MAX_APPROVERS_CHECKED = 50  # one users.info each; far above any real approver list


class SlackUnreachable(OpsmemoryError):
    def __init__(self, base: str, what: str) -> None:
        super().__init__(
            f"Could not reach the Slack API at {base} ({what}); check the network, a proxy, "
            "or OPSMEMORY_SLACK_API_URL."
        )


@dataclass(frozen=True)
class BotIdentity:
    team_id: str
    user_id: str
    scopes: frozenset[str] | None  # None when the API sent no x-oauth-scopes header


def refused_token(exc: SlackApiError) -> str | None:
    """The settings line for a call Slack refused because of the token (None: another error)."""
    error = slack_error(exc, "unknown")
    if error not in _REFUSED:
        return None
    if str(exc.response.api_url).endswith("apps.connections.open"):
        return (
            f"SLACK_APP_TOKEN was refused by Slack ({error}); create an app-level token with "
            "connections:write under Basic Information > App-Level Tokens, and check that "
            "Socket Mode is on."
        )
    return (
        f"SLACK_BOT_TOKEN was refused by Slack ({error}); copy the Bot User OAuth Token (xoxb-) "
        "again from your app's OAuth & Permissions page, reinstalling the app if it was revoked."
    )


def _client(settings: Settings, token: str) -> AsyncWebClient:
    return AsyncWebClient(token=token, base_url=settings.slack_api_base, timeout=10)


def _bot_client(settings: Settings) -> AsyncWebClient:
    assert settings.slack_bot_token is not None  # callers check first
    return _client(settings, settings.slack_bot_token.get_secret_value())


async def bot_identity(settings: Settings) -> BotIdentity:
    """auth.test with SLACK_BOT_TOKEN; SettingsError when Slack refuses the token."""
    try:
        resp = await _bot_client(settings).auth_test()
    except SlackApiError as exc:
        refused = refused_token(exc)
        if refused is not None:
            raise SettingsError([refused]) from None
        error = slack_error(exc, "unknown")
        raise OpsmemoryError(
            f"auth.test failed ({error}); try again, or see status.slack.com."
        ) from None
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise SlackUnreachable(settings.slack_api_base, type(exc).__name__) from None
    header = resp.headers.get("x-oauth-scopes")
    scopes = None if header is None else frozenset(s.strip() for s in header.split(",") if s)
    return BotIdentity(str(resp.get("team_id")), str(resp.get("user_id")), scopes)


async def check_app_token(settings: Settings) -> None:
    """apps.connections.open with SLACK_APP_TOKEN (it only hands out a URL; nothing connects)."""
    assert settings.slack_app_token is not None
    token = settings.slack_app_token.get_secret_value()
    try:
        await _client(settings, token).apps_connections_open(app_token=token)
    except SlackApiError as exc:
        refused = refused_token(exc)
        if refused is None:
            raise
        raise SettingsError([refused]) from None
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise SlackUnreachable(settings.slack_api_base, type(exc).__name__) from None


async def check_approvers(settings: Settings) -> None:
    """Every OPSMEMORY_APPROVERS id is a person in the workspace (users.info)."""
    client = _bot_client(settings)
    unknown, bots = [], []
    for user_id in sorted(settings.approver_ids)[:_MAX_APPROVERS_CHECKED]:
        try:
            user = (await client.users_info(user=user_id))["user"]
        except SlackApiError as exc:
            if slack_error(exc) != "user_not_found":
                raise
            unknown.append(user_id)
            continue
        if user.get("deleted") or user.get("is_bot"):
            bots.append(user_id)
    problems = []
    if unknown:
        problems.append(
            f"OPSMEMORY_APPROVERS lists {', '.join(unknown)}, not found in this workspace; "
            "copy each approver's member ID from their Slack profile (click ⋮, Copy member ID)."
        )
    if bots:
        problems.append(
            f"OPSMEMORY_APPROVERS lists {', '.join(bots)}, a deactivated account or a bot that "
            "cannot click Approve; list people instead."
        )
    if problems:
        raise SettingsError(problems)


async def check_digest_channel(settings: Settings) -> None:
    """OPSMEMORY_DIGEST_CHANNEL exists and the bot is in it (chat.postMessage needs that)."""
    if not settings.digest_channel:
        return
    channel = settings.digest_channel
    try:
        info = (await _bot_client(settings).conversations_info(channel=channel))["channel"]
    except SlackApiError as exc:
        if slack_error(exc) != "channel_not_found":
            raise
        raise SettingsError(
            [
                f"OPSMEMORY_DIGEST_CHANNEL is {channel}, which the bot cannot see; check the "
                "id, and invite the bot first if the channel is private (/invite @opsmemory)."
            ]
        ) from None
    if not info.get("is_member"):
        raise SettingsError(
            [
                f"OPSMEMORY_DIGEST_CHANNEL is {channel}, but the bot is not a member, so the "
                "digest cannot be posted; run /invite @opsmemory in that channel."
            ]
        )
