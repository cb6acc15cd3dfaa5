"""The sandbox as a newcomer uses it, in headless Chromium: the page, the real bot behind it
(signed requests through the stand-in), updates streamed without reloading (issue 19)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.sandbox import seed
from bot.sandbox.server import Sandbox

QUESTION = "@opsmemory p99 latency is up since the deploy, what should I check first?"


async def act_as(page: Any, user_id: str) -> None:
    await page.select_option("#user-select", user_id)
    # The picker changes at once; the view is that user's only once their state has rendered.
    await page.wait_for_function("id => document.body.dataset.viewer === id", arg=user_id)


async def open_channel(page: Any, name: str) -> None:
    await page.click(f"#channel-list a:has-text('{name}')")
    await page.wait_for_selector(f"#channel-header h1:has-text('{name}')")


async def ask(page: Any, text: str) -> Any:
    """Type a mention in the channel; the thread opens and the bot's answer renders there."""
    await page.fill("#composer-input", text)
    await page.press("#composer-input", "Enter")
    answer = page.locator("#thread-messages article.msg.bot").filter(has_text="Runbooks")
    await answer.first.wait_for(timeout=30_000)
    return answer.first


async def test_a_newcomer_asks_remembers_runs_a_command_and_gets_an_approval(
    page: Any, sandbox: Sandbox, tmp_path: Path
) -> None:
    # The seeded workspace is there on first start, as the on-call engineer sees it.
    channels = page.locator("#channel-list a")
    await channels.first.wait_for()
    names = await channels.all_inner_texts()
    assert any("inc-101-checkout-latency" in n for n in names)
    assert any("inc-102-search-errors" in n for n in names)
    assert any("inc-103-leaked-api-key" in n for n in names)  # private, and Dana is in it
    assert any("general" in n for n in names)
    await open_channel(page, "inc-101-checkout-latency")
    assert "since the 14:05 deploy" in await page.inner_text("#messages")

    # A mention is answered in its thread, cited down to the runbook section.
    answer = await ask(page, QUESTION)
    text = await answer.inner_text()
    assert "›" in text and "[S1]" in text
    assert await page.locator("#thread-messages .mention").count() >= 1  # <@U0BOT> shown as @name

    # "Remember this" goes to the bot as a block_actions click; its confirmation shows up.
    await answer.locator("button:has-text('Remember this')").click()
    await (
        page.locator("#thread-messages, #messages")
        .get_by_text("Saved to memory by")
        .first.wait_for()
    )

    # A slash command's reply is ephemeral: shown to Dana, marked so, and to nobody else.
    await page.fill("#composer-input", "/incident status")
    await page.press("#composer-input", "Enter")
    mine = page.locator("#messages article.ephemeral").filter(has_text="inc-101 is open")
    await mine.wait_for()
    assert "Only visible to you" in await mine.inner_text()

    # A guarded action: Dana requests a (dry-run) rollback; Lee, not an approver, is refused;
    # Sam approves and the request message shows the outcome in place.
    await page.fill("#composer-input", "/incident run rollback service=checkout-api version=v2.30")
    await page.press("#composer-input", "Enter")
    request = page.locator("#messages article.msg.bot").filter(has_text="Action request #")
    await request.wait_for()
    assert "service: checkout-api" in await request.inner_text()
    await act_as(page, seed.ENGINEER)
    assert await page.locator("#messages article.ephemeral").count() == 0  # Dana's stay hers
    await open_channel(page, "inc-101-checkout-latency")
    await request.locator("button:has-text('Approve')").click()
    refusal = page.locator("article.ephemeral").filter(has_text="only its approvers can decide")
    await refusal.first.wait_for()
    await act_as(page, seed.APPROVER)
    await open_channel(page, "inc-101-checkout-latency")
    await request.locator("button:has-text('Approve')").click()
    await request.filter(has_text="Dry run done").wait_for()
    assert await request.locator("button:has-text('Approve')").count() == 0

    await page.screenshot(path=str(tmp_path / "sandbox-thread.png"))


async def test_switching_user_while_a_refresh_is_in_flight_shows_the_new_users_view(
    page: Any, sandbox: Sandbox
) -> None:
    """Dana's state, fetched before the switch to Lee, arrives after it: the page must not show
    it (her ephemerals) or snap the picker back to her."""
    await open_channel(page, "inc-101-checkout-latency")
    await act_as(page, seed.ONCALL)
    held, release = asyncio.Event(), asyncio.Event()

    async def hold_first_of_danas(route: Any) -> None:
        if not held.is_set():
            held.set()
            await release.wait()
        await route.continue_()

    await page.route(
        lambda url: "/api/state" in url and f"user={seed.ONCALL}" in url, hold_first_of_danas
    )
    await page.fill("#composer-input", "/incident status")
    await page.press("#composer-input", "Enter")
    await held.wait()  # the reply's update made the page fetch Dana's state; it is held
    await page.select_option("#user-select", seed.ENGINEER)
    release.set()

    await act_as(page, seed.ENGINEER)
    await page.locator("#messages").get_by_text("since the 14:05 deploy").wait_for()
    assert await page.input_value("#user-select") == seed.ENGINEER
    assert await page.locator("#messages article.ephemeral").count() == 0


async def test_the_save_shortcut_opens_a_modal_and_app_home_deletes_what_was_saved(
    page: Any, sandbox: Sandbox, tmp_path: Path
) -> None:
    await open_channel(page, "inc-101-checkout-latency")
    said = page.locator("#messages article.msg").filter(has_text="since the 14:05 deploy")
    await said.hover()
    await said.locator("button.save-shortcut").click()

    # The message shortcut's modal (views.open), pre-filled; an empty note is refused in place.
    modal = page.locator(".overlay.view .modal")
    await modal.wait_for()
    field = modal.locator("textarea")
    assert "since the 14:05 deploy" in await field.input_value()
    await field.fill("")
    await modal.locator("button.submit").click()
    await modal.locator(".bk-error").filter(has_text="Write something").wait_for()
    await field.fill("checkout-db pool at 96% during inc-101; no traffic change")
    await modal.locator("button.submit").click()
    await modal.wait_for(state="detached")
    await page.locator("article.ephemeral").filter(has_text="Saved").first.wait_for()

    # App Home lists it with Delete; deleting it removes it from the page.
    await page.click("#home-link")
    home = page.locator("#home")
    await home.get_by_text("What opsmemory remembers").wait_for()
    item = home.locator(".bk-section").filter(has_text="no traffic change")
    await item.wait_for()
    await page.screenshot(path=str(tmp_path / "sandbox-home.png"))
    await item.locator("button:has-text('Delete')").click()
    await item.wait_for(state="detached")
    assert "no traffic change" not in await home.inner_text()

    # Reset restores the seeded scenario: what was done here is gone, the seed is back.
    await page.click("#reset")
    await page.click(".overlay.confirm button.submit")
    await (
        page.locator("#toast")
        .filter(has_text="back to its seeded scenario")
        .wait_for(timeout=180_000)
    )
    await open_channel(page, "inc-101-checkout-latency")
    assert "since the 14:05 deploy" in await page.inner_text("#messages")
    assert await page.locator("article.ephemeral").count() == 0


async def test_an_alertmanager_post_shows_as_the_app_and_a_question_under_it_gets_its_runbook(
    page: Any, sandbox: Sandbox
) -> None:
    """#inc-102 opens with Alertmanager's attachment: shown with its title and the APP mark;
    "what do we do now?" in its thread is answered with that alert's runbook."""
    await page.locator("#channel-list a").first.wait_for()
    await open_channel(page, "inc-102-search-errors")
    alert = page.locator("#messages article.msg").filter(has_text="KubePodCrashLooping")
    await alert.wait_for()
    head = await alert.locator(".msg-head").inner_text()
    assert "Alertmanager" in head and "APP" in head
    assert await alert.locator(".attachment.danger .attachment-title").count() == 1
    await alert.locator("button:has-text('Reply in thread')").click()
    await page.fill("#thread-input", "@opsmemory what do we do now?")
    await page.press("#thread-input", "Enter")
    answer = page.locator("#thread-messages article.msg.bot").filter(has_text="Runbooks")
    await answer.first.wait_for(timeout=30_000)
    assert "pod-crashloop" in await answer.first.inner_text()
