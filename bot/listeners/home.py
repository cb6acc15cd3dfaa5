"""App Home: the user's memory inspector (profile facts, recent notes, last episodes), each item
with Delete, plus "Export my memory" and "Forget everything"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot import blocks
from bot.directory import requester_for

if TYPE_CHECKING:
    from bot.app import Deps


async def publish_home(deps: Deps, client: AsyncWebClient, *, team_id: str, user_id: str) -> None:
    """Render and publish the Home tab for one user (what they, and only they, may see)."""
    requester = await requester_for(deps.users, team_id=team_id, user_id=user_id, channel_id=None)
    facts = await deps.profiles.facts(requester.subject_id)
    export = await deps.controls.export(requester.subject_id)
    notes = [_Item(str(n.get("id")), str(n.get("text", ""))) for n in export.get("notes", [])][-10:]
    episodes = await deps.episodes.recent(requester, limit=5)
    view = blocks.home(facts=facts, notes=notes, episodes=episodes)
    await client.views_publish(user_id=user_id, view=view)


class _Item:
    def __init__(self, item_id: str, text: str) -> None:
        self.id, self.text = item_id, text


def register(app: AsyncApp, deps: Deps) -> None:
    @app.event("app_home_opened")
    async def on_home(event: dict[str, Any], context: Any, client: AsyncWebClient) -> None:
        if event.get("tab") != "home":
            return
        await publish_home(deps, client, team_id=context.team_id, user_id=event["user"])
