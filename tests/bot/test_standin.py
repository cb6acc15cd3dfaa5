"""The Slack stand-in answers like Slack, including injected faults (issue 5, stand-in)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from urllib.parse import parse_qs

import pytest
from aiohttp import web
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from bot.standin import FakeSlack, SlackDriver, signature
from bot.standin.methods import apply_response_url
from bot.standin.workspace import Workspace


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


async def test_modals_stack_per_user_by_trigger_and_ephemerals_have_their_own_ts(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    """What the sandbox shows: the modal a click opened goes to whoever clicked, views.push
    stacks on it, and an ephemeral carries the ts a click on it will name."""
    ws = slack.workspace
    ws.triggers["t1"] = "U1"
    modal = {"type": "modal", "title": {"type": "plain_text", "text": "One"}, "blocks": []}
    opened = await client.views_open(trigger_id="t1", view=modal)
    pushed = await client.views_push(
        trigger_id="t1", view={**modal, "title": {"type": "plain_text", "text": "Two"}}
    )
    assert [v["id"] for v in ws.modal_stack("U1")] == [opened["view"]["id"], pushed["view"]["id"]]
    ws.close_modals("U1", top_only=True)
    assert [v["title"]["text"] for v in ws.modal_stack("U1")] == ["One"]
    await client.views_open(trigger_id="unknown-trigger", view=modal)  # nobody's: no stack
    assert [v["title"]["text"] for v in ws.modal_stack("U1")] == ["One"]

    first = await client.chat_postEphemeral(channel="C1", user="U1", text="only you")
    second = await client.chat_postEphemeral(channel="C1", user="U1", text="again")
    assert first["message_ts"] != second["message_ts"]
    assert ws.find_ephemeral(first["message_ts"]).text == "only you"  # type: ignore[union-attr]


async def test_listeners_hear_every_api_call_and_changes_made_outside_one(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    heard: list[int] = []
    slack.listeners.append(lambda: heard.append(1))
    await client.chat_postMessage(channel="C1", text="hi")
    assert len(heard) == 1
    slack.workspace.post("C1", "a human typed this", user="U1")
    await slack.changed()
    assert len(heard) == 2


def test_a_response_url_can_replace_or_delete_an_ephemeral_it_came_from() -> None:
    ws = Workspace()
    ws.add_user("U1", "alice")
    ws.add_channel("C1", "inc-1", members=["U1"])
    eph = ws.add_ephemeral("C1", "U1", "pick one", [])
    apply_response_url(ws, f"C1~U1~{eph.ts}~1", {"text": "done", "replace_original": True})
    assert [e.text for e in ws.ephemerals_for("U1")] == ["done"]
    apply_response_url(ws, f"C1~U1~{eph.ts}~2", {"delete_original": True})
    assert ws.ephemerals_for("U1") == []


async def test_a_submitted_select_reaches_the_bot_shaped_as_slack_sends_it() -> None:
    """The driver passes a Slack-shaped state value through (selects), text as plain input."""
    got: list[dict[str, object]] = []

    async def bot(request: web.Request) -> web.Response:
        got.append(json.loads(parse_qs(await request.text())["payload"][0]))
        return web.Response()

    app = web.Application()
    app.router.add_post("/slack/events", bot)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    fake = FakeSlack()
    fake.workspace.add_user("U1", "alice")
    choice = {"type": "static_select", "selected_option": {"value": "rollback"}}
    async with SlackDriver(f"http://127.0.0.1:{port}/slack/events", "s", fake) as d:
        await d.submit_view(
            "U1", {"id": "V1"}, {"why": {"text": "p99 up"}, "what": {"pick": choice}}
        )
    await runner.cleanup()
    values = got[0]["view"]["state"]["values"]  # type: ignore[index]
    assert values["why"]["text"] == {"type": "plain_text_input", "value": "p99 up"}
    assert values["what"]["pick"] == choice
