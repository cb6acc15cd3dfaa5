"""Message shortcut "Save to incident memory": a pre-filled modal saves a note (issue 5, item 8)."""

from __future__ import annotations

from bot.standin import FakeSlack, SlackDriver
from tests.e2e.workspace import ALICE, BOB, INCIDENT, eventually


async def test_shortcut_opens_a_prefilled_modal_and_saving_it_stores_a_note(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    msg = slack.workspace.post(INCIDENT, "root cause: expired TLS cert on payments-gw", user=BOB)
    d = await driver.message_shortcut(ALICE, INCIDENT, msg.ts)
    assert d.status == 200
    opened = await eventually(lambda: slack.calls_to("views.open"))
    view = opened[0].body["view"]
    assert "expired TLS cert on payments-gw" in str(view["blocks"])
    stored = next(
        v for v in slack.workspace.views.values() if v.get("callback_id") == "save_note_modal"
    )
    await driver.submit_view(ALICE, stored, {"note": {"text": "root cause: expired TLS cert"}})
    saved = await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    assert saved[0].text.startswith("Saved note note:") and "inc-42" in saved[0].text
    await driver.command(INCIDENT, ALICE, "recall expired TLS cert")
    found = await eventually(lambda: slack.calls_to("response_url"))
    assert "root cause: expired TLS cert" in found[0].body["text"]
