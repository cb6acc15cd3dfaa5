"""The Slack stand-in answers like Slack, including injected faults (issue 5, stand-in)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from bot.standin import FakeSlack, signature


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    fake.workspace.add_user("U1", "alice")
    fake.workspace.add_channel("C1", "inc-1", members=["U1"])
    fake.workspace.add_channel("C2", "elsewhere", bot_member=False)
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def client(slack: FakeSlack) -> AsyncIterator[AsyncWebClient]:
    c = AsyncWebClient(token=slack.workspace.bot_token, base_url=slack.api_url)
    yield c
    if c.session is not None:
        await c.session.close()


def test_driver_signature_verifies_with_slacks_own_verifier() -> None:
    ts = str(int(time.time()))
    body = "token=x&command=%2Fincident&text=help"
    sig = signature("s3cret", ts, body)
    assert SignatureVerifier("s3cret").is_valid(body, ts, sig)
    assert not SignatureVerifier("other").is_valid(body, ts, sig)


async def test_post_then_update_and_permalink(slack: FakeSlack, client: AsyncWebClient) -> None:
    posted = await client.chat_postMessage(channel="C1", text="hi", thread_ts="1.000001")
    assert posted["ok"] and posted["message"]["thread_ts"] == "1.000001"
    await client.chat_update(channel="C1", ts=posted["ts"], text="edited")
    (msg,) = slack.workspace.bot_messages("C1")
    assert (msg.text, msg.edited) == ("edited", True)
    link = await client.chat_getPermalink(channel="C1", message_ts=posted["ts"])
    assert link["permalink"].startswith("https://standin.slack.com/archives/C1/p")
    assert [c.method for c in slack.calls] == [
        "chat.postMessage",
        "chat.update",
        "chat.getPermalink",
    ]


async def test_errors_look_like_slacks(slack: FakeSlack, client: AsyncWebClient) -> None:
    cases = [("C9", "channel_not_found"), ("C2", "not_in_channel")]
    for channel, error in cases:
        with pytest.raises(SlackApiError) as err:
            await client.chat_postMessage(channel=channel, text="x")
        assert err.value.response["error"] == error
    too_many = [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 51
    with pytest.raises(SlackApiError) as err:
        await client.chat_postMessage(channel="C1", text="x", blocks=too_many)
    assert err.value.response["error"] == "invalid_blocks"
    bad = AsyncWebClient(token="xoxb-wrong", base_url=slack.api_url)
    with pytest.raises(SlackApiError) as err:
        await bad.auth_test()
    assert err.value.response["error"] == "invalid_auth"


async def test_injected_faults_are_served_once_each(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.fail("users.info", "user_not_found")
    slack.rate_limit("users.info", retry_after=7)
    slack.server_error("users.info", status=503)
    with pytest.raises(SlackApiError) as err:
        await client.users_info(user="U1")
    assert err.value.response["error"] == "user_not_found"
    with pytest.raises(SlackApiError) as err:
        await client.users_info(user="U1")
    assert err.value.response.status_code == 429
    assert err.value.response.headers["Retry-After"] == "7"
    with pytest.raises(SlackApiError) as err:
        await client.users_info(user="U1")
    assert err.value.response.status_code == 503
    ok = await client.users_info(user="U1")
    assert ok["user"]["name"] == "alice"


async def test_held_method_answers_only_once_released(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    gate = slack.hold("auth.test")
    call = asyncio.create_task(client.auth_test())
    await slack.wait_for(lambda: slack.calls_to("auth.test"))
    assert not call.done()
    assert (await client.users_info(user="U1"))["ok"]  # other methods are not held
    assert not call.done()
    gate.set()
    assert (await call)["team_id"] == slack.workspace.team_id


async def test_call_inside_a_retry_after_window_is_refused_again(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.rate_limit("users.info", retry_after=30, enforce=True)
    for _ in range(2):
        with pytest.raises(SlackApiError) as err:
            await client.users_info(user="U1")
        assert err.value.response.status_code == 429
    assert len(slack.calls_to("users.info")) == 2
