"""App Home is the user's memory inspector, with Delete, Export and Forget everything
(issue 5, item 7)."""

from __future__ import annotations

import html
import json

from bot.directory import write_context
from bot.runtime import Runtime
from bot.standin import FakeSlack, SlackDriver
from memory.notes import NoteDraft
from tests.e2e.sql_log import trace_statements
from tests.e2e.workspace import ALICE, BOB, INCIDENT, TEAM, eventually


def home_text(slack: FakeSlack, user: str) -> str:
    return str(slack.workspace.home_views.get(user, {}).get("blocks", ""))


async def test_home_shows_only_my_facts_and_notes_with_delete_buttons(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "remember I prefer kubectl over the dashboard")
    await driver.command(INCIDENT, ALICE, "note checkout pods restarted at 10:05")
    await driver.command(INCIDENT, BOB, "remember bob likes grafana")
    await eventually(lambda: len(slack.workspace.ephemerals) == 3)
    await driver.home_opened(ALICE)
    text = await eventually(lambda: home_text(slack, ALICE))
    assert "I prefer kubectl over the dashboard" in text
    assert "checkout pods restarted at 10:05" in text
    assert "bob likes grafana" not in text
    assert "delete_item" in text and "export_memory" in text and "forget_everything" in text


async def test_delete_button_removes_the_item_and_republishes(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "remember my pager is on weekdays only")
    reply = await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    item = reply[0].text.split("(item ")[1].split(")")[0]
    await driver.home_opened(ALICE)
    view = await eventually(lambda: slack.workspace.home_views.get(ALICE))
    published = len(slack.calls_to("views.publish"))
    await driver.click(ALICE, action_id="delete_item", value=item, view=view)
    await eventually(lambda: len(slack.calls_to("views.publish")) > published)
    assert "pager is on weekdays" not in home_text(slack, ALICE)


async def test_forget_everything_asks_for_confirmation_then_forgets(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "remember I am on the payments team")
    await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    await driver.home_opened(ALICE)
    view = await eventually(lambda: slack.workspace.home_views.get(ALICE))
    await driver.click(ALICE, action_id="forget_everything", value="forget", view=view)
    opened = await eventually(lambda: slack.calls_to("views.open"))
    modal = opened[0].body["view"]
    assert modal["callback_id"] == "forget_everything_modal"
    assert "I am on the payments team" in home_text(slack, ALICE)  # nothing gone before confirming
    stored = next(
        v for v in slack.workspace.views.values() if v.get("callback_id") == modal["callback_id"]
    )
    d = await driver.submit_view(ALICE, stored, {})
    assert d.status == 200
    await eventually(lambda: "payments team" not in home_text(slack, ALICE))
    dm = await eventually(lambda: slack.workspace.bot_messages(f"D{ALICE}"))
    assert dm[-1].text.startswith("Forgot everything about you")


async def test_export_sends_my_memory_as_json_in_a_dm(
    driver: SlackDriver, slack: FakeSlack
) -> None:
    await driver.command(INCIDENT, ALICE, "remember I am the checkout owner")
    await eventually(lambda: slack.workspace.ephemerals_for(ALICE))
    await driver.home_opened(ALICE)
    view = await eventually(lambda: slack.workspace.home_views.get(ALICE))
    await driver.click(ALICE, action_id="export_memory", value="export", view=view)
    dm = await eventually(lambda: slack.workspace.bot_messages(f"D{ALICE}"))
    assert "I am the checkout owner" in str(dm[0].blocks)


async def save_notes(bot: Runtime, user: str, texts: list[str]) -> None:
    """Seed notes through the real domain (one redaction and embedding batch)."""
    ctx = await write_context(
        bot.deps.users, bot.deps.channels, team_id=TEAM, user_id=user, channel_id=INCIDENT,
        scope="channel",
    )  # fmt: skip
    await bot.deps.notes.save_many([NoteDraft(ctx, t, "note") for t in texts])


async def test_home_shows_counts_and_latest_notes_without_building_the_export(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    texts = [f"checkout shard {i} drained and rebalanced " + "x" * 900 for i in range(40)]
    await save_notes(bot, ALICE, texts)
    statements = await trace_statements(bot.deps.db)
    await driver.home_opened(ALICE)
    text = await eventually(lambda: home_text(slack, ALICE))
    assert "notes (note) 40" in text
    assert "checkout shard 39 drained" in text and "checkout shard 0 drained" not in text
    assert not any("FROM memory_audit" in s for s in statements)  # the export reads audit rows


async def test_export_sends_everything_over_several_messages_losing_nothing(
    bot: Runtime, driver: SlackDriver, slack: FakeSlack
) -> None:
    texts = [f"checkout shard {i} drained and rebalanced " + "x" * 900 for i in range(40)]
    await save_notes(bot, ALICE, texts)
    await driver.home_opened(ALICE)
    view = await eventually(lambda: slack.workspace.home_views.get(ALICE))
    await driver.click(ALICE, action_id="export_memory", value="export", view=view)

    def parts() -> list[str]:
        return [m.text for m in slack.workspace.bot_messages(f"D{ALICE}")]

    first = await eventually(parts)
    total = int(first[0].split(" of ")[1].split(" ")[0])
    assert total > 1
    await eventually(lambda: len(parts()) == total, within_s=total + 10)  # paced 1/s per channel
    code = "".join(
        b["text"]["text"].removeprefix("```").removesuffix("```")
        for m in slack.workspace.bot_messages(f"D{ALICE}")
        for b in m.blocks
        if b["type"] == "section"
    )
    export = json.loads(html.unescape(code))
    assert sorted(n["text"] for n in export["notes"]) == sorted(texts)
