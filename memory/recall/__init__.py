"""Recall: scope-safe hybrid search over notes (keyword and vector candidates, fusion, recency,
kind and date boosts) and the similar-incident ranking built on it."""

from memory.recall.keyword import KeywordConfig
from memory.recall.recall import IncidentMatch, Recall, RecallConfig, RecallItem

__all__ = ["IncidentMatch", "KeywordConfig", "Recall", "RecallConfig", "RecallItem"]
