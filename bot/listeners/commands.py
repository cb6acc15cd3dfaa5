"""`/incident <subcommand>`: open, note/decision/action, recall, status, runbook, remember,
forget, whoami, help. Replies are ephemeral unless the whole channel should see them.

Writes are committed, then confirmed in the ack itself: Slack never retries a slash command, so a
confirmation the person saw must mean the write is stored (issue 18). Reads are acked first and
answer on response_url, since a recall may wait on the embedder longer than Slack's 3 seconds.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import messages, render
from bot.answer.compose import memory_label, shown_text
from bot.directory import incident_for, open_incident, requester_for, write_context
from bot.guarded import thread
from bot.guarded.requests import parse_run
from bot.listeners import bind
from knowledge.names import looks_like_a_name
from knowledge.search import see_also
from memory.errors import OpsmemoryError, ValidationError
from memory.incidents import Incident
from memory.notes.notes import NoteDraft
from memory.recall.recall import RecallItem

if TYPE_CHECKING:
    from bot.deps import Deps

SUBCOMMANDS = (
    "open",
    "note",
    "decision",
    "action",
    "recall",
    "status",
    "runbook",
    "remember",
    "forget",
    "whoami",
    "run",
    "help",
)
NEEDS_TEXT = {"open", "note", "decision", "action", "recall", "runbook", "remember", "forget"}
SEVERITIES = ("sev1", "sev2", "sev3", "sev4")
STATUSES = ("open", "mitigated", "resolved")
NOTE_SUBCOMMANDS = ("note", "decision", "action")
WRITES = {"open", *NOTE_SUBCOMMANDS, "remember", "forget", "run"}
# Slack shows "didn't respond in time" after 3 s; a write confirmed later than this is also
# confirmed on response_url, so a person who saw the timeout learns the write was stored.
ACK_BUDGET_S = 2.5


class UsageError(ValidationError):
    """The command text does not parse; the error handler appends the usage."""


class NoIncidentHere(OpsmemoryError):
    def __init__(self) -> None:
        super().__init__(messages.NOT_IN_AN_INCIDENT)


@dataclass(frozen=True)
class IncidentCommand:
    sub: str
    args: str


def parse_incident_command(text: str) -> IncidentCommand:
    """Split `/incident` text into subcommand and arguments; raise UsageError naming the problem."""
    words = (text or "").strip().split(maxsplit=1)
    if not words:
        raise UsageError("Tell me what to do: `/incident` needs a subcommand.")
    sub, args = words[0].lower(), (words[1].strip() if len(words) > 1 else "")
    if sub not in SUBCOMMANDS:
        shown = sub if len(sub) <= 20 else sub[:20] + "…"
        raise UsageError(f"`{shown}` is not an /incident subcommand.")
    if sub in NEEDS_TEXT and not args:
        raise UsageError(f"`/incident {sub}` needs text after it.")
    if sub == "status" and args and args.lower() not in STATUSES:
        raise UsageError("Status must be one of open, mitigated or resolved.")
    return IncidentCommand(sub, args)


def is_write(text: str) -> bool:
    """Whether `/incident <text>` stores something (status with an argument changes it)."""
    words = (text or "").split()
    sub = words[0].lower() if words else ""
    return sub in WRITES or (sub == "status" and len(words) > 1)


def register(app: AsyncApp, deps: Deps) -> None:
    app.middleware(ack_reads_first)
    app.command("/incident")(bind(incident, deps=deps))


async def ack_reads_first(ack: Any, body: dict[str, Any], next: Any) -> None:
    """Ack an `/incident` read before it runs. Here, in the dispatch path, not in the listener:
    Bolt 1.30 drops an ack when its listener fails within ~10 ms of it, then answers 404."""
    if body.get("command") == "/incident" and not is_write(body.get("text", "")):
        await ack()
    await next()


async def incident(
    ack: Any, command: dict[str, Any], respond: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    """Run the subcommand; a write's reply is its ack, a read's goes to response_url."""
    started = time.monotonic()
    cmd = parse_incident_command(command.get("text", ""))
    after_ack: Callable[[Any], Awaitable[None]] | None = None
    if cmd.sub == "run":
        (text, after_ack), in_channel = await _run_action(deps, cmd.args, command, client), False
    else:
        text, in_channel = await _run(deps, cmd, command)
    response_type = "in_channel" if in_channel else "ephemeral"
    if not is_write(command.get("text", "")):
        await respond(text=text, response_type=response_type)
        return
    await ack(text=text, response_type=response_type)  # committed: now the person may see it
    if time.monotonic() - started > ACK_BUDGET_S:
        await respond(text=text, response_type=response_type)
    if after_ack is not None:  # a failure here is told to the person by the error handler
        await after_ack(respond)


async def _run(deps: Deps, cmd: IncidentCommand, c: dict[str, Any]) -> tuple[str, bool]:
    team, user, channel = c["team_id"], c["user_id"], c["channel_id"]
    if cmd.sub == "help":
        return messages.USAGE, False
    if cmd.sub == "open":
        first, _, rest = cmd.args.partition(" ")
        severity, title = (
            (first.lower(), rest) if first.lower() in SEVERITIES else ("sev3", cmd.args)
        )
        ctx = await write_context(
            deps.users,
            deps.channels,
            team_id=team,
            user_id=user,
            channel_id=channel,
            scope="channel",
        )
        inc = await open_incident(
            deps.incidents, deps.channels, ctx, title=title, severity=severity, channel_id=channel
        )
        return messages.INCIDENT_OPENED.format(
            id=inc.id, severity=inc.severity, title=render.one_line(inc.title, 200)
        ), True
    if cmd.sub in NOTE_SUBCOMMANDS:
        inc = await _incident_here(deps, team, channel)
        ctx = await write_context(
            deps.users,
            deps.channels,
            team_id=team,
            user_id=user,
            channel_id=channel,
            scope="channel",
        )
        # Redaction and the commit come before the ack; the vector and the note's place in its
        # neighbours' context come after it, from the index_vectors job within a minute
        # (keyword recall finds the note at once). Both are queued in the notes table, so a
        # crash loses neither; embedding and rewriting neighbour rows held acks (bench.ack).
        draft = NoteDraft(ctx, cmd.args, cmd.sub, incident=inc.id)  # type: ignore[arg-type]
        (note,) = await deps.notes.save_many([draft], vectors_later=True, context_later=True)
        return messages.NOTE_SAVED.format(
            kind=cmd.sub, id=f"note:{note.id}", incident=inc.id
        ), False
    if cmd.sub == "recall":
        requester = await requester_for(
            deps.users, deps.memberships, team_id=team, user_id=user, channel_id=channel
        )
        here = await incident_for(deps.incidents, deps.channels, team_id=team, channel_id=channel)
        items = await deps.recall.relevant(requester, cmd.args, listing=True)
        if not items:
            return messages.NOTHING_IN_MEMORY_HERE, False
        return recall_lines(items, here=here.id if here else None), False
    if cmd.sub == "status":
        inc = await _incident_here(deps, team, channel)
        if cmd.args:
            # Changing status is a write: the same guest / other-organisation refusal applies.
            await write_context(
                deps.users, deps.channels, team_id=team, user_id=user, channel_id=channel,
                scope="channel",
            )  # fmt: skip
            inc = await deps.incidents.set_status(team, inc.id, cmd.args.lower())
        opened = inc.opened_at.strftime("%Y-%m-%d %H:%M UTC")
        return messages.STATUS.format(id=inc.id, status=inc.status, opened=opened), bool(cmd.args)
    if cmd.sub == "runbook":
        return await _runbook(deps, cmd.args), False
    return await _personal(deps, cmd, team=team, user=user, channel=channel), False


async def _run_action(
    deps: Deps, args: str, c: dict[str, Any], client: AsyncWebClient
) -> tuple[str, Callable[[Any], Awaitable[None]] | None]:
    """`/incident run <action> key=value …`: open a guarded request; the confirmation to the
    requester, then what runs after the ack: its message (with Approve and Deny) to the
    channel. The request is committed before the ack; posting (paced per channel, so it may
    wait) must not hold the ack. One request per command invocation (its trigger_id), so a
    replayed delivery opens nothing new."""
    if not deps.guarded.catalogue.actions:
        return messages.GUARDED_NO_CATALOGUE, None
    team, user, channel = c["team_id"], c["user_id"], c["channel_id"]
    action, params = parse_run(args, deps.guarded.catalogue)
    inc = await _incident_here(deps, team, channel)
    ctx = await write_context(
        deps.users, deps.channels, team_id=team, user_id=user, channel_id=channel, scope="channel"
    )
    request, created = await deps.guarded.request(
        action=action, params=params, team_id=team, channel_id=channel, thread_ts=None,
        incident_id=inc.id, incident_resolved=inc.status == "resolved",
        click_id=str(c.get("trigger_id") or ""), subject_id=ctx.author.subject_id,
        user_id=user, source="/incident run",
    )  # fmt: skip
    if not created:
        return messages.GUARDED_DUPLICATE_REQUEST.format(id=request.id), None

    async def post_request(respond: Any) -> None:
        posted = await thread.post(deps, client, request)
        if posted.failed is not None:
            # Through the command's response_url: the Web API just failed, this is not it.
            await respond(
                text=messages.GUARDED_POST_DELAYED.format(
                    id=request.id, action=action.name, error=posted.failed
                ),
                response_type="ephemeral",
            )
        await thread.remember(
            deps, request, f"Requested {thread.describe(request)} (risk {request.risk}, "
            f"{request.approvals_needed} approval(s) needed).", user_id=user,
        )  # fmt: skip

    return messages.GUARDED_REQUESTED_EPHEMERAL.format(id=request.id, action=action.name), (
        post_request
    )


def recall_lines(items: list[RecallItem], *, here: str | None) -> str:
    """The answer to `/incident recall`: best first, each with what it is, who said it, when,
    a link to where it was said, and its id (for `/incident forget`)."""
    lines = []
    for item in items:
        label = memory_label(item, here=here)
        shown = render.bot_link(item.permalink, label) if item.permalink else render.escape(label)
        text = render.one_line(shown_text(item), 300)
        lines.append(f"• {shown} — {text}  `{item.source}:{item.id}`")
    return "\n".join(lines)


async def _incident_here(deps: Deps, team: str, channel: str) -> Incident:
    inc = await incident_for(deps.incidents, deps.channels, team_id=team, channel_id=channel)
    if inc is None:
        raise NoIncidentHere()
    return inc


async def _runbook(deps: Deps, query: str) -> str:
    """A slug or alert name returns that runbook (through `get_runbook`); a slug-shaped word
    that names none gets the closest real slugs; anything else is searched."""
    if deps.knowledge is None:
        return messages.RUNBOOKS_NONE
    knowledge = deps.knowledge
    words = query.split()
    slug = await knowledge.resolve(query) if len(words) == 1 else None
    if slug is not None:
        return render.runbook_reply(await knowledge.lookup(slug))
    if len(words) == 1 and looks_like_a_name(query):
        closest = await knowledge.closest_slugs(query)
        total = len((await knowledge.corpus()).slugs)
        return messages.unknown_runbook(render.runbook_words(query, 80), closest, total)
    result = await knowledge.search(query, limit=3)
    if result.abstained or not result.hits:
        closest = await knowledge.closest_slugs(query)
        return messages.runbook_no_match(render.runbook_words(query), closest)
    top, *others = result.hits
    return render.runbook_reply(top, see_also(top, others))


async def _personal(deps: Deps, cmd: IncidentCommand, *, team: str, user: str, channel: str) -> str:
    facts = await deps.users.get(team, user)
    if cmd.sub == "remember":
        ctx = await write_context(
            deps.users, deps.channels, team_id=team, user_id=user, channel_id=channel, scope="user"
        )
        fact = await deps.profiles.add_fact(ctx, cmd.args)
        return messages.FACT_SAVED.format(id=fact.id)
    if cmd.sub == "forget":
        await deps.controls.forget_item(facts.subject_id, cmd.args.split()[0])
        return messages.FORGOTTEN.format(id=cmd.args.split()[0])
    known = await deps.profiles.facts(facts.subject_id)  # whoami
    if not known:
        return messages.NOTHING_REMEMBERED
    return "\n".join(f"• {render.one_line(f.text, 300)}  `{f.id}`" for f in known)
