"""The code layer of the visibility rule (issue 14): who gets which Requester, and the membership
cache behind it (users.conversations, TTL, join/leave events), against the Slack stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.directory import HomeTeam, Memberships, requester_for, user_directory
from bot.standin import FakeSlack


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    ws = fake.workspace
    ws.add_user("U0FULL", "full")
    ws.add_user("U0GUEST", "guest", is_restricted=True)
    ws.add_user("U0EXT", "ext", team_id="T0OTHER")
    ws.add_channel("C0A", "inc-1-a", members=["U0FULL", "U0GUEST", "U0EXT"])
    ws.add_channel("G0P", "inc-2-p", private=True, members=["U0FULL"])
    ws.add_channel("G0NOBOT", "secret", private=True, members=["U0FULL"], bot_member=False)
    for n in range(5):  # more channels than one page holds
        ws.add_channel(f"C0X{n}", f"x-{n}", members=["U0GUEST"])
    await fake.start()
    yield fake
    await fake.stop()


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def client(slack: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token=slack.workspace.bot_token, base_url=slack.api_url)


async def test_full_members_see_every_public_channel_without_asking_slack(slack: FakeSlack) -> None:
    c = client(slack)
    users = user_directory(c, home=HomeTeam("T0STANDIN"), ttl_s=60)
    members = Memberships(c, ttl_s=60)
    r = await requester_for(users, members, team_id="T0STANDIN", user_id="U0FULL", channel_id="C0A")
    assert r.every_public_channel and r.sees_workspace and r.channel_id == "C0A"
    assert not slack.calls_to("users.conversations")  # the hot path asks Slack nothing more


async def test_guests_and_other_organisations_see_only_their_channels(slack: FakeSlack) -> None:
    c = client(slack)
    users = user_directory(c, home=HomeTeam("T0STANDIN"), ttl_s=60)
    members = Memberships(c, ttl_s=60, page=2)
    for user in ("U0GUEST", "U0EXT"):
        r = await requester_for(users, members, team_id="T0STANDIN", user_id=user, channel_id="C0A")
        assert not r.every_public_channel and not r.sees_workspace
        assert "C0A" in r.member_channel_ids
    guest = await members.channels_of("T0STANDIN", "U0GUEST")
    assert guest == {"C0A", "C0X0", "C0X1", "C0X2", "C0X3", "C0X4"}  # every page read
    assert len(slack.calls_to("users.conversations")) == 3 + 1  # guest: 3 pages, external: 1


async def test_app_home_and_dms_carry_private_memberships_the_bot_can_verify(
    slack: FakeSlack,
) -> None:
    c = client(slack)
    users = user_directory(c, home=HomeTeam("T0STANDIN"), ttl_s=60)
    members = Memberships(c, ttl_s=60)
    for where in (None, "DU0FULL"):
        r = await requester_for(
            users, members, team_id="T0STANDIN", user_id="U0FULL", channel_id=where
        )
        assert r.channel_id is None and r.sees_private_members
        assert "G0P" in r.member_channel_ids and "G0NOBOT" not in r.member_channel_ids


async def test_membership_cache_follows_events_and_expires(slack: FakeSlack) -> None:
    clock = Clock()
    members = Memberships(client(slack), ttl_s=60, clock=clock)
    assert "C0A" in await members.channels_of("T0STANDIN", "U0GUEST")
    members.left("T0STANDIN", "U0GUEST", "C0A")
    assert "C0A" not in await members.channels_of("T0STANDIN", "U0GUEST")
    members.joined("T0STANDIN", "U0GUEST", "G0P")
    assert "G0P" in await members.channels_of("T0STANDIN", "U0GUEST")
    assert len(slack.calls_to("users.conversations")) == 1
    clock.now += timedelta(seconds=61)  # expired: Slack's truth again
    assert await members.channels_of("T0STANDIN", "U0GUEST") == {
        "C0A", "C0X0", "C0X1", "C0X2", "C0X3", "C0X4"
    }  # fmt: skip
