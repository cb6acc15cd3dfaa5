"""Which notes form a conversation, so that neighbour context joins only those.

A note is *in an exchange* when someone else wrote one of the `WINDOW` notes before it in the
same partition and channel; only then is it joined to them (see `in_exchange`).
"""

from __future__ import annotations

from collections.abc import Sequence

# Two, not one: a short aside by the same speaker stays in the exchange.
WINDOW = 2


def in_exchange(author_subject_id: str, previous_subject_ids: Sequence[str]) -> bool:
    """`previous_subject_ids`: authors of the notes before this one, newest first.

    A note in an exchange is joined to the notes before it: its keyword context holds their
    text, its vector mixes in the previous note's embedding, and a hit on it lends score to the
    note before it (and a hit on that note lends to it). A reply ("yes, roll it back") is found
    through what it answers; a run of notes by one author (a monologue, one person's imported
    history) says what it means note by note, and joining them only crowds out evidence from
    elsewhere. The SQL twin is `memory.store.notes.exchange_sql`; the two must agree.
    """
    return any(s != author_subject_id for s in previous_subject_ids[:WINDOW])
