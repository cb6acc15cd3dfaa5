"""App Home: the user's memory inspector (profile facts, recent notes, last episodes), each item
with Delete, plus "Export my memory" and "Forget everything"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import render
from bot.directory import requester_for
from bot.listeners import bind

if TYPE_CHECKING:
    from bot.deps import Deps


async def publish_home(deps: Deps, client: AsyncWebClient, *, team_id: str, user_id: str) -> None:
    """Render and publish the Home tab for one user (what they, and only they, may see).

    Bounded reads only (counts and the latest items); "Export my memory" sends everything.
    """
    requester = await requester_for(
        deps.users, deps.memberships, team_id=team_id, user_id=user_id, channel_id=None
    )
    facts = await deps.profiles.facts(requester.subject_id)
    summary = await deps.controls.summary(requester.subject_id)
    episodes = await deps.episodes.recent(requester, limit=5)
    view = render.home(
        counts=summary.counts, facts=facts, notes=summary.latest_notes, episodes=episodes
    )
    await client.views_publish(user_id=user_id, view=view)


def register(app: AsyncApp, deps: Deps) -> None:
    app.event("app_home_opened")(bind(on_home, deps=deps))


async def on_home(
    event: dict[str, Any], context: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    if event.get("tab") != "home":
        return
    await publish_home(deps, client, team_id=context.team_id, user_id=event["user"])
