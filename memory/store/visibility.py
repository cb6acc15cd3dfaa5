"""The visibility filter as SQL: the rule `memory.scopes` defines, as one boolean expression.

Every read of scoped rows (notes, incidents, messages, episodes, profile facts) puts it in its
own statement; the table must carry scope, team_id, channel_id, channel_is_private and
owner_subject_id.
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

_ALIAS = re.compile(r"^[a-z_][a-z0-9_]{0,30}$")


class Audience(Protocol):
    """What the filter reads from the asker (`memory.scopes.Requester` is one)."""

    @property
    def subject_id(self) -> str: ...
    @property
    def team_id(self) -> str: ...
    @property
    def channel_id(self) -> str | None: ...
    @property
    def member_channel_ids(self) -> frozenset[str]: ...
    @property
    def sees_workspace(self) -> bool: ...
    @property
    def every_public_channel(self) -> bool: ...
    @property
    def own_rows_everywhere(self) -> bool: ...
    @property
    def sees_own_rows(self) -> bool: ...
    @property
    def sees_private_members(self) -> bool: ...


def visibility_sql(requester: Audience, *, alias: str) -> tuple[str, dict[str, object]]:
    """THE visibility filter: a boolean SQL expression over `alias` and its named parameters."""
    if not _ALIAS.match(alias):
        raise ValueError(f"bad SQL alias {alias!r}")
    a = alias
    # `+team_id`: a team holds nearly every row, so an index on it is never selective; without
    # the `+` SQLite chose a multi-index OR over the whole team instead of the caller's id list
    # (recall over 100k notes: 87 ms for the row fetch instead of 0.6 ms).
    sql = f"""(
        ({a}.scope = 'user' AND {a}.owner_subject_id = :vis_subject
            AND (+{a}.team_id = :vis_own_team OR :vis_own_everywhere = 1))
        OR ({a}.scope = 'channel' AND +{a}.team_id = :vis_team AND (
                {a}.channel_id = :vis_channel
                OR ({a}.channel_is_private = 0 AND (
                    :vis_every_public = 1
                    OR {a}.channel_id IN (SELECT value FROM json_each(:vis_members))))
                OR ({a}.channel_is_private = 1 AND :vis_private_members = 1
                    AND {a}.channel_id IN (SELECT value FROM json_each(:vis_members)))))
        OR ({a}.scope = 'workspace' AND +{a}.team_id = :vis_team AND :vis_workspace = 1)
    )"""
    params: dict[str, object] = {
        "vis_subject": requester.subject_id,
        # NULL matches no row: a subject from another org sees none of its user rows here.
        "vis_own_team": requester.team_id if requester.sees_own_rows else None,
        "vis_own_everywhere": int(requester.own_rows_everywhere),
        "vis_team": requester.team_id,
        "vis_channel": requester.channel_id,
        "vis_members": json.dumps(sorted(requester.member_channel_ids)),
        "vis_every_public": int(requester.every_public_channel),
        "vis_private_members": int(requester.sees_private_members),
        "vis_workspace": int(requester.sees_workspace),
    }
    return sql, params


class Reader(Protocol):
    """What listing partitions needs (`memory.store.db.Database` is one)."""

    async def fetchall(self, sql: str, params: Any = ...) -> Any: ...


async def public_channels(db: Reader, requester: Audience) -> list[str]:
    """The team's public channels that hold memory, when the requester sees every public
    channel (else none): the vector partitions a full member of the team searches. A loose index scan over `memory_notes.partition_key` (one index seek per
    channel, not a pass over the notes) plus the team's public incident channels."""
    if not requester.every_public_channel:
        return []
    team_id = requester.team_id
    low, high = f"c:{team_id}:", f"c:{team_id};"  # ';' sorts right after ':'
    rows = await db.fetchall(
        """
        WITH RECURSIVE k(key) AS (
            SELECT (SELECT min(partition_key) FROM memory_notes
                    WHERE partition_key > :low AND partition_key < :high)
            UNION ALL
            SELECT (SELECT min(partition_key) FROM memory_notes
                    WHERE partition_key > k.key AND partition_key < :high)
            FROM k WHERE k.key IS NOT NULL
        )
        SELECT substr(key, length(:low) + 1) FROM k WHERE key IS NOT NULL
        UNION
        SELECT channel_id FROM memory_incidents WHERE team_id = :team AND channel_is_private = 0
        """,
        {"low": low, "high": high, "team": team_id},
    )
    return [str(r[0]) for r in rows]
