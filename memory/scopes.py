"""Scopes: who may see a memory row, defined once; `store.visibility` applies it inside every read.

    user       only the subject who wrote it, asking from that subject's own org: the workspace
               its subject id names, or any workspace of its Enterprise Grid org (subjects.py)
    channel    as Slack shows the channel: answering in that channel; a public channel also
               to every full member of its team (Slack lets them read it) and to guests and
               people from other organisations who are its members. A private channel's rows
               appear only when answering inside that channel, or in App Home / a DM (no
               channel) to its verified members.
    workspace  everyone in the same Slack team (e.g. notes a human promoted)

Channel and workspace rows are matched on the team too, so a channel id that appears in two
workspaces (Slack Connect) shows each workspace only its own rows.

Per-invocation scratch state (a question being answered, drafts) is never persisted, so it has
no scope. Vector tables use the same rules through partition keys (`partition_key_for` when
writing, `visible_partitions` when searching), so a vector search only scans what the requester
may see and nothing, not even a count, leaks from other partitions. Channel keys carry the team
("c:T1:C1"), so a channel id that exists in two workspaces is two partitions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from memory.errors import GuestWriteRefused, InvalidScope
from memory.subjects import Author

Scope = Literal["user", "channel", "workspace"]
SCOPES: tuple[str, ...] = get_args(Scope)


@dataclass(frozen=True)
class Requester:
    """Who is asking, and where the answer will be shown (channel None: DM, App Home or CLI)."""

    subject_id: str
    team_id: str
    enterprise_id: str | None = None  # the Enterprise Grid org, None outside Grid
    channel_id: str | None = None
    # Channels the asker is a member of (Slack's users.conversations): what a guest or a person
    # from another organisation may read, and the private channels shown in App Home / a DM.
    member_channel_ids: frozenset[str] = frozenset()
    # Guests and people from other organisations read only what the conversation they are in
    # holds (and their own items), never the team's workspace-wide knowledge.
    sees_workspace: bool = True
    # Every public channel of the team, members or not: what a full member of the team may
    # read in Slack, and what a post everyone in the team reads (the daily digest) may quote.
    every_public_channel: bool = False
    # The name Slack shows for the asker ("kim"), as their mentions are stored ("@kim"): "what
    # do I owe here?" is answered by the items owned by it. Empty when not known.
    name: str = ""

    @classmethod
    def public_audience(cls, team_id: str) -> Requester:
        """Anyone in the team reading a public post: public channels and workspace rows only."""
        # Any id outside the team's subject prefix is the same here: it owns no visible row.
        return cls(subject_id="", team_id=team_id, every_public_channel=True)  # pragma: no mutate

    @classmethod
    def full_member(
        cls,
        subject_id: str,
        team_id: str,
        *,
        enterprise_id: str | None = None,
        channel_id: str | None = None,
        member_channel_ids: frozenset[str] = frozenset(),
        name: str = "",
    ) -> Requester:
        """A full member of the team: every public channel, the workspace rows, their own rows."""
        return cls(
            subject_id,
            team_id,
            enterprise_id,
            channel_id,
            member_channel_ids,
            sees_workspace=True,  # pragma: no mutate  (the field's default; said for the reader)
            every_public_channel=True,
            name=name,
        )

    @classmethod
    def limited(
        cls,
        subject_id: str,
        team_id: str,
        *,
        enterprise_id: str | None = None,
        channel_id: str | None = None,
        member_channel_ids: frozenset[str] = frozenset(),
        name: str = "",
    ) -> Requester:
        """A guest or a person from another organisation: only channels they are members of."""
        return cls(
            subject_id,
            team_id,
            enterprise_id,  # pragma: no mutate  (unread: own_rows_everywhere needs sees_workspace)
            channel_id,
            member_channel_ids,
            sees_workspace=False,
            every_public_channel=False,  # pragma: no mutate  (the field's default; said for the reader)
            name=name,
        )

    @property
    def sees_private_members(self) -> bool:
        """Private channels the asker belongs to show only where no channel reads the answer
        (App Home, a DM, the CLI): in a channel, others would read them."""
        return self.channel_id is None

    @property
    def own_rows_everywhere(self) -> bool:
        """A full member of a Grid org sees their user rows from any of its workspaces.

        Guests and externals are held to the workspace they ask in: the bot fills
        `enterprise_id` from the person's identity, which for a Slack Connect user is their
        own org, not the one they are asking in.
        """
        return (
            self.enterprise_id is not None
            and self.sees_workspace
            and self.subject_id.startswith(f"{self.enterprise_id}/")
        )

    @property
    def sees_own_rows(self) -> bool:
        """The subject belongs to the org being asked in, so their user rows may show."""
        return self.own_rows_everywhere or self.subject_id.startswith(f"{self.team_id}/")


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
        if self.scope == "user" and ident.enterprise_id is None and ident.team_id != self.team_id:
            # The user-row rule (and its partition) trusts the subject id to name the row's team.
            raise InvalidScope(
                "Personal memory is saved in your own workspace; save it from there."
            )

    @property
    def partition_key(self) -> str:
        return partition_key_for(
            scope=self.scope,
            team_id=self.team_id,
            channel_id=self.channel_id,
            channel_is_private=self.channel_is_private,
            owner_subject_id=self.author.subject_id,
        )


def partition_key_for(
    *,
    scope: str,
    team_id: str,
    channel_id: str | None,
    channel_is_private: bool,
    owner_subject_id: str,
) -> str:
    """The vector partition a row belongs to; mirrors `store.visibility.visibility_sql` exactly."""
    if scope == "user":
        return f"u:{owner_subject_id}"
    if scope == "channel":
        if not channel_id:  # no partition to put it in: refuse rather than share one
            raise InvalidScope("Channel memory needs a channel.")
        return channel_partition(team_id, channel_id, private=channel_is_private)
    if scope == "workspace":
        return f"w:{team_id}"
    raise InvalidScope("Scope must be user, channel or workspace.")


def channel_partition(team_id: str, channel_id: str, *, private: bool) -> str:
    """The partition of one channel's rows: "c:T1:C1" (public) or "cp:T1:G1" (private)."""
    return f"{'cp' if private else 'c'}:{team_id}:{channel_id}"


def visible_partitions(
    requester: Requester, *, public_channel_ids: Iterable[str] = ()
) -> list[str]:
    """Every partition the requester may search; mirrors `store.visibility.visibility_sql`.

    `public_channel_ids`: the team's public channels that hold rows (the store lists them),
    searched only by a requester who sees every public channel. Callers still re-check every
    hit with `visibility_sql`.
    """
    team = requester.team_id
    keys = [f"u:{requester.subject_id}"] if requester.sees_own_rows else []
    if requester.sees_workspace:
        keys.append(f"w:{team}")
    if requester.channel_id:
        here = requester.channel_id
        keys += [
            channel_partition(team, here, private=False),  # pragma: no mutate  (None is False)
            channel_partition(team, here, private=True),
        ]
    public = set(requester.member_channel_ids)
    if requester.every_public_channel:
        public |= set(public_channel_ids)
    keys += [
        channel_partition(team, cid, private=False)  # pragma: no mutate  (None is False)
        for cid in sorted(public)
        if cid != requester.channel_id
    ]
    if requester.sees_private_members:
        keys += [
            channel_partition(team, cid, private=True)
            for cid in sorted(requester.member_channel_ids)
        ]
    return keys
