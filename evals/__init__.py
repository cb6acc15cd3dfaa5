"""Evaluation harnesses behind `opsmemory eval`: runbook search and memory recall (LoCoMo,
LongMemEval). The bot never imports this package at run time: only the eval commands do, lazily.
"""

from evals.memory import MemoryEval, ranked_metrics
from evals.runbooks import BadQueriesFile, auroc, evaluate, load_queries

__all__ = ["BadQueriesFile", "MemoryEval", "auroc", "evaluate", "load_queries", "ranked_metrics"]
