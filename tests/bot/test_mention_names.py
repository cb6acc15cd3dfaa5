"""People's mentions in message text become their names before memory keeps the text
(`bot.directory.with_names`), looked up through users.info on the Slack stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.directory import HomeTeam, user_directory, with_names
from bot.standin import FakeSlack
from memory.subjects import UserDirectory


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    fake.workspace.add_user("U0DEV", "dev", real_name="Dev Patel")
    fake.workspace.add_user("U0NOA", "", real_name="Noa  Levi")
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def users(slack: FakeSlack) -> UserDirectory:
    client = AsyncWebClient(token=slack.workspace.bot_token, base_url=slack.api_url)
    return user_directory(client, home=HomeTeam(slack.workspace.team_id), ttl_s=60)


async def test_a_mention_becomes_the_name_slack_shows(
    users: UserDirectory, slack: FakeSlack
) -> None:
    team = slack.workspace.team_id
    said = "TODO <@U0DEV>: raise the limit, cc <@U0DEV|dev>"
    named = await with_names(said, users, team_id=team)
    assert named == "TODO @dev: raise the limit, cc @dev"


async def test_without_a_display_name_the_real_name_is_used(
    users: UserDirectory, slack: FakeSlack
) -> None:
    team = slack.workspace.team_id
    assert await with_names("ask <@U0NOA>", users, team_id=team) == "ask @Noa Levi"


async def test_a_user_slack_does_not_know_keeps_the_name_sent_else_the_id(
    users: UserDirectory, slack: FakeSlack
) -> None:
    team = slack.workspace.team_id
    said = "<@U0GONE|old-name> and <@U0LOST> owned it; <!here> and <#C0A|inc> stay as they are"
    assert await with_names(said, users, team_id=team) == (
        "@old-name and @U0LOST owned it; <!here> and <#C0A|inc> stay as they are"
    )
