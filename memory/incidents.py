"""The incident registry: canonical ids, one channel per incident, status and timestamps.

Canonical id form: lowercase "inc-" followed by the number without leading zeros ("inc-42").
"inc-42", "INC-0042", "inc 42", "#42" and "42" all parse to it (ASCII digits, 1..999999999), so
people can type whichever they like and the database holds one spelling. Numbers are per Slack
team. Incidents are opened explicitly (`/incident open`) or recognised from the channel name
(default pattern `^inc-`).

Numbering (issue 18): the bot's numbers come from a per-team sequence (the smallest free number
after the last one it handed out), which channel names never move. A channel whose name carries
a number right after the pattern ("inc-123-checkout", "inc-0042") keeps it only when it is sane
(1..999999) and free in the team; otherwise ("inc-0", "inc--5", "inc-1234567", non-ASCII digits,
a number already taken) it gets the next sequence number. So no name can push the sequence
towards what `parse_incident_id` refuses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from memory.clock import Clock, iso, parse_iso, utc_now
from memory.errors import (
    EmptyText,
    InvalidIncidentField,
    InvalidIncidentId,
    RedactionFailed,
    UnknownIncident,
)
from memory.scopes import Requester, WriteContext
from memory.store import incidents as store
from memory.store.audit import write_audit

if TYPE_CHECKING:
    from datetime import datetime

    from memory.redaction.redactor import Redactor
    from memory.store.db import Database, Row, Tx

Status = Literal["open", "mitigated", "resolved"]
STATUSES: tuple[str, ...] = ("open", "mitigated", "resolved")
SEVERITIES: tuple[str, ...] = ("sev1", "sev2", "sev3", "sev4", "sev5")
SYSTEM_SUBJECT = "opsmemory"  # owner of incidents recognised from a channel name
MAX_TITLE = 200
MAX_CHANNEL_NUMBER = 999_999  # the highest number a channel name may claim
_ID = re.compile(r"^\s*(?:inc[-_ ]?|#)?0*([0-9]{1,9})\s*$", re.IGNORECASE)
# The channel's own number: ASCII digits forming the whole first word after the pattern.
_LEADING_NUMBER = re.compile(r"([0-9]+)(?:[-_]|$)")


def parse_incident_id(text: str) -> str:
    """Canonical "inc-N" from "inc-42", "INC-0042", "#42" or "42"; raises InvalidIncidentId."""
    match = _ID.match(text or "")
    if not match or int(match[1]) == 0:
        raise InvalidIncidentId(got=text or "")
    return f"inc-{int(match[1])}"


def channel_title(channel_name: str, pattern: re.Pattern[str]) -> str:
    """A readable title from an incident channel's name: the prefix and its number dropped, the
    separators made spaces ("inc-123-checkout-5xx" → "checkout 5xx"); the name when nothing
    is left."""
    rest = pattern.sub("", channel_name or "", count=1).lstrip("-_")
    rest = _LEADING_NUMBER.sub("", rest, count=1) if _LEADING_NUMBER.match(rest) else rest
    title = re.sub(r"[-_]+", " ", rest).strip()
    return title or channel_name


def channel_number(channel_name: str, pattern: re.Pattern[str]) -> int | None:
    """The number a channel's name claims ("inc-123-checkout" → 123), or None when the name does
    not match the pattern or its number is not sane (see the module docstring)."""
    match = pattern.search(channel_name or "")
    if match is None:
        return None
    rest = channel_name[match.end() :]
    if rest[:1] in ("-", "_") and not match.group(0).endswith(("-", "_")):
        rest = rest[1:]  # a pattern without its separator ("^inc"): allow exactly one
    found = _LEADING_NUMBER.match(rest)
    digits = found[1].lstrip("0") if found else ""
    # Counting digits bounds it before int() (which refuses strings past 4,300 digits).
    if not digits or len(digits) > len(str(MAX_CHANNEL_NUMBER)):
        return None  # no number, zero, or past 999999
    return int(digits)


@dataclass(frozen=True)
class Incident:
    id: str
    team_id: str
    channel_id: str
    channel_is_private: bool
    title: str
    severity: str
    status: str
    opened_at: datetime
    resolved_at: datetime | None

    @property
    def number(self) -> int:
        return int(self.id.removeprefix("inc-"))


def _incident(row: Row) -> Incident:
    return Incident(
        id=row["id"],
        team_id=row["team_id"],
        channel_id=row["channel_id"],
        channel_is_private=bool(row["channel_is_private"]),
        title=row["title"],
        severity=row["severity"],
        status=row["status"],
        opened_at=parse_iso(row["opened_at"]),
        resolved_at=parse_iso(row["resolved_at"]) if row["resolved_at"] else None,
    )


class Incidents:
    """Opens, finds and updates incidents; every write leaves an audit row."""

    def __init__(
        self,
        db: Database,
        clock: Clock = utc_now,
        *,
        channel_pattern: str = "^inc-",
        redactor: Redactor | None = None,
    ):
        """`redactor` checks titles people type; the bot always passes one. Without it (reads,
        evaluation data) `open` refuses to store a title rather than store it unchecked."""
        self._db = db
        self._clock = clock
        self._pattern = re.compile(channel_pattern)
        self._redactor = redactor

    async def open(
        self,
        ctx: WriteContext,
        *,
        title: str,
        severity: str = "sev3",
        channel_id: str,
        channel_name: str = "",
    ) -> Incident:
        """Open a new incident bound to `channel_id`: the number its name claims if that is sane
        and free, else the team's next sequence number."""
        title = " ".join((title or "").split())
        if not title:
            raise EmptyText("The incident title")
        if len(title) > MAX_TITLE:
            raise InvalidIncidentField(f"Incident titles can be at most {MAX_TITLE} characters.")
        severity = severity.lower().strip()
        if severity not in SEVERITIES:
            raise InvalidIncidentField("Severity must be one of sev1, sev2, sev3, sev4 or sev5.")
        title = await self._redacted(title)
        async with self._db.transaction() as tx:
            # A channel named like an incident registers itself on its first message; opening
            # it explicitly then names that incident instead of failing as "already tracked".
            adopted = await store.adopt(
                tx,
                team_id=ctx.team_id,
                channel_id=channel_id,
                from_owner=SYSTEM_SUBJECT,
                owner=ctx.author.subject_id,
                title=title,
                severity=severity,
            )
            if adopted is not None:
                return _incident(adopted)
            return await self._insert(
                tx,
                team_id=ctx.team_id,
                channel_id=channel_id,
                is_private=ctx.channel_is_private,
                owner=ctx.author.subject_id,
                title=title,
                severity=severity,
                number=channel_number(channel_name, self._pattern),
            )

    async def _redacted(self, title: str) -> str:
        """The title as it may be stored: secrets and PII replaced (fail closed)."""
        if self._redactor is None:
            raise RedactionFailed()
        return (await self._redactor.redact(title)).text

    async def get(self, team_id: str, incident_id: str) -> Incident:
        canonical = parse_incident_id(incident_id)
        row = await store.get(self._db, team_id, canonical)
        if row is None:
            raise UnknownIncident(canonical)
        return _incident(row)

    async def get_visible(self, requester: Requester, incident_id: str) -> Incident | None:
        """The incident if `requester` may see it (the visibility filter), else None."""
        row = await store.get_visible(self._db, requester, parse_incident_id(incident_id))
        return None if row is None else _incident(row)

    async def for_channel(self, team_id: str, channel_id: str) -> Incident | None:
        row = await store.for_channel(self._db, team_id, channel_id)
        return None if row is None else _incident(row)

    async def recognise_channel(
        self, team_id: str, channel_id: str, channel_name: str, is_private: bool
    ) -> Incident | None:
        """The channel's incident, registering it when the name matches the incident pattern."""
        existing = await self.for_channel(team_id, channel_id)
        if existing is not None or not self._pattern.search(channel_name or ""):
            return existing
        title = channel_title(channel_name, self._pattern)
        async with self._db.transaction() as tx:
            again = await store.for_channel(tx, team_id, channel_id)
            if again is not None:
                return _incident(again)
            return await self._insert(
                tx,
                team_id=team_id,
                channel_id=channel_id,
                is_private=is_private,
                owner=SYSTEM_SUBJECT,
                title=(title or channel_name)[:MAX_TITLE],
                severity="sev3",
                number=channel_number(channel_name, self._pattern),
            )

    async def set_status(
        self, team_id: str, incident_id: str, status: str, clock: Clock | None = None
    ) -> Incident:
        """Move an incident to open, mitigated or resolved (resolved stamps resolved_at)."""
        if status not in STATUSES:
            raise InvalidIncidentField("Status must be open, mitigated or resolved.")
        canonical = parse_incident_id(incident_id)
        now = iso((clock or self._clock)())
        async with self._db.transaction() as tx:
            changed = await store.set_status(
                tx, team_id=team_id, incident_id=canonical, status=status, now=now
            )
            if not changed:
                raise UnknownIncident(canonical)
        return await self.get(team_id, canonical)

    async def list_recent(self, requester: Requester, limit: int = 10) -> list[Incident]:
        """Newest incidents the requester may see."""
        rows = await store.recent_visible(self._db, requester, limit=max(1, min(limit, 100)))
        return [_incident(r) for r in rows]

    async def _insert(
        self,
        tx: Tx,
        *,
        team_id: str,
        channel_id: str,
        is_private: bool,
        owner: str,
        title: str,
        severity: str,
        number: int | None,
    ) -> Incident:
        taken = await store.id_for_channel(tx, team_id, channel_id)
        if taken is not None:
            raise InvalidIncidentField(
                f"This channel already tracks {taken}; open the new incident in its own channel."
            )
        if number is None or await store.number_taken(tx, team_id, number):
            number = await store.take_next_number(tx, team_id)
        now = iso(self._clock())
        incident_id = f"inc-{number}"
        await store.insert(
            tx,
            team_id=team_id,
            incident_id=incident_id,
            number=number,
            channel_id=channel_id,
            is_private=is_private,
            owner=owner,
            title=title,
            severity=severity,
            opened_at=now,
        )
        await write_audit(
            tx,
            at=now,
            action="incident.open",
            subject_id=owner,
            team_id=team_id,
            channel_id=channel_id,
            scope="channel",
            item_id=incident_id,
        )
        row = await store.get(tx, team_id, incident_id)
        assert row is not None  # just inserted in this transaction
        return _incident(row)
