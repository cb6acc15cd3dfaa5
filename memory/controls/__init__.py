"""User controls: export, summary, forget one item or everything, and retention TTLs."""

from memory.controls.controls import Controls, InvalidSubjectId, Receipt, check_subject_id
from memory.controls.summary import MemorySummary, NoteLine

__all__ = [
    "Controls",
    "InvalidSubjectId",
    "MemorySummary",
    "NoteLine",
    "Receipt",
    "check_subject_id",
]
