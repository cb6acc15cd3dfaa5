"""Audit rows for memory-more writes and deletions: who, when, where, counts; never content."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from memory.redaction.redactor import Finding

if TYPE_CHECKING:
    from memory.store.db import Tx


def findings_json(findings: Iterable[Finding]) -> str:
    """{"EMAIL_ADDRESS": 1, ...}: the shape memory_audit.findings holds."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.entity_type] = counts.get(f.entity_type, 0) + f.count
    return json.dumps(dict(sorted(counts.items())))


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
    await tx.execute(
        "INSERT INTO memory_audit (at, action, subject_id, team_id, channel_id, scope, item_id,"
        " findings) VALUES (:at, :action, :subject, :team, :channel, :scope, :item, :counts)",
        {
            "at": at,
            "action": action,
            "subject": subject_id,
            "team": team_id,
            "channel": channel_id,
            "scope": scope,
            "item": item_id,
            "counts": json.dumps(dict(sorted((counts or {}).items()))),
        },
    )
