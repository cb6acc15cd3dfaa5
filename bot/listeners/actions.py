"""Buttons: Remember this / Not helpful on answers, action proposals and their approval, and the
App Home controls (delete item, export, forget everything)."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import messages, render
from bot.directory import incident_for, requester_for, write_context
from bot.guarded import modal, thread
from bot.guarded.requests import Refused, UnknownRequest
from bot.listeners import bind
from bot.listeners.home import publish_home
from bot.slack_failures import FAILED
from bot.state.saves import SourceKey
from memory.errors import OpsmemoryError

RUNBOOK_EXCERPT = 300  # characters of a cited runbook section kept with its name

if TYPE_CHECKING:
    from bot.deps import Deps
    from memory.scopes import Requester

log = logging.getLogger("opsmemory.actions")


def register(app: AsyncApp, deps: Deps) -> None:
    app.action("remember_answer")(bind(remember, deps=deps))
    app.action("not_helpful")(bind(not_helpful, deps=deps))
    app.action("propose_action")(bind(propose, deps=deps))
    app.view(modal.CALLBACK_ID)(bind(request_from_modal, deps=deps))
    app.action("approve_action")(bind(decide, name="approve", deps=deps, approve=True))
    app.action("reject_action")(bind(decide, name="reject", deps=deps, approve=False))
    app.action("delete_item")(bind(delete_item, deps=deps))
    app.action("export_memory")(bind(export, deps=deps))
    app.action("forget_everything")(forget_everything)


def _shown_refs(body: dict[str, Any]) -> list[str]:
    """The stored ids the clicked answer showed (the button's value; see render.shown_refs)."""
    try:
        refs = json.loads(str(body["actions"][0].get("value") or "[]"))
    except (ValueError, KeyError, IndexError):
        return []
    return [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else []


def _ids(refs: list[str], prefix: str) -> list[int]:
    return [
        int(r[len(prefix) :]) for r in refs if r.startswith(prefix) and r[len(prefix) :].isdigit()
    ]


async def _shown_texts(deps: Deps, requester: Requester, refs: list[str]) -> list[str]:
    """The texts of what the answer showed, re-read as stored through the clicker's visibility.

    Personal memory (scope user) is never among them: a click can never turn someone's own
    memory into channel memory, even the clicker's own."""
    notes = await deps.notes.shown(requester, _ids(refs, "note:"))
    episodes = await deps.episodes.shown(requester, _ids(refs, "episode:"))
    texts = [n.text for n in notes if n.scope != "user"]
    texts += [e.summary for e in episodes]
    texts += await _runbook_texts(deps, [r for r in refs if r.startswith("runbook:")])
    return list(dict.fromkeys(t.strip() for t in texts if t.strip()))


async def _runbook_texts(deps: Deps, refs: list[str]) -> list[str]:
    """ "slug › heading: section start" for each runbook section the answer cited."""
    if deps.knowledge is None:
        return []
    out: list[str] = []
    for ref in refs:
        slug, _, anchor = ref.removeprefix("runbook:").partition("#")
        try:
            book = await deps.knowledge.get_runbook(slug)
        except OpsmemoryError:
            continue  # renamed or removed since the answer: nothing to save from it
        for sec in book.sections:
            if sec.anchor == anchor:
                start = " ".join(sec.text.split())[:RUNBOOK_EXCERPT]
                out.append(f"{book.slug} › {' › '.join(sec.heading_path)}: {start}")
    return out


async def remember(
    ack: Any, body: dict[str, Any], context: Any, respond: Any, *, deps: Deps
) -> None:
    """Remember this: save the memory the answer showed (as stored, not the rendered answer
    with its [S1] markers) as one fact of the incident, once per answer."""
    await ack()
    channel, ts = body["container"]["channel_id"], body["container"]["message_ts"]
    ctx = await write_context(
        deps.users,
        deps.channels,
        team_id=context.team_id,
        user_id=context.user_id,
        channel_id=channel,
        scope="channel",
        source_ts=ts,
    )
    requester = await requester_for(
        deps.users,
        deps.memberships,
        team_id=context.team_id,
        user_id=context.user_id,
        channel_id=channel,
    )
    texts = await _shown_texts(deps, requester, _shown_refs(body))
    if not texts:
        await respond(
            text=messages.NOTHING_TO_REMEMBER, response_type="ephemeral", replace_original=False
        )
        return
    inc = await incident_for(
        deps.incidents, deps.channels, team_id=context.team_id, channel_id=channel
    )
    key = SourceKey(context.team_id, channel, ts, "fact")
    note = await deps.saves.save_once(
        key,
        lambda: deps.notes.save(ctx, "\n".join(texts), "fact", incident=inc.id if inc else None),
    )
    if note is None:
        await respond(
            text=messages.ALREADY_SAVED, response_type="ephemeral", replace_original=False
        )
        return
    await deps.feedback.record(
        team_id=context.team_id,
        channel_id=channel,
        answer_ts=ts,
        subject_id=ctx.author.subject_id,
        verdict="remembered",
    )
    await respond(
        text=messages.REMEMBERED_SOURCES.format(user=context.user_id, count=len(texts)),
        response_type="in_channel",
        replace_original=False,
    )


async def not_helpful(
    ack: Any, body: dict[str, Any], context: Any, respond: Any, *, deps: Deps
) -> None:
    await ack()
    channel, ts = body["container"]["channel_id"], body["container"]["message_ts"]
    facts = await deps.users.get(context.team_id, context.user_id)
    await deps.feedback.record(
        team_id=context.team_id,
        channel_id=channel,
        answer_ts=ts,
        subject_id=facts.subject_id,
        verdict="not_helpful",
    )
    await respond(text=messages.THANKS_FEEDBACK, response_type="ephemeral", replace_original=False)


async def propose(
    ack: Any, body: dict[str, Any], respond: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    """A suggestion button on an answer: open the "Request an action" modal for the action the
    cited source named, every value left for the person to choose. Nothing is requested or
    filled in from retrieved text."""
    await ack()
    try:
        value = json.loads(body["actions"][0]["value"])
        name, source = str(value["action"]), str(value["source"])
    except (ValueError, KeyError, TypeError):
        name, source = str(body["actions"][0].get("value", "")), "an earlier answer"
    action = deps.guarded.catalogue.get(name)
    if action is None:
        text = messages.GUARDED_UNKNOWN_ACTION.format(
            name=render.escape(name[:40]),
            names=", ".join(f"`{n}`" for n in deps.guarded.catalogue.actions) or "none",
        )
        await respond(text=text, response_type="ephemeral", replace_original=False)
        return
    message = body.get("message") or {}
    view = modal.run_modal(
        action,
        channel_id=body["channel"]["id"],
        thread_ts=message.get("thread_ts") or message.get("ts"),
        source=source,
    )
    await client.views_open(trigger_id=body["trigger_id"], view=view)


async def request_from_modal(
    ack: Any, view: dict[str, Any], context: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    """The modal's submission: check every value and the person's right to request here again
    (the modal may have been open a while), open the request once per modal, then post it.
    Problems are shown in the modal, beside the field they concern."""
    meta = json.loads(view.get("private_metadata") or "{}")
    action = deps.guarded.catalogue.get(str(meta.get("action", "")))
    channel, thread_ts = str(meta.get("channel_id", "")), meta.get("thread_ts")
    if action is None:  # taken out of the catalogue while the modal was open
        names = ", ".join(f"`{n}`" for n in deps.guarded.catalogue.actions) or "none"
        gone = messages.GUARDED_ACTION_GONE.format(
            name=render.escape(str(meta.get("action", ""))[:40]), names=names
        )
        await ack(response_action="update", view=modal.notice(gone))
        return
    values, errors = modal.submitted(view, action)
    where = modal.first_block(action)
    if errors:
        await ack(response_action="errors", errors=errors)
        return
    try:
        inc = await incident_for(
            deps.incidents, deps.channels, team_id=context.team_id, channel_id=channel
        )
        if inc is None:
            raise OpsmemoryError(messages.NOT_IN_AN_INCIDENT)
        # Removed from the channel while the modal was open: no request in a channel they left.
        if channel not in await deps.memberships.channels_of(context.team_id, context.user_id):
            raise OpsmemoryError(messages.GUARDED_NOT_A_MEMBER.format(channel=channel))
        ctx = await write_context(
            deps.users, deps.channels, team_id=context.team_id, user_id=context.user_id,
            channel_id=channel, scope="channel",
        )  # fmt: skip
        request, created = await deps.guarded.request(
            action=action, params=values, team_id=context.team_id, channel_id=channel,
            thread_ts=thread_ts if isinstance(thread_ts, str) else None, incident_id=inc.id,
            incident_resolved=inc.status == "resolved", click_id=f"view:{view['id']}",
            subject_id=ctx.author.subject_id, user_id=context.user_id, source="proposal",
        )  # fmt: skip
    except OpsmemoryError as refused:
        if where is None:
            await ack()
            await client.chat_postEphemeral(
                channel=channel, user=context.user_id, text=str(refused)
            )
        else:
            await ack(response_action="errors", errors={where: str(refused)})
        return
    await ack()  # the request is stored: a crash from here loses only the message
    if not created:
        return
    posted = await thread.post(deps, client, request)
    await thread.remember(
        deps, request, f"Requested {thread.describe(request)} (risk {request.risk}, "
        f"{request.approvals_needed} approval(s) needed).", user_id=context.user_id,
    )  # fmt: skip
    said = messages.GUARDED_REQUESTED_EPHEMERAL if posted.failed is None else (
        messages.GUARDED_POST_DELAYED)  # fmt: skip
    try:
        await client.chat_postEphemeral(
            channel=channel, user=context.user_id, thread_ts=request.thread_ts,
            text=said.format(id=request.id, action=action.name, error=posted.failed),
        )  # fmt: skip
    except FAILED as exc:
        # The request is stored either way, and its message is retried; this is only the notice.
        log.warning("guarded_notice_failed", extra={"error_type": type(exc).__name__})


async def decide(
    ack: Any,
    body: dict[str, Any],
    context: Any,
    client: AsyncWebClient,
    respond: Any,
    *,
    deps: Deps,
    approve: bool,
) -> None:
    """Approve or Deny on a request message: record the decision, update the message in place,
    remember it in the incident; the click that completes the approvals runs the action."""
    await ack()
    facts = await deps.users.get(context.team_id, context.user_id)
    request_id = _request_id(body)
    try:
        result = await deps.guarded.decide(
            request_id,
            team_id=context.team_id,
            user_id=context.user_id,
            subject_id=facts.subject_id,
            approve=approve,
        )
    except Refused as refused:
        request = await deps.guarded.get(request_id)
        verb = "approve" if approve else "deny"
        await thread.remember(
            deps, request, f"Refused: tried to {verb} "
            f"{thread.describe(request)} ({refused.reason}).", user_id=context.user_id,
        )  # fmt: skip
        raise
    request = result.request
    if result.event in ("closed", "duplicate", "expired"):
        if result.event == "expired":
            await thread.refresh(deps, client, request.id)
            text = messages.GUARDED_EXPIRED.format(
                at=request.expires_at.strftime("%Y-%m-%d %H:%M UTC")
            )
        elif result.event == "duplicate":
            text = messages.GUARDED_ALREADY_DECIDED
        else:
            text = messages.GUARDED_CLOSED.format(state=request.state)
        await respond(text=text, response_type="ephemeral", replace_original=False)
        return
    verdict = "approved" if approve else "denied"
    if result.run:  # run first: the notes (redaction, embedding) wait until it is running
        await thread.run_and_report(deps, client, request.id)
    else:
        await thread.refresh(deps, client, request.id)
    await thread.remember(
        deps, request, f"{verdict.capitalize()} {thread.describe(request)}.",
        user_id=context.user_id, kind="decision",
    )  # fmt: skip
    if result.run:
        await thread.remember_outcome(deps, await deps.guarded.get(request.id))


def _request_id(body: dict[str, Any]) -> int:
    value = str(body["actions"][0].get("value", ""))
    if not value.isdigit():
        raise UnknownRequest()
    return int(value)


async def delete_item(
    ack: Any, body: dict[str, Any], context: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    await ack()
    facts = await deps.users.get(context.team_id, context.user_id)
    await deps.controls.forget_item(facts.subject_id, body["actions"][0]["value"])
    await publish_home(deps, client, team_id=context.team_id, user_id=context.user_id)


async def export(ack: Any, context: Any, client: AsyncWebClient, *, deps: Deps) -> None:
    """Export my memory: DM the person everything memory holds of theirs, in parts."""
    await ack()
    facts = await deps.users.get(context.team_id, context.user_id)
    data = await deps.controls.export(facts.subject_id)
    dump = json.dumps(data, indent=1, ensure_ascii=False, default=str)
    parts = render.export_messages(dump)
    for n, part in enumerate(parts, 1):
        # One post per second per channel (Slack's limit): a long export takes a while.
        await deps.pacer.wait(context.user_id)
        text = messages.EXPORT_PART.format(part=n, parts=len(parts))
        await client.chat_postMessage(channel=context.user_id, text=text, blocks=part)


async def forget_everything(ack: Any, body: dict[str, Any], client: AsyncWebClient) -> None:
    """Forget everything: open the confirmation modal (its submission does the forgetting)."""
    await ack()
    await client.views_open(trigger_id=body["trigger_id"], view=render.forget_everything_modal())
