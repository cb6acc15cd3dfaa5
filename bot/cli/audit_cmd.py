"""`opsmemory audit`: the guarded-action audit log (requests, decisions, refusals, outcomes),
filtered by incident, action, person and time; a table for people or JSON lines for tools."""

from __future__ import annotations

import argparse
import json
import re
from datetime import timedelta
from typing import Any

from bot.settings import Settings
from memory.clock import iso, parse_iso, utc_now
from memory.errors import ValidationError

_RELATIVE = re.compile(r"(\d+)([mhd])")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class BadSince(ValidationError):
    def __init__(self, value: str) -> None:
        super().__init__(
            f"--since {value[:40]!r} is neither a date (2026-12-01), an ISO time "
            "(2026-12-01T09:00:00.000000Z) nor an age like 30m, 12h or 7d."
        )


def add_audit_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="show the guarded-action audit log",
        description="Every guarded-action request, decision, refusal and outcome, oldest first. "
        "Parameters are stored only after redaction; a forgotten person appears as a "
        "forgotten-… pseudonym.",
    )
    p.add_argument("--incident", help="only this incident, e.g. inc-42")
    p.add_argument("--action", help="only this catalogue action, e.g. rollback")
    p.add_argument("--user", help="only this person: a subject id (T…/U…) or a Slack user id")
    p.add_argument("--since", help="only from then: 2026-12-01, an ISO time, or an age (7d)")
    p.add_argument("--json", action="store_true", help="JSON lines, one object per entry")
    p.set_defaults(handler=run_audit)


def since_iso(value: str | None) -> str | None:
    if value is None:
        return None
    m = _RELATIVE.fullmatch(value.strip())
    if m:
        unit = {"m": "minutes", "h": "hours", "d": "days"}[m.group(2)]
        return iso(utc_now() - timedelta(**{unit: int(m.group(1))}))
    if _DATE.fullmatch(value.strip()):
        return f"{value.strip()}T00:00:00.000000Z"
    try:
        return iso(parse_iso(value.strip()))
    except ValueError:
        raise BadSince(value) from None


async def run_audit(args: argparse.Namespace, settings: Settings) -> int:
    from memory.store import guarded as store
    from memory.store.db import Database

    since = since_iso(args.since)
    db = await Database.open(settings.database_path)
    try:
        rows = await store.query_audit(
            db, incident=args.incident, action=args.action, actor=args.user, since=since
        )
    finally:
        await db.close()
    entries = [_entry(r) for r in rows]
    if args.json:
        for e in entries:
            print(json.dumps(e, ensure_ascii=False, sort_keys=True))
        return 0
    if not entries:
        print("No audit entries match.")
        return 0
    for e in entries:
        detail = " ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in e["detail"].items()
        )
        print(
            f"{e['at']}  {e['incident_id'] or '-':<8} #{e['request_id'] or '-':<4} "
            f"{e['action']:<14} {e['event']:<10} {e['actor']}  {detail}".rstrip()
        )
    return 0


def _entry(r: Any) -> dict[str, Any]:
    return {
        "at": r["at"],
        "team_id": r["team_id"],
        "channel_id": r["channel_id"],
        "incident_id": r["incident_id"],
        "request_id": r["request_id"],
        "action": r["action"],
        "event": r["event"],
        "actor": r["actor"],
        "detail": json.loads(r["detail_json"]),
    }
