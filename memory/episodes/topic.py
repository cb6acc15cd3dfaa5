"""What two statements are about in common: the measure a correction is matched with.

Shared by the roll-up (`memory.episodes.summary`) and recall (`memory.recall.supersede`) so a
correction replaces the same earlier statement in a digest as in an answer. Words that only say
"this is a correction", numbers, and words that only say when ("Tuesday", "March") never count.
"""

from __future__ import annotations

from memory.text import item_references, shared_item_references, stems, without_item_references

# Said by corrections in general, so sharing them says nothing about the subject.
CORRECTION_WORDS = stems(
    "scratch that correction actually wrong ignore instead takes took taking over from new owner "
    "reassigned reassign longer changed change plan revised update above after"
)

# Say when, not what: two statements of the same night or date are not thereby about one thing.
WHEN_WORDS = stems(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december today tomorrow yesterday tonight "
    "night morning afternoon evening week weekend utc"
)


def topic_words(text: str) -> set[str]:
    """A statement's topic words: its stems without numbers and words that only say when, and
    the items it names each as one word ("AI-1" is not "AI-2": they share no "ai")."""
    words = {w for w in stems(without_item_references(text)) if not w.isdigit()}
    return (words - WHEN_WORDS) | item_references(text, any_case=True)


def shared_topic(earlier_text: str, correction_text: str) -> set[str]:
    """The topic words a correction shares with an earlier statement."""
    return (topic_words(earlier_text) & topic_words(correction_text)) - CORRECTION_WORDS


def overlap(earlier_text: str, correction_text: str, *, named_weight: int = 2) -> int:
    """How much a correction says about an earlier statement: the topic words they share, a
    shared item key ("AI-1") counting `named_weight` words (it links however late)."""
    shared = shared_topic(earlier_text, correction_text)
    named = shared_item_references(earlier_text, correction_text)
    return len(shared - named) + (named_weight if named else 0)
