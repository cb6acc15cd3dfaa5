"""message events in incident channels: store every person's message and every other app's post
(redacted) as it arrives and apply edits and deletions, so summaries never read history back
from Slack."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.app_messages import AppMessage, from_event
from bot.directory import app_write_context, incident_for, with_names, write_context
from bot.listeners import bind
from bot.listeners.mentions import asks_bot, without_bot_mention

if TYPE_CHECKING:
    from bot.deps import Deps
    from bot.pacing import Ticket

log = logging.getLogger("opsmemory.capture")
# Subtypes that are people talking; everything else (joins, topic changes, bots) is skipped.
_HUMAN_SUBTYPES = {None, "thread_broadcast", "file_share", "me_message"}


def register(app: AsyncApp, deps: Deps) -> None:
    app.event("message")(bind(on_message, deps=deps))


async def on_message(
    event: dict[str, Any], context: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    """Store a person's message (redacted); apply edits and deletions to what is stored, each
    channel's events stored in the order they arrived (`ArrivalOrder`)."""
    async with deps.arrival.ticket(event.get("channel", "")) as ticket:
        await _on_message(event, context, client, ticket, deps=deps)


async def _on_message(
    event: dict[str, Any], context: Any, client: AsyncWebClient, ticket: Ticket, *, deps: Deps
) -> None:
    team, channel = context.team_id, event.get("channel", "")
    subtype = event.get("subtype")
    if event.get("bot_id") or subtype == "bot_message":
        app = await _app(event, context, channel, deps=deps)
        if app is not None and subtype in (None, "bot_message"):
            await _capture_app(team, event, app, client, ticket, deps=deps)
        return
    if subtype == "message_changed":
        new = event.get("message") or {}
        if new.get("bot_id"):
            # Another app updating its own post ("FIRING" to "RESOLVED"); never this bot's.
            app = await _app(new, context, channel, deps=deps)
            if app is not None:
                await ticket.turn()
                await deps.threads.edit(team, channel, new.get("ts", ""), app.text)
        else:
            said = new.get("text", "")
            text = await with_names(
                without_bot_mention(said, context.bot_user_id), deps.users, team_id=team
            )
            # An edit that now asks the bot turns the message into a question: not evidence.
            evidence = not asks_bot(said, context.bot_user_id)
            await ticket.turn()
            await deps.threads.edit(team, channel, new.get("ts", ""), text, evidence=evidence)
        return
    if subtype == "message_deleted":
        await ticket.turn()
        await deps.threads.delete(team, channel, event.get("deleted_ts", ""))
        return
    if subtype not in _HUMAN_SUBTYPES or not event.get("user"):
        return
    incident = await incident_for(deps.incidents, deps.channels, team_id=team, channel_id=channel)
    if incident is None:
        return
    facts = await deps.users.get(team, event["user"])
    if facts.identity.is_guest or facts.identity.is_external:
        log.info("capture_skipped_guest", extra={"team": team, "channel": channel})
        return
    ctx = await write_context(
        deps.users,
        deps.channels,
        team_id=team,
        user_id=event["user"],
        channel_id=channel,
        scope="channel",
        source_ts=event["ts"],
    )
    text = event.get("text", "")
    # A question to the bot is not evidence of what happened; everything else people say is.
    bot_user = getattr(context, "bot_user_id", None) or context.get("bot_user_id")
    question = asks_bot(text, bot_user)
    if not question:
        ctx = replace(ctx, permalink=await _permalink(client, channel, event["ts"]))
    started = time.perf_counter()
    text = await with_names(
        without_bot_mention(text, context.bot_user_id), deps.users, team_id=team
    )
    if not text:  # only the bot's mention: nothing for memory to keep
        return
    await deps.threads.capture(
        ctx,
        ts=event["ts"],
        thread_ts=event.get("thread_ts"),
        text=text,
        turn=ticket.turn,
        incident=incident.id,
        asks_bot=question,
    )
    deps.metrics.redaction_latency.observe(time.perf_counter() - started)


async def _app(
    message: dict[str, Any], context: Any, channel: str, *, deps: Deps
) -> AppMessage | None:
    """Another app's message in `message`; None for this bot's own posts and for apps of
    another organisation (`bot.app_messages.from_event`)."""
    if not channel or channel.startswith("D"):
        return None
    info = await deps.channels.get(channel)
    return from_event(
        message,
        own_bot_id=context.get("bot_id"),
        own_user_id=context.get("bot_user_id"),
        team_id=context.team_id,
        shared_channel=info.is_ext_shared,
    )


async def _capture_app(
    team: str,
    event: dict[str, Any],
    app: AppMessage,
    client: AsyncWebClient,
    ticket: Ticket,
    *,
    deps: Deps,
) -> None:
    """Store another app's post in an incident channel (an alert opening a thread, a pager's
    update) like a person's message: redacted, as channel memory, the app named as its author.
    Its text is the alert a vague question under it is about."""
    channel, ts = event.get("channel", ""), event.get("ts", "")
    if not channel or not ts or not app.text:
        return
    incident = await incident_for(deps.incidents, deps.channels, team_id=team, channel_id=channel)
    if incident is None:
        return
    ctx = await app_write_context(
        deps.channels,
        team_id=team,
        bot_id=app.bot_id,
        name=app.name,
        channel_id=channel,
        source_ts=ts,
    )
    ctx = replace(ctx, permalink=await _permalink(client, channel, ts))
    started = time.perf_counter()
    await deps.threads.capture(
        ctx,
        ts=ts,
        thread_ts=event.get("thread_ts"),
        text=app.text,
        turn=ticket.turn,
        incident=incident.id,
    )
    deps.metrics.redaction_latency.observe(time.perf_counter() - started)


async def _permalink(client: AsyncWebClient, channel: str, ts: str) -> str | None:
    """The message's permalink from Slack; None when Slack will not say (the note still counts)."""
    try:
        reply = await client.chat_getPermalink(channel=channel, message_ts=ts)
    except SlackApiError:
        log.info("permalink_unavailable", extra={"channel": channel})
        return None
    link = reply.get("permalink")
    return link if isinstance(link, str) else None
