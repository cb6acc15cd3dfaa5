"""member_joined_channel / member_left_channel: keep the cached channel membership current, so
a guest who joins an incident channel sees its memory at once and one who leaves stops seeing it
without waiting for the cache to expire."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp

from bot.listeners import bind

if TYPE_CHECKING:
    from bot.deps import Deps


def register(app: AsyncApp, deps: Deps) -> None:
    app.event("member_joined_channel")(bind(on_joined, deps=deps))
    app.event("member_left_channel")(bind(on_left, deps=deps))


async def on_joined(event: dict[str, Any], context: Any, *, deps: Deps) -> None:
    user, channel = event.get("user"), event.get("channel")
    if user and channel:
        deps.memberships.joined(context.team_id, str(user), str(channel))


async def on_left(event: dict[str, Any], context: Any, *, deps: Deps) -> None:
    user, channel = event.get("user"), event.get("channel")
    if user and channel:
        deps.memberships.left(context.team_id, str(user), str(channel))
