"""`/incident <subcommand>`: open, note/decision/action, recall, status, runbook, remember,
forget, whoami, help. Replies are ephemeral unless the whole channel should see them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp

from bot.answer import messages
from bot.directory import incident_for, requester_for, write_context
from bot.listeners import bind
from memory.errors import OpsmemoryError, ValidationError
from memory.incidents import Incident

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
    "help",
)
NEEDS_TEXT = {"open", "note", "decision", "action", "recall", "runbook", "remember", "forget"}
SEVERITIES = ("sev1", "sev2", "sev3", "sev4")
STATUSES = ("open", "mitigated", "resolved")


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


def register(app: AsyncApp, deps: Deps) -> None:
    app.command("/incident")(bind(incident, deps=deps))


async def incident(ack: Any, command: dict[str, Any], respond: Any, *, deps: Deps) -> None:
    await ack()
    cmd = parse_incident_command(command.get("text", ""))
    text, in_channel = await _run(deps, cmd, command)
    await respond(text=text, response_type="in_channel" if in_channel else "ephemeral")


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
        inc = await deps.incidents.open(ctx, title=title, severity=severity, channel_id=channel)
        return messages.INCIDENT_OPENED.format(
            id=inc.id, severity=inc.severity, title=inc.title
        ), True
    if cmd.sub in ("note", "decision", "action"):
        inc = await _incident_here(deps, team, channel)
        ctx = await write_context(
            deps.users,
            deps.channels,
            team_id=team,
            user_id=user,
            channel_id=channel,
            scope="channel",
        )
        note = await deps.notes.save(ctx, cmd.args, cmd.sub, incident=inc.id)  # type: ignore[arg-type]
        return messages.NOTE_SAVED.format(
            kind=cmd.sub, id=f"note:{note.id}", incident=inc.id
        ), False
    if cmd.sub == "recall":
        requester = await requester_for(deps.users, team_id=team, user_id=user, channel_id=channel)
        items = await deps.recall.recall(requester, cmd.args, k=5)
        if not items:
            return "Memory has nothing on that here.", False
        return "\n".join(f"• [{i.kind}] {i.text[:300]}  `{i.source}:{i.id}`" for i in items), False
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


async def _incident_here(deps: Deps, team: str, channel: str) -> Incident:
    inc = await incident_for(deps.incidents, deps.channels, team_id=team, channel_id=channel)
    if inc is None:
        raise NoIncidentHere()
    return inc


async def _runbook(deps: Deps, query: str) -> str:
    if deps.knowledge is None:
        return messages.RUNBOOK_NOT_FOUND
    result = await deps.knowledge.search(query, limit=3)
    if result.abstained or not result.hits:
        return messages.RUNBOOK_NOT_FOUND
    lines = []
    for hit in result.hits:
        for sec in hit.sections[:2]:
            label = f"{hit.slug} › {sec.heading}"
            lines.append(f"• {f'<{sec.url}|{label}>' if sec.url else label} — {sec.snippet[:200]}")
    return "\n".join(lines)


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
    return "\n".join(f"• {f.text}  `{f.id}`" for f in known)
