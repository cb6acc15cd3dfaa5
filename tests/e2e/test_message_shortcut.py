"""Message shortcut "Save to incident memory": a pre-filled modal saves a note (issue 5, item 8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.answer import messages
from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import (
    ALICE,
    BOB,
    GUEST,
    INCIDENT,
    SECRET,
    answered,
    eventually,
    eventually_async,
    remember_value,
)

NOTES = "SELECT count(*) FROM memory_notes"
NOTE_TEXTS = "SELECT group_concat(text, ' | ') FROM (SELECT text FROM memory_notes ORDER BY id)"


def saved_modal(slack: FakeSlack) -> dict[str, Any]:
    """The save-note modal the shortcut opened, as the stand-in stores it."""
    return next(
        v for v in slack.workspace.views.values() if v.get("callback_id") == "save_note_modal"
    )


async def save_by_shortcut(
    driver: SlackDriver, slack: FakeSlack, user: str, ts: str, text: str
) -> None:
    """`user` saves the incident message at `ts` through the shortcut's modal, as `text`."""
    await driver.message_shortcut(user, INCIDENT, ts)
    await eventually(lambda: slack.calls_to("views.open"))
    await driver.submit_view(user, saved_modal(slack), {"note": {"text": text}})
    await eventually(lambda: slack.workspace.ephemerals_for(user))


async def test_shortcut_opens_a_prefilled_modal_and_saving_it_stores_a_note(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "root cause: expired TLS cert on payments-gw", user=BOB)
    d = await driver.message_shortcut(ALICE, INCIDENT, msg.ts)
    assert d.status == 200
    opened = await eventually(lambda: slack.calls_to("views.open"))
    view = opened[0].body["view"]
    assert "expired TLS cert on payments-gw" in str(view["blocks"])
    await driver.submit_view(
        ALICE, saved_modal(slack), {"note": {"text": "root cause: expired TLS cert"}}
    )
    saved = await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    assert saved[0].text.startswith("Saved note note:") and "inc-42" in saved[0].text
    await driver.command(INCIDENT, ALICE, "recall expired TLS cert")
    found = await eventually(lambda: slack.calls_to("response_url"))
    assert "root cause: expired TLS cert" in found[0].body["text"]


async def test_remember_this_clicked_twice_saves_one_note_and_says_so(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    _, answer = await answered(driver, slack, ALICE, "disk full on db-3?")
    await driver.click(ALICE, action_id="remember_answer", value=remember_value(answer), channel=INCIDENT,
                       message_ts=answer.ts)  # fmt: skip
    await eventually(
        lambda: [x for x in slack.workspace.bot_messages(INCIDENT) if "Saved" in x.text]
    )
    await driver.click(BOB, action_id="remember_answer", value=remember_value(answer), channel=INCIDENT,
                       message_ts=answer.ts)  # fmt: skip
    told = await eventually(lambda: slack.workspace.ephemerals_for(BOB))
    assert told[0].text == messages.ALREADY_SAVED
    assert await bot.deps.db.scalar(NOTES) == 1


async def test_shortcut_on_an_already_saved_message_opens_no_modal(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "root cause: expired TLS cert on payments-gw", user=BOB)
    await driver.message_shortcut(ALICE, INCIDENT, msg.ts)
    await eventually(lambda: slack.calls_to("views.open"))
    await driver.submit_view(ALICE, saved_modal(slack), {"note": {"text": "expired TLS cert"}})
    await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    await driver.message_shortcut(BOB, INCIDENT, msg.ts)
    told = await eventually(lambda: slack.workspace.ephemerals_for(BOB))
    assert told[0].text == messages.ALREADY_SAVED
    assert len(slack.calls_to("views.open")) == 1
    assert await bot.deps.db.scalar(NOTES) == 1


async def test_two_open_modals_for_one_message_save_it_once(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "root cause: expired TLS cert on payments-gw", user=BOB)
    await driver.message_shortcut(ALICE, INCIDENT, msg.ts)
    await driver.message_shortcut(BOB, INCIDENT, msg.ts)
    await eventually(lambda: len(slack.calls_to("views.open")) == 2)
    first = await driver.submit_view(ALICE, saved_modal(slack), {"note": {"text": "TLS cert"}})
    second = await driver.submit_view(BOB, saved_modal(slack), {"note": {"text": "TLS cert"}})
    assert first.body == ""
    assert second.json() == {
        "response_action": "errors",
        "errors": {"note": messages.ALREADY_SAVED},
    }
    await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    assert await bot.deps.db.scalar(NOTES) == 1


async def test_modal_submitted_by_a_guest_shows_the_refusal_in_the_modal(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "cache is cold on checkout", user=BOB)
    await driver.message_shortcut(ALICE, INCIDENT, msg.ts)
    await eventually(lambda: slack.calls_to("views.open"))
    d = await driver.submit_view(GUEST, saved_modal(slack), {"note": {"text": "cache is cold"}})
    body = d.json()
    assert body["response_action"] == "errors"
    assert "Guests and people from other organisations" in body["errors"]["note"]
    assert await bot.deps.db.scalar(NOTES) == 0


async def test_writer_who_became_a_guest_before_submitting_is_refused_in_the_modal(
    start_bot: Callable[..., Any], slack: FakeSlack
) -> None:
    """Write permission is checked again when the modal is submitted, not only when it opened."""
    bot = await start_bot(users_cache_ttl_s=0)
    msg = slack.workspace.post(INCIDENT, "cache is cold on checkout", user=BOB)
    async with SlackDriver(f"http://127.0.0.1:{bot.port}/slack/events", SECRET, slack) as d:
        await d.message_shortcut(ALICE, INCIDENT, msg.ts)
        await eventually(lambda: slack.calls_to("views.open"))
        slack.workspace.users[ALICE].is_restricted = True
        reply = await d.submit_view(ALICE, saved_modal(slack), {"note": {"text": "cold cache"}})
    assert "Guests and people from other organisations" in reply.json()["errors"]["note"]
    assert await bot.deps.db.scalar(NOTES) == 0


async def test_guest_using_the_shortcut_is_told_why_and_gets_no_modal(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "cache is cold on checkout", user=BOB)
    await driver.message_shortcut(GUEST, INCIDENT, msg.ts)
    told = await eventually(lambda: slack.workspace.ephemerals_for(GUEST))
    assert "Guests and people from other organisations" in told[0].text
    assert slack.calls_to("views.open") == []


async def test_a_colleagues_saved_note_outlives_the_authors_edit_and_delete(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """Bob's message becomes his own note; Alice saves it too. Bob's edit replaces his note
    and his delete removes it, but Alice's saved note (acknowledged to her) stays."""
    msg = await driver.say(INCIDENT, BOB, "root cause: expired TLS cert on payments-gw")
    assert msg.ts
    await eventually_async(lambda: bot.deps.db.scalar(NOTES), lambda n: n == 1)
    await save_by_shortcut(
        driver, slack, ALICE, msg.ts, "payments-gw cert expired; renew 30d early"
    )

    await driver.edit(INCIDENT, msg.ts, "root cause: expired TLS cert on payments-gw-2")
    said = await eventually_async(
        lambda: bot.deps.db.scalar(NOTE_TEXTS), lambda t: "payments-gw-2" in (t or "")
    )
    assert said == (
        "payments-gw cert expired; renew 30d early | root cause: expired TLS cert on payments-gw-2"
    )
    await driver.delete(INCIDENT, msg.ts)
    left = await eventually_async(lambda: bot.deps.db.scalar(NOTE_TEXTS), lambda t: "gw-2" not in t)
    assert left == "payments-gw cert expired; renew 30d early"
    await driver.command(INCIDENT, BOB, "recall payments-gw cert")
    found = await eventually(lambda: slack.calls_to("response_url"))
    assert "renew 30d early" in found[0].body["text"]


async def test_the_authors_own_saved_note_outlives_their_edit(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    """A note Bob saved on purpose from his own message is his words, not the message's: an
    edit of the message replaces only the note the message became."""
    msg = await driver.say(INCIDENT, BOB, "root cause: expired TLS cert on payments-gw")
    assert msg.ts
    await eventually_async(lambda: bot.deps.db.scalar(NOTES), lambda n: n == 1)
    await save_by_shortcut(driver, slack, BOB, msg.ts, "renew certs 30d early")
    await driver.edit(INCIDENT, msg.ts, "root cause: expired TLS cert on payments-gw-2")
    said = await eventually_async(
        lambda: bot.deps.db.scalar(NOTE_TEXTS), lambda t: "payments-gw-2" in (t or "")
    )
    assert said == "renew certs 30d early | root cause: expired TLS cert on payments-gw-2"
