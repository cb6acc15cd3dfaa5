"""Profiles: per-person facts and preferences, redacted, deduplicated and user-scoped.

`profiles` stores and reads facts, `extraction` asks a model for them, `dedup` decides what a new
fact does to the current ones and `fact_matching` compares two facts; their SQL is in
`memory.store.profiles`.
"""

from memory.profiles.extraction import Chat, SourceMessage
from memory.profiles.profiles import FactOnlySecrets, FactTooLong, ProfileFact, Profiles

__all__ = ["Chat", "FactOnlySecrets", "FactTooLong", "ProfileFact", "Profiles", "SourceMessage"]
