"""Questions about an earlier incident's statements are recognised by their wording."""

from __future__ import annotations

from memory.recall.earlier import about_an_earlier_incident, asked_kind


def test_the_kind_asked_for_and_the_pointer_back_are_read_from_the_wording() -> None:
    assert asked_kind("what did we decide last time?") == "decision"
    assert asked_kind("what was the root cause of the previous outage?") == "root_cause"
    assert asked_kind("which action items came out of it?") == "action"
    assert asked_kind("who is on call?") is None
    assert about_an_earlier_incident("what did we decide last time?")
    assert about_an_earlier_incident("root cause of the previous incident")
    # "before" alone is about this incident's own timeline, not an earlier incident.
    assert not about_an_earlier_incident("what did we decide before the rollback?")
