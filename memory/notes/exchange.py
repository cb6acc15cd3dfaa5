"""Which notes form a conversation, so that neighbour context joins only those.

A note is *in an exchange* when someone else wrote one of the `WINDOW` notes before it in the
same partition and channel. Only then is it joined to those notes: its keyword context holds
their text, its vector mixes in the previous note's embedding, and a hit on it lends score to the
note before it (and a hit on that note lends to it). A reply ("yes, roll it back") is found
through what it answers; a run of notes by one author (a monologue, one person's imported
history) says what it means note by note, and joining them only crowds out evidence from
elsewhere. Measured: on LongMemEval (one user's chats) dropping the joins for such runs lifts
recall_all@10; on LoCoMo (two people talking) a window of one note cost 0.003 at @5, a window of
two (a short aside by the same speaker stays in the exchange) changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

WINDOW = 2


def in_exchange(author_subject_id: str, previous_subject_ids: Sequence[str]) -> bool:
    """`previous_subject_ids`: authors of the notes before this one, newest first."""
    return any(s != author_subject_id for s in previous_subject_ids[:WINDOW])


def exchange_sql(note: str) -> str:
    """SQL truth value of `in_exchange` for the memory_notes row aliased `note`."""
    return (
        "EXISTS (SELECT 1 FROM (SELECT e.owner_subject_id AS owner FROM memory_notes e"
        f" WHERE e.partition_key = {note}.partition_key AND e.channel_id IS {note}.channel_id"
        f" AND e.id < {note}.id ORDER BY e.id DESC LIMIT {WINDOW}) w"
        f" WHERE w.owner IS NOT {note}.owner_subject_id)"
    )
