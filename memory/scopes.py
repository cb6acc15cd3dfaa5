"""Scopes: who may see a memory row, defined once and applied inside the SQL of every read.

    user       only the subject who wrote it
    channel    answering in that channel; also its members when the channel is public.
               A private channel's rows appear only when answering inside that channel.
    workspace  everyone in the same Slack team (e.g. notes a human promoted)

Per-invocation scratch state (a question being answered, drafts) is never persisted, so it has
no scope. Vector tables use the same rules through partition keys (`partition_key_for` when
writing, `visible_partitions` when searching), so a vector search only scans what the requester
may see and nothing, not even a count, leaks from other partitions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal, get_args

from memory.errors import PermissionDenied, ValidationError
from memory.subjects import Author

Scope = Literal["user", "channel", "workspace"]
SCOPES: tuple[str, ...] = get_args(Scope)
_ALIAS = re.compile(r"^[a-z_][a-z0-9_]{0,30}$")

GUEST_WRITE_REFUSED = (
    "Guests and people from other organisations can read answers here but cannot save to opsmemory."
)


class GuestWriteRefused(PermissionDenied):
    """A guest or Slack Connect user tried to write memory."""

    def __init__(self) -> None:
        super().__init__(GUEST_WRITE_REFUSED)


class InvalidScope(ValidationError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)


@dataclass(frozen=True)
class Requester:
    """Who is asking, and where the answer will be shown (channel None: DM, App Home or CLI)."""

    subject_id: str
    team_id: str
    enterprise_id: str | None = None
    channel_id: str | None = None
    member_channel_ids: frozenset[str] = frozenset()  # public channels the asker belongs to
    # Guests and people from other organisations read only what the conversation they are in
    # holds (and their own items), never the team's workspace-wide knowledge.
    sees_workspace: bool = True


@dataclass(frozen=True)
class WriteContext:
    """Where and by whom memory is written; building one is the single write-permission check."""

    author: Author
    team_id: str
    channel_id: str | None
    channel_is_private: bool
    scope: Scope
    permalink: str | None = None
    source_ts: str | None = None

    def __post_init__(self) -> None:
        ident = self.author.identity
        if ident.is_guest or ident.is_external:
            raise GuestWriteRefused()
        if self.scope not in SCOPES:
            raise InvalidScope("Scope must be user, channel or workspace.")
        if self.scope == "channel" and not self.channel_id:
            raise InvalidScope(
                "Channel memory needs a channel; save it from the incident channel or use "
                "scope user."
            )
        if not self.team_id:
            raise InvalidScope("Memory needs a Slack team id; pass the workspace's team id.")

    @property
    def partition_key(self) -> str:
        return partition_key_for(
            scope=self.scope,
            team_id=self.team_id,
            channel_id=self.channel_id,
            channel_is_private=self.channel_is_private,
            owner_subject_id=self.author.subject_id,
        )


def visibility_sql(requester: Requester, *, alias: str) -> tuple[str, dict[str, object]]:
    """THE visibility filter: a boolean SQL expression over `alias` and its named parameters.

    The table must carry scope, team_id, channel_id, channel_is_private, owner_subject_id.
    """
    if not _ALIAS.match(alias):
        raise ValueError(f"bad SQL alias {alias!r}")
    a = alias
    sql = f"""(
        ({a}.scope = 'user' AND {a}.owner_subject_id = :vis_subject)
        OR ({a}.scope = 'channel' AND (
                {a}.channel_id = :vis_channel
                OR ({a}.channel_is_private = 0
                    AND {a}.channel_id IN (SELECT value FROM json_each(:vis_members)))))
        OR ({a}.scope = 'workspace' AND {a}.team_id = :vis_team AND :vis_workspace = 1)
    )"""
    params: dict[str, object] = {
        "vis_subject": requester.subject_id,
        "vis_channel": requester.channel_id,
        "vis_members": json.dumps(sorted(requester.member_channel_ids)),
        "vis_team": requester.team_id,
        "vis_workspace": int(requester.sees_workspace),
    }
    return sql, params


def partition_key_for(
    *,
    scope: str,
    team_id: str,
    channel_id: str | None,
    channel_is_private: bool,
    owner_subject_id: str,
) -> str:
    """The vector partition a row belongs to; mirrors `visibility_sql` exactly."""
    if scope == "user":
        return f"u:{owner_subject_id}"
    if scope == "channel":
        return f"{'cp' if channel_is_private else 'c'}:{channel_id}"
    if scope == "workspace":
        return f"w:{team_id}"
    raise InvalidScope("Scope must be user, channel or workspace.")


def visible_partitions(requester: Requester) -> list[str]:
    """Every partition the requester may search: self, team, this channel, public member channels."""
    keys = [f"u:{requester.subject_id}"]
    if requester.sees_workspace:
        keys.append(f"w:{requester.team_id}")
    if requester.channel_id:
        keys += [f"c:{requester.channel_id}", f"cp:{requester.channel_id}"]
    keys += [
        f"c:{cid}" for cid in sorted(requester.member_channel_ids) if cid != requester.channel_id
    ]
    return keys
