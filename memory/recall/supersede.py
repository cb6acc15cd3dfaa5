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
from memory.text import item_references, shared_item_references, stems, without_item_references

# Said by corrections in general, so sharing them says nothing about the subject.
_CORRECTION_WORDS = stems(
    "scratch that correction actually wrong ignore instead takes took taking over from new owner "
    "reassigned reassign longer changed change plan revised update above after"
)

# Say when, not what: two statements of the same night or date are not thereby about one thing.
_WHEN_WORDS = stems(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december today tomorrow yesterday tonight "
    "night morning afternoon evening week weekend utc"
)


def _topic(text: str) -> set[str]:
    """A statement's topic words: its stems without numbers and words that only say when, and
    the items it names each as one word ("AI-1" is not "AI-2": they share no "ai")."""
    words = {w for w in stems(without_item_references(text)) if not w.isdigit()}
    return (words - _WHEN_WORDS) | item_references(text, any_case=True)


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
    shared = (_topic(earlier_text) & _topic(correction_text)) - _CORRECTION_WORDS
    named = shared_item_references(earlier_text, correction_text)
    return len(shared - named) + (config.shared_words if named else 0)


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
    shared = (_topic(earlier_text) & _topic(correction_text)) - _CORRECTION_WORDS
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
