"""The request state machine: requested → approved | denied | expired → executing → succeeded |
failed | unknown. Every move is a compare-and-set in the database, so of any number of clicks,
replicas or restarts exactly one call executes an approved request, and an execution interrupted
by a crash becomes 'unknown' (reported, never re-run)."""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from bot.answer import messages
from bot.guarded import executors
from bot.guarded.catalogue import Action, Catalogue
from memory.clock import Clock, iso, parse_iso, utc_now
from memory.errors import NotFound, PermissionDenied, RedactionFailed, ValidationError
from memory.store import guarded as store

if TYPE_CHECKING:
    import aiohttp

    from bot.guarded.approvers import ApproverDirectory
    from memory.incidents import Incidents
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database, Row, Tx

State = Literal[
    "requested", "approved", "denied", "expired", "executing", "succeeded", "failed", "unknown"
]
OPEN_STATES = ("requested",)


class BadRunCommand(ValidationError):
    """`/incident run …` names no known action or has a bad parameter."""


class Refused(PermissionDenied):
    """A person may not do this to this request; `event` is what the audit records."""

    def __init__(self, text: str, *, reason: str) -> None:
        self.reason = reason
        super().__init__(text)


class UnknownRequest(NotFound):
    def __init__(self) -> None:
        super().__init__(messages.GUARDED_UNKNOWN_REQUEST)


@dataclass(frozen=True)
class Request:
    id: int
    team_id: str
    channel_id: str
    thread_ts: str | None
    message_ts: str | None
    incident_id: str | None
    action: str
    params: dict[str, str]
    params_hash: str
    requested_by: str
    requester_user: str
    source: str
    risk: str
    approvals_needed: int
    dry_run: bool
    state: State
    created_at: datetime
    expires_at: datetime
    outcome: str | None

    @classmethod
    def of(cls, row: Row) -> Request:
        return cls(
            id=int(row["id"]),
            team_id=row["team_id"],
            channel_id=row["channel_id"],
            thread_ts=row["thread_ts"],
            message_ts=row["message_ts"],
            incident_id=row["incident_id"],
            action=row["action"],
            params=json.loads(row["params_json"]),
            params_hash=row["params_hash"],
            requested_by=row["requested_by"],
            requester_user=row["requester_user"],
            source=row["source"],
            risk=row["risk"],
            approvals_needed=int(row["approvals_needed"]),
            dry_run=bool(row["dry_run"]),
            state=row["state"],
            created_at=parse_iso(row["created_at"]),
            expires_at=parse_iso(row["expires_at"]),
            outcome=row["outcome"],
        )


@dataclass(frozen=True)
class Decision:
    approver: str
    approver_user: str
    verdict: Literal["approve", "deny"]


@dataclass(frozen=True)
class Decided:
    """What one click did: `event` is recorded, `request` is the state after it, and `run` is
    True for the one click that must now execute it."""

    request: Request
    decisions: tuple[Decision, ...]
    event: Literal["approved", "denied", "expired", "duplicate", "closed"]
    run: bool = False


def params_hash(action: str, params: Mapping[str, str]) -> str:
    canonical = json.dumps({"action": action, "params": dict(params)}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def parse_run(text: str, catalogue: Catalogue) -> tuple[Action, dict[str, str]]:
    """`<action> key=value …` → the action and its checked values; BadRunCommand names the
    first problem and shows the usage. Values may be quoted ("a b"); nothing is evaluated."""
    try:
        words = shlex.split(text)
    except ValueError:
        raise BadRunCommand(messages.GUARDED_UNBALANCED_QUOTES) from None
    names = ", ".join(f"`{n}`" for n in catalogue.actions) or "none"
    if not words:
        raise BadRunCommand(messages.GUARDED_NAME_AN_ACTION.format(names=names))
    action = catalogue.get(words[0].lower())
    if action is None:
        shown = words[0][:40]
        raise BadRunCommand(messages.GUARDED_UNKNOWN_ACTION.format(name=shown, names=names))
    params: dict[str, str] = {}
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq:
            raise BadRunCommand(
                messages.GUARDED_NOT_KEY_VALUE.format(word=word[:40], usage=action.usage())
            )
        spec = action.parameters.get(key)
        if spec is None:
            raise BadRunCommand(
                messages.GUARDED_UNKNOWN_PARAM.format(key=key[:30], usage=action.usage())
            )
        problem = spec.check(value)
        if problem:
            raise BadRunCommand(
                messages.GUARDED_BAD_VALUE.format(key=key, problem=problem, usage=action.usage())
            )
        params[key] = value
    missing = [k for k in action.parameters if k not in params]
    if missing:
        raise BadRunCommand(
            messages.GUARDED_MISSING_PARAMS.format(keys=", ".join(missing), usage=action.usage())
        )
    return action, params


class GuardedActions:
    """Requests, decisions and the one execution of catalogue actions."""

    def __init__(
        self,
        db: Database,
        catalogue: Catalogue,
        approvers: ApproverDirectory,
        redactor: Redactor,
        *,
        webhook_secret: str | None = None,
        session: aiohttp.ClientSession | None = None,
        incidents: Incidents | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self._db, self.catalogue, self._approvers = db, catalogue, approvers
        self._redactor, self._secret, self._session = redactor, webhook_secret, session
        self._incidents, self._clock = incidents, clock

    async def get(self, request_id: int) -> Request:
        row = await store.get_request(self._db, request_id)
        if row is None:
            raise UnknownRequest()
        return Request.of(row)

    async def decisions(self, request_id: int) -> tuple[Decision, ...]:
        rows = await store.decisions(self._db, request_id)
        return tuple(Decision(r[0], r[1], r[2]) for r in rows)

    def action_of(self, request: Request) -> Action:
        action = self.catalogue.get(request.action)
        if action is None:
            raise UnknownRequest()
        return action

    async def approvers_for(self, action: Action) -> frozenset[str]:
        return await self._approvers.allowed(action)

    async def request(
        self,
        *,
        action: Action,
        params: dict[str, str],
        team_id: str,
        channel_id: str,
        thread_ts: str | None,
        incident_id: str | None,
        incident_resolved: bool,
        click_id: str,
        subject_id: str,
        user_id: str,
        source: str,
    ) -> tuple[Request, bool]:
        """Open a request (or return the one this click already opened): (request, created).
        Refuses what could never run: a parameter that redaction would change (the audit may
        not hold it), a resolved incident, or an action nobody but the requester may approve."""
        if params:
            redacted = await self._redactor.redact_many(list(params.values()))
            for key, r in zip(params, redacted, strict=True):
                if r.text != params[key]:
                    raise BadRunCommand(messages.GUARDED_SECRET_PARAM.format(key=key))
        now = self._clock()
        place = {"team_id": team_id, "channel_id": channel_id, "incident_id": incident_id,
                 "action": action.name}  # fmt: skip
        refusal: Refused | None = None
        eligible = await self._approvers.allowed(action)
        if not action.requester_may_approve:
            eligible = eligible - {user_id}
        if incident_resolved and not action.allow_when_resolved:
            refusal = Refused(messages.GUARDED_INCIDENT_RESOLVED.format(action=action.name),
                              reason="incident resolved")  # fmt: skip
        elif len(eligible) < action.approvals_required:
            refusal = Refused(
                messages.GUARDED_NEVER_APPROVABLE.format(
                    action=action.name, needed=action.approvals_required, eligible=len(eligible)
                ),
                reason="cannot ever be approved",
            )
        if refusal is not None:
            async with self._db.transaction() as tx:
                await self._audit(tx, place, None, "refused", subject_id,
                                  {"reason": f"request: {refusal.reason}", "parameters": params})  # fmt: skip
            raise refusal
        values = {
            "team_id": team_id,
            "channel_id": channel_id,
            "thread_ts": thread_ts,
            "incident_id": incident_id,
            "click_id": click_id,
            "action": action.name,
            "params_json": json.dumps(params, sort_keys=True),
            "params_hash": params_hash(action.name, params),
            "requested_by": subject_id,
            "requester_user": user_id,
            "source": source,
            "risk": action.risk,
            "approvals_needed": action.approvals_required,
            "dry_run": int(action.dry_run),
            "created_at": iso(now),
            "expires_at": iso(now + action.time_to_live),
        }
        async with self._db.transaction() as tx:
            request_id, created = await store.insert_request(tx, values)
            if created:
                await self._audit(
                    tx, values, request_id, "requested", subject_id,
                    {"parameters": params, "source": source, "dry_run": action.dry_run},
                )  # fmt: skip
        return await self.get(request_id), created

    async def set_message(self, request_id: int, message_ts: str) -> None:
        async with self._db.transaction() as tx:
            await store.set_message(tx, request_id, message_ts)

    async def decide(
        self, request_id: int, *, team_id: str, user_id: str, subject_id: str, approve: bool
    ) -> Decided:
        """Record one approver's Approve or Deny. Refused (and audited) for someone not allowed
        to decide, and for approving one's own request when the action forbids it."""
        current = await self.get(request_id)
        if current.team_id != team_id:
            raise UnknownRequest()
        if current.state != "requested":  # answered without the writer; the SQL guards races
            return Decided(current, await self.decisions(request_id), "closed")
        action = self.action_of(current)
        allowed = await self._approvers.allowed(action)
        verb = "approve" if approve else "deny"
        if user_id not in allowed:
            await self.refusal(current, subject_id, f"{verb}: not an approver")
            raise Refused(
                messages.GUARDED_NOT_APPROVER.format(verb=verb, action=action.name,
                                                     who=_people(allowed)),
                reason="not an approver",
            )  # fmt: skip
        if approve and subject_id == current.requested_by and not action.requester_may_approve:
            await self.refusal(current, subject_id, "approve: own request")
            raise Refused(messages.GUARDED_OWN_REQUEST, reason="own request")
        now = iso(self._clock())
        async with self._db.transaction() as tx:
            row = await store.get_request(tx, request_id)
            assert row is not None
            locked = Request.of(row)
            if locked.state != "requested":
                event: Literal["approved", "denied", "expired", "duplicate", "closed"] = "closed"
                run = False
            elif self._clock() >= locked.expires_at:
                await store.move(tx, request_id, from_state="requested", to_state="expired", at=now)
                await self._audit_request(tx, locked, "expired", "opsmemory", {})
                event, run = "expired", False
            elif not await store.add_decision(
                tx, request_id, approver=subject_id, approver_user=user_id,
                verdict="approve" if approve else "deny", at=now,
            ):  # fmt: skip
                event, run = "duplicate", False
            elif not approve:
                await store.move(tx, request_id, from_state="requested", to_state="denied", at=now)
                await self._audit_request(tx, locked, "denied", subject_id, {})
                event, run = "denied", False
            else:
                await self._audit_request(tx, locked, "approved", subject_id, {})
                rows = await store.decisions(tx, request_id)
                approvals = sum(1 for r in rows if r[2] == "approve")
                run = approvals >= locked.approvals_needed and await store.move(
                    tx, request_id, from_state="requested", to_state="approved", at=now
                )
                event = "approved"
        return Decided(await self.get(request_id), await self.decisions(request_id), event, run)

    async def refusal(self, request: Request, subject_id: str, why: str) -> None:
        async with self._db.transaction() as tx:
            await self._audit_request(tx, request, "refused", subject_id, {"reason": why})

    async def execute(self, request_id: int) -> Request:
        """Run an approved request once. Re-checks first (approvers still allowed, not expired,
        parameters exactly those approved); then 'executing' is committed before the executor
        is called, and only the call whose compare-and-set won runs it."""
        request = await self.get(request_id)
        if request.state != "approved":
            return request
        action = self.action_of(request)
        problem = await self._recheck(request, action)
        now = iso(self._clock())
        async with self._db.transaction() as tx:
            if problem is not None:
                if await store.move(tx, request_id, from_state="approved", to_state="failed",
                                    at=now, outcome=f"not run: {problem}"):  # fmt: skip
                    await self._audit_request(tx, request, "failed", "opsmemory",
                                              {"reason": f"not run: {problem}"})  # fmt: skip
                won = False
            else:
                won = await store.move(
                    tx, request_id, from_state="approved", to_state="executing", at=now
                )
                if won:
                    await self._audit_request(tx, request, "executing", "opsmemory",
                                              {"dry_run": action.dry_run})  # fmt: skip
        if not won:
            return await self.get(request_id)
        outcome = await executors.run(
            action,
            request.params,
            request_id=request.id,
            meta={"team_id": request.team_id, "channel_id": request.channel_id,
                  "incident_id": request.incident_id or ""},
            secret=self._secret,
            session=self._session,
        )  # fmt: skip
        # Executor output (stdout, a webhook's reply) is stored and posted: redact it always,
        # and withhold it when redaction fails (fail closed), never the raw text.
        try:
            detail = (await self._redactor.redact(outcome.detail)).text
        except RedactionFailed:
            detail = "(output withheld: it could not be checked for secrets)"
        async with self._db.transaction() as tx:
            await store.move(tx, request_id, from_state="executing", to_state=outcome.state,
                             at=iso(self._clock()), outcome=detail)  # fmt: skip
            await self._audit_request(tx, request, outcome.state, "opsmemory", {"detail": detail})
        return await self.get(request_id)

    async def recover(self) -> tuple[list[Request], list[Request]]:
        """After a restart: executions without an outcome become 'unknown' (never re-run);
        approved requests that never started are executed once. (interrupted, executed)."""
        interrupted = []
        for request_id in await store.ids_in_state(self._db, "executing"):
            request = await self.get(request_id)
            async with self._db.transaction() as tx:
                moved = await store.move(
                    tx, request_id, from_state="executing", to_state="unknown",
                    at=iso(self._clock()), outcome=messages.GUARDED_INTERRUPTED,
                )  # fmt: skip
                if moved:
                    await self._audit_request(tx, request, "unknown", "opsmemory",
                                              {"reason": "restarted while executing"})  # fmt: skip
            if moved:
                interrupted.append(await self.get(request_id))
        executed = [
            await self.execute(request_id)
            for request_id in await store.ids_in_state(self._db, "approved")
        ]
        return interrupted, executed

    async def unposted(self) -> list[Request]:
        """Open requests nobody can decide yet: their message was never posted (those past
        their expiry are left to `expire_due`)."""
        now = self._clock()
        requests = [await self.get(i) for i in await store.ids_unposted(self._db)]
        return [r for r in requests if now < r.expires_at]

    async def expire_due(self) -> list[Request]:
        """Move every 'requested' row past its expiry to 'expired' (the scheduler calls this)."""
        expired = []
        now = self._clock()
        for request_id in await store.ids_in_state(self._db, "requested"):
            request = await self.get(request_id)
            if now < request.expires_at:
                continue
            async with self._db.transaction() as tx:
                moved = await store.move(
                    tx, request_id, from_state="requested", to_state="expired", at=iso(now)
                )
                if moved:
                    await self._audit_request(tx, request, "expired", "opsmemory", {})
            if moved:
                expired.append(await self.get(request_id))
        return expired

    async def _recheck(self, request: Request, action: Action) -> str | None:
        if self._clock() >= request.expires_at:
            return "the request expired before it ran"
        if params_hash(request.action, request.params) != request.params_hash:
            return "the parameters differ from those approved"
        allowed = await self._approvers.allowed(action, fresh=True)
        approvers = [d for d in await self.decisions(request.id) if d.verdict == "approve"]
        still = [d for d in approvers if d.approver_user in allowed]
        if len(still) < request.approvals_needed:
            return "an approver is no longer allowed to approve it"
        if self._incidents is not None and request.incident_id and not action.allow_when_resolved:
            incident = await self._incidents.get(request.team_id, request.incident_id)
            if incident.status == "resolved":
                return f"{incident.id} was resolved after the request"
        return None

    async def _audit_request(
        self, tx: Tx, request: Request, event: str, actor: str, detail: dict[str, object]
    ) -> None:
        await store.write_audit(
            tx,
            at=iso(self._clock()),
            team_id=request.team_id,
            channel_id=request.channel_id,
            incident_id=request.incident_id,
            request_id=request.id,
            action=request.action,
            event=event,
            actor=actor,
            detail=detail,
        )

    async def _audit(
        self,
        tx: Tx,
        values: Mapping[str, object],
        request_id: int | None,
        event: str,
        actor: str,
        detail: dict[str, object],
    ) -> None:
        await store.write_audit(
            tx,
            at=iso(self._clock()),
            team_id=str(values["team_id"]),
            channel_id=str(values["channel_id"]),
            incident_id=values["incident_id"],  # type: ignore[arg-type]
            request_id=request_id,
            action=str(values["action"]),
            event=event,
            actor=actor,
            detail=detail,
        )


def _people(users: frozenset[str]) -> str:
    return ", ".join(f"<@{u}>" for u in sorted(users)) or "nobody (the catalogue lists no one)"
