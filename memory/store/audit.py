"""The one writer of `memory_audit` (who, when, where, counts; never content) and the two
shapes stored findings take."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memory.store.db import Tx

_INSERT = """
INSERT INTO memory_audit (at, action, subject_id, team_id, channel_id, scope, item_id, findings)
VALUES (:at, :action, :subject, :team, :channel, :scope, :item, :counts)
"""


class Counted(Protocol):
    """One kind of thing removed and how often (`memory.redaction.Finding` is one)."""

    @property
    def entity_type(self) -> str: ...
    @property
    def count(self) -> int: ...


@dataclass(frozen=True)
class AuditEntry:
    """One audit row. `counts`: entity types removed, or rows deleted per table; never values."""

    at: str
    action: str
    subject_id: str
    team_id: str
    channel_id: str | None
    scope: str
    item_id: str | None
    counts: Mapping[str, int] | None = None


def finding_counts(findings: Iterable[Counted]) -> dict[str, int]:
    """{"EMAIL_ADDRESS": 1, ...}: counts per entity type, what an audit row's `counts` holds."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.entity_type] = counts.get(f.entity_type, 0) + f.count
    return dict(sorted(counts.items()))


def findings_list_json(findings: Iterable[Counted]) -> str:
    """[{"entity_type": ..., "count": ...}, ...] in the order found: the shape the `findings`
    column of stored content holds (memory_thread_messages, memory_profile_facts)."""
    return json.dumps([{"entity_type": f.entity_type, "count": f.count} for f in findings])


def _counts_json(counts: Mapping[str, int] | None) -> str:
    return json.dumps(dict(sorted((counts or {}).items())))


def _params(entry: AuditEntry) -> dict[str, object]:
    return {
        "at": entry.at,
        "action": entry.action,
        "subject": entry.subject_id,
        "team": entry.team_id,
        "channel": entry.channel_id,
        "scope": entry.scope,
        "item": entry.item_id,
        "counts": _counts_json(entry.counts),
    }


async def write_audit(
    tx: Tx,
    *,
    at: str,
    action: str,
    subject_id: str,
    team_id: str,
    channel_id: str | None,
    scope: str,
    item_id: str | None,
    counts: Mapping[str, int] | None = None,
) -> None:
    """One memory_audit row inside the caller's transaction (counts: entity types or tables)."""
    entry = AuditEntry(at, action, subject_id, team_id, channel_id, scope, item_id, counts)
    await tx.execute(_INSERT, _params(entry))


async def write_audits(tx: Tx, entries: Iterable[AuditEntry]) -> None:
    """Many memory_audit rows in one statement batch, inside the caller's transaction."""
    await tx.executemany(_INSERT, [_params(e) for e in entries])
