"""Later corrections win: whether a correction said after a statement is about that statement.

"scratch that, it's not DNS" corrects the earlier "looks like DNS"; "Ngozi takes AI-1 over from
Hamid" corrects "AI-1: Hamid owns it". A correction (a note of kind `correction`, recognised by
`memory.episodes.statements`) said later in the same channel corrects an earlier item when they
share a topic word and the correction came soon after, or share `shared_words` of them (or name
the same item: "AI-1", "#2219") however late it came. Words that only say "this is a
correction", numbers, and words that only say when ("Tuesday", "March") never count as shared;
a correction naming a new owner corrects only action items (and plain notes).
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.episodes.statements import names_an_owner
from memory.episodes.topic import overlap as topic_overlap
from memory.episodes.topic import shared_topic
from memory.text import item_references, shared_item_references


@dataclass(frozen=True)
class SupersedeConfig:
    shared_words: int = 2  # topic words in common that link a correction however late
    soon_notes: int = 8  # a correction within this many notes needs one shared word
    looks_back: int = 60  # statements before a correction read to find what it is about


def overlap(
    earlier_text: str, correction_text: str, config: SupersedeConfig = SupersedeConfig()
) -> int:
    """How much a correction says about an earlier statement: the topic words they share, a
    shared item key ("AI-1") counting as many as `shared_words` link however late."""
    return topic_overlap(earlier_text, correction_text, named_weight=config.shared_words)


def corrects(
    earlier_text: str,
    earlier_id: int,
    correction_text: str,
    correction_id: int,
    config: SupersedeConfig = SupersedeConfig(),
    *,
    earlier_kind: str | None = None,
) -> bool:
    """Whether the later correction is about the earlier statement. A correction that names a
    new owner ("scratch that, Dan owns the CI check") is about an action item, never about a
    decision or a root cause that happens to share a word with it."""
    if correction_id <= earlier_id:
        return False
    if earlier_kind is not None and names_an_owner(correction_text):
        # A plain note is an item only when it names who owns it ("Hamid owns the CI check");
        # "the renewal job has been failing since 12 Nov" is given to no one.
        if earlier_kind not in ("action", "note"):
            return False
        if earlier_kind == "note" and not names_an_owner(earlier_text):
            return False
    shared = shared_topic(earlier_text, correction_text)
    named, naming = item_references(earlier_text), item_references(correction_text)
    # A handover of another item: "handing off AI-3 to Tom" leaves "AI-2 … — @tom" be, unless
    # they share a subject ("Dan owns the CI check, OPS-15" after "Bob owns … OPS-12").
    if (
        named
        and naming
        and not named & naming
        and names_an_owner(correction_text)
        and len(shared - naming) < config.shared_words
    ):
        return False
    # Naming the same item ("I'll take AI-1 over" after "AI-1: … owner Hamid") is the same
    # subject however late it is said.
    if len(shared) >= config.shared_words or shared_item_references(earlier_text, correction_text):
        return True
    return len(shared) >= 1 and correction_id - earlier_id <= config.soon_notes
