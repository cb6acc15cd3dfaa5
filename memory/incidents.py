"""The incident registry: canonical ids, one channel per incident, status and timestamps.

Canonical id form: lowercase "inc-" followed by the number without leading zeros ("inc-42").
"inc-42", "INC-0042", "inc 42", "#42" and "42" all parse to it, so people can type whichever they
like and the database holds one spelling. Numbers are per Slack team. Incidents are opened
explicitly (`/incident open`) or recognised from the channel name (default pattern `^inc-`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from memory.clock import Clock, iso, parse_iso, utc_now
from memory.errors import (
    EmptyText,
    InvalidIncidentId,
    RedactionFailed,
    UnknownIncident,
    ValidationError,
)
from memory.scopes import Requester, WriteContext, visibility_sql

if TYPE_CHECKING:
    from datetime import datetime

    from memory.redaction.redactor import Redactor
    from memory.store.db import Database, Row, Tx

Status = Literal["open", "mitigated", "resolved"]
STATUSES: tuple[str, ...] = ("open", "mitigated", "resolved")
SEVERITIES: tuple[str, ...] = ("sev1", "sev2", "sev3", "sev4", "sev5")
SYSTEM_SUBJECT = "opsmemory"  # owner of incidents recognised from a channel name
MAX_TITLE = 200
_ID = re.compile(r"^\s*(?:inc[-_ ]?|#)?0*(\d{1,9})\s*$", re.IGNORECASE)
_NUMBER_IN_NAME = re.compile(r"(\d{1,9})")


class InvalidIncidentField(ValidationError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)


def parse_incident_id(text: str) -> str:
    """Canonical "inc-N" from "inc-42", "INC-0042", "#42" or "42"; raises InvalidIncidentId."""
    match = _ID.match(text or "")
    if not match or int(match[1]) == 0:
        raise InvalidIncidentId(got=text or "")
    return f"inc-{int(match[1])}"


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


_COLUMNS = (
    "id, team_id, channel_id, channel_is_private, title, severity, status, opened_at, resolved_at"
)


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
        self, ctx: WriteContext, *, title: str, severity: str = "sev3", channel_id: str
    ) -> Incident:
        """Open a new incident bound to `channel_id`; numbers are allocated per team."""
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
            adopted = await tx.fetchone(
                f"UPDATE memory_incidents SET title = ?, severity = ?, owner_subject_id = ?"
                f" WHERE team_id = ? AND channel_id = ? AND owner_subject_id = ?"
                f" RETURNING {_COLUMNS}",
                (
                    title,
                    severity,
                    ctx.author.subject_id,
                    ctx.team_id,
                    channel_id,
                    SYSTEM_SUBJECT,
                ),
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
                number=None,
            )

    async def _redacted(self, title: str) -> str:
        """The title as it may be stored: secrets and PII replaced (fail closed)."""
        if self._redactor is None:
            raise RedactionFailed()
        return (await self._redactor.redact(title)).text

    async def get(self, team_id: str, incident_id: str) -> Incident:
        canonical = parse_incident_id(incident_id)
        row = await self._db.fetchone(
            f"SELECT {_COLUMNS} FROM memory_incidents WHERE team_id = ? AND id = ?",
            (team_id, canonical),
        )
        if row is None:
            raise UnknownIncident(canonical)
        return _incident(row)

    async def get_visible(self, requester: Requester, incident_id: str) -> Incident | None:
        """The incident if `requester` may see it (scopes.visibility_sql), else None."""
        vis, params = visibility_sql(requester, alias="i")
        row = await self._db.fetchone(
            f"SELECT {_COLUMNS} FROM memory_incidents i"
            f" WHERE i.team_id = :team AND i.id = :id AND {vis}",
            {**params, "team": requester.team_id, "id": parse_incident_id(incident_id)},
        )
        return None if row is None else _incident(row)

    async def for_channel(self, team_id: str, channel_id: str) -> Incident | None:
        row = await self._db.fetchone(
            f"SELECT {_COLUMNS} FROM memory_incidents WHERE team_id = ? AND channel_id = ?",
            (team_id, channel_id),
        )
        return None if row is None else _incident(row)

    async def recognise_channel(
        self, team_id: str, channel_id: str, channel_name: str, is_private: bool
    ) -> Incident | None:
        """The channel's incident, registering it when the name matches the incident pattern."""
        existing = await self.for_channel(team_id, channel_id)
        if existing is not None or not self._pattern.search(channel_name or ""):
            return existing
        found = _NUMBER_IN_NAME.search(channel_name)
        wanted = int(found[1]) if found and int(found[1]) > 0 else None
        title = self._pattern.sub("", channel_name, count=1).replace("-", " ").strip()
        async with self._db.transaction() as tx:
            again = await tx.fetchone(
                f"SELECT {_COLUMNS} FROM memory_incidents WHERE team_id = ? AND channel_id = ?",
                (team_id, channel_id),
            )
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
                number=wanted,
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
            changed = await tx.execute_rowcount(
                "UPDATE memory_incidents SET status = :status,"
                " resolved_at = CASE WHEN :status = 'resolved' THEN :now ELSE NULL END"
                " WHERE team_id = :team AND id = :id",
                {"status": status, "now": now, "team": team_id, "id": canonical},
            )
            if not changed:
                raise UnknownIncident(canonical)
        return await self.get(team_id, canonical)

    async def list_recent(self, requester: Requester, limit: int = 10) -> list[Incident]:
        """Newest incidents the requester may see."""
        where, params = visibility_sql(requester, alias="i")
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM memory_incidents i WHERE {where}"
            " ORDER BY opened_at DESC LIMIT :limit",
            {**params, "limit": max(1, min(limit, 100))},
        )
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
        taken = await tx.fetchone(
            "SELECT id FROM memory_incidents WHERE team_id = ? AND channel_id = ?",
            (team_id, channel_id),
        )
        if taken is not None:
            raise InvalidIncidentField(
                f"This channel already tracks {taken['id']}; open the new incident in its own "
                "channel."
            )
        if number is not None and await tx.fetchone(
            "SELECT 1 FROM memory_incidents WHERE team_id = ? AND number = ?", (team_id, number)
        ):
            number = None
        if number is None:
            top = await tx.fetchone(
                "SELECT coalesce(max(number), 0) AS n FROM memory_incidents WHERE team_id = ?",
                (team_id,),
            )
            number = int(top["n"]) + 1 if top else 1
        now = iso(self._clock())
        incident_id = f"inc-{number}"
        await tx.execute(
            "INSERT INTO memory_incidents (team_id, id, number, channel_id, channel_is_private,"
            " owner_subject_id, title, severity, status, opened_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)",
            (
                team_id,
                incident_id,
                number,
                channel_id,
                int(is_private),
                owner,
                title,
                severity,
                now,
            ),
        )
        await tx.execute(
            "INSERT INTO memory_audit (at, action, subject_id, team_id, channel_id, scope, item_id,"
            " findings) VALUES (?, 'incident.open', ?, ?, ?, 'channel', ?, ?)",
            (now, owner, team_id, channel_id, incident_id, json.dumps({})),
        )
        row = await tx.fetchone(
            f"SELECT {_COLUMNS} FROM memory_incidents WHERE team_id = ? AND id = ?",
            (team_id, incident_id),
        )
        assert row is not None  # just inserted in this transaction
        return _incident(row)
