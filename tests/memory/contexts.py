"""Authors and WriteContext builders the memory tests share (one place, one set of defaults)."""

from __future__ import annotations

from memory.scopes import Scope, WriteContext
from memory.subjects import Author, SlackIdentity

ALICE = Author.of(SlackIdentity("T1", "UALICE"), "alice")
BOB = Author.of(SlackIdentity("T1", "UBOB"), "bob")


def ctx(
    channel: str | None = "C1",
    *,
    author: Author | None = None,
    private: bool = False,
    scope: Scope = "channel",
    team: str = "T1",
    user: str = "U1",
    source_ts: str | None = None,
) -> WriteContext:
    """A write in `channel` of `team`; the author is `author`, else "ann" (`team`/`user`)."""
    return WriteContext(
        author or Author.of(SlackIdentity(team, user), "ann"),
        team,
        channel,
        private,
        scope,
        permalink=None if channel is None else f"https://x.slack.com/archives/{channel}/p123",
        source_ts=source_ts,
    )
