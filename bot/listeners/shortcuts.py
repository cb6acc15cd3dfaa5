"""Message shortcut "Save to incident memory" (a modal pre-filled from the message) and the
modal submissions it and App Home open."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import messages, render
from bot.directory import incident_for, write_context
from bot.listeners import bind
from bot.listeners.home import publish_home
from bot.state.saves import SourceKey
from memory.errors import OpsmemoryError

if TYPE_CHECKING:
    from bot.deps import Deps


def register(app: AsyncApp, deps: Deps) -> None:
    app.shortcut("save_to_incident_memory")(bind(save_shortcut, deps=deps))
    app.view("save_note_modal")(bind(save_note, deps=deps))
    app.view("forget_everything_modal")(bind(forget_all, deps=deps))


async def save_shortcut(
    ack: Any,
    shortcut: dict[str, Any],
    context: Any,
    respond: Any,
    client: AsyncWebClient,
    *,
    deps: Deps,
) -> None:
    """Save to incident memory: open the note modal, pre-filled from the message."""
    await ack()
    channel, ts = shortcut["channel"]["id"], shortcut["message_ts"]
    # Refused writers (guests, other organisations) hear why now, not after typing a note.
    await write_context(
        deps.users, deps.channels, team_id=context.team_id, user_id=context.user_id,
        channel_id=channel, scope="channel", source_ts=ts,
    )  # fmt: skip
    if await deps.saves.is_saved(SourceKey(context.team_id, channel, ts, "note")):
        await respond(
            text=messages.ALREADY_SAVED, response_type="ephemeral", replace_original=False
        )
        return
    msg = shortcut.get("message") or {}
    view = render.save_modal(msg.get("text", ""), channel_id=channel, message_ts=ts)
    await client.views_open(trigger_id=shortcut["trigger_id"], view=view)


async def save_note(
    ack: Any, view: dict[str, Any], context: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    """The note modal's submission: save the note once per message, refusals in the modal."""
    meta = json.loads(view.get("private_metadata") or "{}")
    text = view["state"]["values"]["note"]["text"]["value"] or ""
    if not text.strip():
        await ack(response_action="errors", errors={"note": "Write something to save."})
        return
    channel, ts = meta["channel_id"], meta["message_ts"]
    # Permission may have changed since the modal opened: check again before acking, so a
    # refusal is shown in the modal itself.
    try:
        ctx = await write_context(
            deps.users, deps.channels, team_id=context.team_id, user_id=context.user_id,
            channel_id=channel, scope="channel", source_ts=ts,
        )  # fmt: skip
    except OpsmemoryError as refused:
        await ack(response_action="errors", errors={"note": str(refused)})
        return
    key = SourceKey(context.team_id, channel, ts, "note")
    if not await deps.saves.claim(key):
        await ack(response_action="errors", errors={"note": messages.ALREADY_SAVED})
        return
    await ack()
    inc = await incident_for(
        deps.incidents, deps.channels, team_id=context.team_id, channel_id=channel
    )
    note = await deps.saves.save_claimed(
        key, lambda: deps.notes.save(ctx, text, "note", incident=inc.id if inc else None)
    )
    where = inc.id if inc else f"<#{channel}>"
    await client.chat_postEphemeral(
        channel=channel,
        user=context.user_id,
        text=messages.NOTE_SAVED.format(kind="note", id=f"note:{note.id}", incident=where),
    )


async def forget_all(ack: Any, context: Any, client: AsyncWebClient, *, deps: Deps) -> None:
    """Forget everything, confirmed: delete the person's memory, refresh Home, DM a receipt."""
    await ack()
    facts = await deps.users.get(context.team_id, context.user_id)
    receipt = await deps.controls.forget_everything(facts.subject_id)
    await publish_home(deps, client, team_id=context.team_id, user_id=context.user_id)
    counts = ", ".join(f"{k} {v}" for k, v in getattr(receipt, "counts", {}).items())
    await client.chat_postMessage(
        channel=context.user_id, text=messages.FORGOT_EVERYTHING.format(counts=counts or "0")
    )
