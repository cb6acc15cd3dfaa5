"""Who and where, from Slack: users.info → SlackIdentity (guest/external flags),
conversations.info → channel name and privacy, and users.conversations → the channels a person
is a member of (kept current by member_joined_channel / member_left_channel), all cached with a
TTL.

Display names are fetched for showing only; identity is always the durable subject id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from memory.clock import Clock, utc_now
from memory.incidents import Incident, Incidents
from memory.scopes import Requester, Scope, WriteContext
from memory.subjects import Author, SlackIdentity, UserDirectory, UserFacts


@dataclass(frozen=True)
class ChannelInfo:
    id: str
    name: str
    is_private: bool
    is_ext_shared: bool


@dataclass
class HomeTeam:
    """The bot's own team, learned from auth.test at start-up (`learn`); None until then."""

    team_id: str | None = None

    async def learn(self, client: AsyncWebClient) -> str:
        auth = await client.auth_test()
        self.team_id = str(auth["team_id"])
        return self.team_id


def user_directory(
    client: AsyncWebClient, *, home: HomeTeam, ttl_s: int, clock: Clock = utc_now
) -> UserDirectory:
    """A UserDirectory backed by users.info; users whose team is not ours are external.

    Until `home` is learned, the request's own team stands in for it (a user from another
    organisation in a shared channel then looks internal, so start-up learns it first).
    """

    async def fetch(team_id: str, user_id: str) -> UserFacts:
        resp = await client.users_info(user=user_id)
        u = resp["user"]
        user_team = u.get("team_id") or team_id
        enterprise = (u.get("enterprise_user") or {}).get("enterprise_id")
        home_team = home.team_id or team_id
        identity = SlackIdentity(
            team_id=user_team,
            user_id=user_id,
            enterprise_id=enterprise,
            is_guest=bool(u.get("is_restricted") or u.get("is_ultra_restricted")),
            is_external=user_team != home_team and not enterprise,
        )
        profile = u.get("profile") or {}
        return UserFacts(
            identity,
            profile.get("display_name", ""),
            u.get("real_name", ""),
            u.get("tz"),
            bool(u.get("is_bot")),
            bool(u.get("deleted")),
        )

    return UserDirectory(fetch, ttl=timedelta(seconds=ttl_s), clock=clock)


class ChannelDirectory:
    """conversations.info answers per channel, cached (privacy does not flip often)."""

    def __init__(self, client: AsyncWebClient, *, ttl_s: int, clock: Clock = utc_now) -> None:
        self._client, self._ttl, self._clock = client, timedelta(seconds=ttl_s), clock
        self._cache: dict[str, tuple[ChannelInfo, object]] = {}

    async def get(self, channel_id: str) -> ChannelInfo:
        hit = self._cache.get(channel_id)
        now = self._clock()
        if hit is not None and now < hit[1]:  # type: ignore[operator]
            return hit[0]
        resp = await self._client.conversations_info(channel=channel_id)
        c = resp["channel"]
        info = ChannelInfo(
            channel_id, c.get("name", ""), bool(c.get("is_private")), bool(c.get("is_ext_shared"))
        )
        self._cache[channel_id] = (info, now + self._ttl)
        return info


class Memberships:
    """The channels each person is a member of (users.conversations), cached per (team, user).

    Only guests, people from other organisations and App Home / DM readers need it (a full
    member in a channel sees every public channel anyway), so the answer hot path of most
    people never calls Slack for it. Join and leave events update a cached set in place.
    """

    def __init__(
        self, client: AsyncWebClient, *, ttl_s: int, clock: Clock = utc_now, page: int = 200
    ) -> None:
        self._client, self._ttl, self._clock = client, timedelta(seconds=ttl_s), clock
        self._page = page
        self._cache: dict[tuple[str, str], tuple[set[str], datetime]] = {}

    async def channels_of(self, team_id: str, user_id: str) -> frozenset[str]:
        """Every conversation (public or private) the user is in that the bot can see."""
        key = (team_id, user_id)
        hit = self._cache.get(key)
        now = self._clock()
        if hit is not None and now < hit[1]:
            return frozenset(hit[0])
        found: set[str] = set()
        cursor: str | None = None
        while True:
            resp = await self._client.users_conversations(
                user=user_id,
                types="public_channel,private_channel",
                exclude_archived=True,
                limit=self._page,
                cursor=cursor,
            )
            found |= {str(c["id"]) for c in resp.get("channels") or []}
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                break
        self._cache[key] = (found, now + self._ttl)
        return frozenset(found)

    def joined(self, team_id: str, user_id: str, channel_id: str) -> None:
        """member_joined_channel: a cached set gains the channel (an uncached one is fetched
        fresh when next needed)."""
        hit = self._cache.get((team_id, user_id))
        if hit is not None:
            hit[0].add(channel_id)

    def left(self, team_id: str, user_id: str, channel_id: str) -> None:
        """member_left_channel: the channel leaves the cached set at once."""
        hit = self._cache.get((team_id, user_id))
        if hit is not None:
            hit[0].discard(channel_id)


async def requester_for(
    users: UserDirectory,
    memberships: Memberships,
    *,
    team_id: str,
    user_id: str,
    channel_id: str | None,
) -> Requester:
    """Who is asking and where the answer is shown (channel None or a DM: App Home or DM).

    Visibility mirrors Slack: a full member of the team reads every public channel; guests and
    people from other organisations read only channels they are members of; private channels
    show outside themselves only where no one else reads (App Home, DM) to their members.
    """
    facts = await users.get(team_id, user_id)
    ident = facts.identity
    where = None if channel_id is None or channel_id.startswith("D") else channel_id
    limited = ident.is_guest or ident.is_external
    members = frozenset[str]()
    if limited or where is None:
        members = await memberships.channels_of(team_id, user_id)
    build = Requester.limited if limited else Requester.full_member
    return build(
        facts.subject_id,
        team_id,
        enterprise_id=ident.enterprise_id,
        channel_id=where,
        member_channel_ids=members,
        name=shown_name(facts),
    )


#: A person's mention as Slack sends it in message text: `<@U0DEV>` or `<@U0DEV|dev>`.
_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^>|]*))?>")


def shown_name(facts: UserFacts) -> str:
    """The name Slack shows for a person: their display name, else their real name."""
    return " ".join((facts.display_name or facts.real_name).split())


async def with_names(text: str, users: UserDirectory, *, team_id: str) -> str:
    """`text` with people's mentions written as their names (`<@U0DEV>` becomes `@dev`), as
    Slack shows them: memory can then read who owns what ("TODO @dev: raise the limit"), and
    what it later re-emits pings nobody. A name that cannot be looked up keeps the one Slack
    sent with the mention, else the user id."""
    ids = {m.group(1) for m in _USER_MENTION.finditer(text)}
    if not ids:
        return text
    names: dict[str, str] = {}
    for user_id in ids:
        try:
            facts = await users.get(team_id, user_id)
        except SlackApiError:
            continue
        if name := shown_name(facts):
            names[user_id] = name

    def named(m: re.Match[str]) -> str:
        return "@" + (names.get(m.group(1)) or (m.group(2) or "").strip() or m.group(1))

    return _USER_MENTION.sub(named, text)


async def write_context(
    users: UserDirectory,
    channels: ChannelDirectory,
    *,
    team_id: str,
    user_id: str,
    channel_id: str | None,
    scope: Scope,
    source_ts: str | None = None,
) -> WriteContext:
    """The one place a write's author and place are built; guests and externals are refused."""
    facts = await users.get(team_id, user_id)
    private = False
    if channel_id and not channel_id.startswith("D"):
        private = (await channels.get(channel_id)).is_private
    else:
        channel_id = None
    return WriteContext(
        author=facts.author(),
        team_id=team_id,
        channel_id=channel_id,
        channel_is_private=private,
        scope=scope,
        source_ts=source_ts,
    )


async def app_write_context(
    channels: ChannelDirectory,
    *,
    team_id: str,
    bot_id: str,
    name: str,
    channel_id: str,
    source_ts: str,
) -> WriteContext:
    """The write context of another app's message in a channel: the app's bot id is its
    subject (durable like a person's), its posting name what is shown."""
    private = (await channels.get(channel_id)).is_private
    return WriteContext(
        author=Author.of(SlackIdentity(team_id, bot_id), name),
        team_id=team_id,
        channel_id=channel_id,
        channel_is_private=private,
        scope="channel",
        source_ts=source_ts,
    )


async def incident_for(
    incidents: Incidents, channels: ChannelDirectory, *, team_id: str, channel_id: str
) -> Incident | None:
    """The channel's incident, recognising incident channels by name on first sight."""
    if channel_id.startswith("D"):
        return None
    info = await channels.get(channel_id)
    return await incidents.recognise_channel(team_id, channel_id, info.name, info.is_private)


async def open_incident(
    incidents: Incidents,
    channels: ChannelDirectory,
    ctx: WriteContext,
    *,
    title: str,
    severity: str,
    channel_id: str,
) -> Incident:
    """Open an incident in `channel_id`, naming the channel so a sane number in its name is kept."""
    name = "" if channel_id.startswith("D") else (await channels.get(channel_id)).name
    return await incidents.open(
        ctx, title=title, severity=severity, channel_id=channel_id, channel_name=name
    )
