"""Episodes: captured threads rolled up into scoped, searchable summaries, and the daily digest.

`episodes` rolls up and searches, `summary` is the extractive summariser, `digest` gathers the
daily post, `model` is the Episode value they share; their SQL is in `memory.store`.
"""

from memory.episodes.digest import Digest, DigestDecision, DigestIncident
from memory.episodes.episodes import EpisodeHit, Episodes
from memory.episodes.model import Episode

__all__ = ["Digest", "DigestDecision", "DigestIncident", "Episode", "EpisodeHit", "Episodes"]
