"""What people see of a guarded action: the request message (posted once, then updated in place
as the request moves) and the incident-memory notes of each request, decision, refusal and
outcome (so recall, roll-ups and the digest show them)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slack_sdk.errors import SlackApiError

from bot.answer import render
from bot.directory import write_context
from bot.slack_failures import FAILED, UNREACHABLE, slack_error
from memory.errors import OpsmemoryError
from memory.notes.notes import NoteDraft

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.deps import Deps
    from bot.guarded.requests import Request
    from memory.notes.notes import NoteKind

log = logging.getLogger("opsmemory.guarded")
_locks: dict[int, asyncio.Lock] = {}


#: The message metadata every request message carries: a retry finds the message a lost reply
#: hid (Slack took the post, the reply never came) instead of posting a second one.
METADATA_TYPE = "opsmemory_action_request"


@dataclass(frozen=True)
class Posted:
    """What one attempt to post a request message did: `now` when this call posted it, or
    found the message an earlier attempt posted but never heard back about; `failed` names
    Slack's error (or the network failure) when it could not."""

    now: bool = False
    failed: str | None = None


async def post(
    deps: Deps, client: AsyncWebClient, request: Request, *, retry: bool = False
) -> Posted:
    """Post the request message (once per request, while it can still be decided) and remember
    where it is. A refusal or an unreachable Slack leaves the request stored and unposted, for
    `post_unposted` to retry (`retry`): a retry first looks for the message by its metadata,
    since an attempt whose reply was lost may have posted it. Errors are logged with the
    request id."""
    lock = _locks.setdefault(request.id, asyncio.Lock())
    async with lock:
        request = await deps.guarded.get(request.id)
        if request.message_ts is not None or not _open(deps, request):
            return Posted()
        if retry and (found := await _posted_before(client, request)) is not None:
            await deps.guarded.set_message(request.id, found)
            log.info("guarded_post_found", extra={"request_id": request.id})
            return Posted(now=True)
        text, blocks = await _render(deps, request)
        await deps.pacer.wait(request.channel_id)
        metadata = {"event_type": METADATA_TYPE, "event_payload": {"request_id": request.id}}
        try:
            resp = await client.chat_postMessage(
                channel=request.channel_id,
                thread_ts=request.thread_ts,
                text=text,
                blocks=blocks,
                metadata=metadata,
            )
        except SlackApiError as exc:
            error = slack_error(exc)
        except UNREACHABLE as exc:
            error = type(exc).__name__
        else:
            await deps.guarded.set_message(request.id, str(resp["ts"]))
            return Posted(now=True)
        log.warning("guarded_post_failed", extra={"request_id": request.id, "error": error})
        return Posted(failed=error)


async def _posted_before(client: AsyncWebClient, request: Request) -> str | None:
    """The ts of a message this bot posted for `request` (found by its metadata among the
    thread's or the channel's messages since the request was made); None when there is none
    or Slack cannot say (then the caller posts, as it did before there was a lookup). Another
    app's message carrying the same metadata is never adopted."""
    since = f"{request.created_at.timestamp() - 60:.6f}"
    try:
        own = (await client.auth_test()).get("bot_id")
        if request.thread_ts:
            resp = await client.conversations_replies(
                channel=request.channel_id,
                ts=request.thread_ts,
                oldest=since,
                include_all_metadata=True,
                limit=200,
            )
        else:
            resp = await client.conversations_history(
                channel=request.channel_id, oldest=since, include_all_metadata=True, limit=200
            )
    except FAILED:
        log.info("guarded_lookup_failed", extra={"request_id": request.id})
        return None
    for msg in resp.get("messages") or []:
        meta = msg.get("metadata") or {}
        payload = meta.get("event_payload") or {}
        if (
            own
            and msg.get("bot_id") == own
            and meta.get("event_type") == METADATA_TYPE
            and payload.get("request_id") == request.id
        ):
            return str(msg["ts"])
    return None


def _open(deps: Deps, request: Request) -> bool:
    """Whether the request can still be decided: requested and not past its expiry."""
    return request.state == "requested" and deps.clock() < request.expires_at


async def post_unposted(deps: Deps, client: AsyncWebClient) -> int:
    """Post every open request whose message never made it (Slack down, rate-limited, a crash
    after the ack): without it nobody could approve it. A request that cannot be rendered (its
    action left the catalogue) is logged and skipped, never blocking the others or start-up.
    Returns how many this call posted."""
    posted = 0
    for request in await deps.guarded.unposted():
        try:
            posted += (await post(deps, client, request, retry=True)).now
        except OpsmemoryError as exc:
            log.warning(
                "guarded_post_skipped",
                extra={"request_id": request.id, "error_type": type(exc).__name__},
            )
    return posted


async def refresh(deps: Deps, client: AsyncWebClient, request_id: int) -> Request:
    """Update the request message to the request's current state (one update at a time per
    request, each reading the state just before it, so a late update never shows an old one)."""
    lock = _locks.setdefault(request_id, asyncio.Lock())
    async with lock:
        request = await deps.guarded.get(request_id)
        if request.message_ts is None:
            return request
        text, blocks = await _render(deps, request)
        try:
            await client.chat_update(
                channel=request.channel_id, ts=request.message_ts, text=text, blocks=blocks
            )
        except SlackApiError as exc:
            log.warning("guarded_update_failed", extra={"error": slack_error(exc)})
        return request


async def remember(
    deps: Deps, request: Request, text: str, *, user_id: str, kind: NoteKind = "action"
) -> None:
    """`text` as a note of the request's incident, written as `user_id` (the note's author
    names them, so `text` carries no mention markup): requests and refusals
    are `action` notes, decisions and outcomes `decision` notes (the daily digest lists those).
    A note that cannot be written (no incident, a guest) is skipped: the audit log has it."""
    if request.incident_id is None:
        return
    try:
        ctx = await write_context(
            deps.users, deps.channels, team_id=request.team_id, user_id=user_id,
            channel_id=request.channel_id, scope="channel",
        )  # fmt: skip
        # Keyword-searchable at once; the vector and neighbour context follow from the index
        # job, so a click or `/incident run` never waits on the embedder.
        draft = NoteDraft(ctx, text, kind, incident=request.incident_id)
        await deps.notes.save_many([draft], vectors_later=True, context_later=True)
    except (OpsmemoryError, SlackApiError) as exc:
        log.info("guarded_note_skipped", extra={"error_type": type(exc).__name__})


def describe(request: Request) -> str:
    """`rollback` service=checkout version=v1.4.2 (#3)."""
    params = " ".join(f"{k}={v}" for k, v in request.params.items())
    return f"action #{request.id} `{request.action}` {params}".rstrip()


async def run_and_report(deps: Deps, client: AsyncWebClient, request_id: int) -> Request:
    """Execute an approved request once and show the outcome in place (the caller remembers
    it with `remember_outcome`, after the executor has been called)."""
    done = await deps.guarded.execute(request_id)
    await refresh(deps, client, request_id)
    return done


async def remember_outcome(deps: Deps, done: Request) -> None:
    if done.state in ("succeeded", "failed", "unknown"):
        dry = " (dry run)" if done.dry_run else ""
        await remember(deps, done, f"Guarded {describe(done)} {done.state}{dry}: {done.outcome}",
                       user_id=done.requester_user, kind="decision")  # fmt: skip


async def _render(deps: Deps, request: Request) -> tuple[str, list[render.Block]]:
    action = deps.guarded.action_of(request)
    decisions = await deps.guarded.decisions(request.id)
    approvers = await deps.guarded.approvers_for(action)
    return render.guarded_request(request, action, decisions, approvers)


async def recover(deps: Deps, client: AsyncWebClient) -> None:
    """At start: an execution cut off by a crash is shown and remembered as 'unknown' (never
    re-run); an approved request that never started runs once now, re-checked first; an open
    request whose message never made it is posted now."""
    interrupted, executed = await deps.guarded.recover()
    for request in interrupted:
        await refresh(deps, client, request.id)
        await remember(deps, request, f"Guarded {describe(request)} unknown: {request.outcome}",
                       user_id=request.requester_user, kind="decision")  # fmt: skip
    for request in executed:
        await refresh(deps, client, request.id)
        await remember_outcome(deps, request)
    await post_unposted(deps, client)
