"""The parts of a question that asks two things ("what was the DNS theory based on, and why was
it dropped?"): each part is answered by its own item, so the floor judges items against each
part as well as against the whole question, and may keep the best few for each part."""

from __future__ import annotations

import re

# A new question starts after "and" / "but" / ";" when a question word or an auxiliary opens it.
_OPENERS = (
    "what|why|how|when|who|whom|whose|where|which|did|does|do|is|was|were|are|has|have|had"
    "|can|could|will|would|should|since"
)
# No leading \s*: a run of spaces would make every split attempt rescan it.
_SPLIT = re.compile(
    rf"(?:[,;]\s*(?:and|but)\s+|\s(?:and|but)\s+|;\s*|\?\s+)(?=(?:{_OPENERS})\b)", re.I
)
MIN_WORDS = 2  # a part of fewer words ("and why?") is not a question of its own
MAX_PARTS = 3  # a longer list of questions is read as its first three


def clauses(question: str) -> list[str]:
    """The question's parts, in order; one part when it asks one thing."""
    parts = [p.strip(" ,;?") for p in _SPLIT.split(question)]
    parts = [p for p in parts if len(p.split()) >= MIN_WORDS][:MAX_PARTS]
    return parts if len(parts) > 1 else [question]
