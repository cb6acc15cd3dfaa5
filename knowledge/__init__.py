"""Runbook knowledge: the corpus, its chunks, the index (generations, provenance) and search.

Storage is `knowledge.store`; evaluating search is `evals.runbooks`.
"""

from knowledge.corpus import Corpus
from knowledge.index import Generation, Provenance, RunbookIndex
from knowledge.search import Knowledge, Runbook, RunbookHit, SearchResult, Section, SectionHit

__all__ = [
    "Corpus",
    "Generation",
    "Knowledge",
    "Provenance",
    "Runbook",
    "RunbookHit",
    "RunbookIndex",
    "SearchResult",
    "Section",
    "SectionHit",
]
