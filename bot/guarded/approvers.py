"""Who may approve an action: its listed Slack user ids plus the members of its user groups
(`usergroups.users.list`), or OPSMEMORY_APPROVERS when the action lists nobody."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bot.slack_failures import FAILED

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.guarded.catalogue import Action


class ApproverDirectory:
    """Resolves an action's approvers; group members are cached for `ttl_s` (never at
    execution, where `fresh=True` asks Slack again)."""

    def __init__(
        self, client: AsyncWebClient | None, default_users: frozenset[str], *, ttl_s: float = 60
    ) -> None:
        self._client, self._default, self._ttl = client, default_users, ttl_s
        self._groups: dict[str, tuple[float, frozenset[str]]] = {}

    async def allowed(self, action: Action, *, fresh: bool = False) -> frozenset[str]:
        if action.approvers is None:
            return self._default
        users = set(action.approvers.users)
        for group in action.approvers.groups:
            users |= await self._members(group, fresh=fresh)
        return frozenset(users)

    async def _members(self, group: str, *, fresh: bool) -> frozenset[str]:
        cached = self._groups.get(group)
        if cached and not fresh and time.monotonic() - cached[0] < self._ttl:
            return cached[1]
        if self._client is None:
            return frozenset()
        try:
            resp = await self._client.usergroups_users_list(usergroup=group)
            members = frozenset(str(u) for u in resp.get("users") or [])
        except FAILED:
            # A group Slack does not know, or cannot be asked about now, approves nothing:
            # fail closed, so a re-check at execution refuses rather than leaving the request
            # approved for the next start to run.
            return frozenset()
        self._groups[group] = (time.monotonic(), members)
        return members
