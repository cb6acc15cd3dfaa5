"""A tiny Prometheus registry (counters and latency histograms) rendered as text for /metrics.

Small on purpose: prometheus_client is not a dependency, and we need only labelled counters and
fixed-bucket histograms. Labels carry kinds and outcomes, never ids or text.
"""

from __future__ import annotations

import bisect
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

LabelValues = tuple[str, ...]
LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(names: tuple[str, ...], values: LabelValues) -> str:
    if not names:
        return ""
    pairs = ",".join(f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True))
    return "{" + pairs + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Counter:
    def __init__(self, name: str, help_text: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.help, self.label_names = name, help_text, labels
        self._values: dict[LabelValues, float] = defaultdict(float)

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self._values[labels] += amount

    def value(self, *labels: str) -> float:
        return self._values.get(labels, 0.0)

    def render(self) -> Iterator[str]:
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} counter"
        for values, v in sorted(self._values.items()):
            yield f"{self.name}{_labels(self.label_names, values)} {v:g}"


class Histogram:
    def __init__(
        self,
        name: str,
        help_text: str,
        labels: tuple[str, ...] = (),
        buckets: tuple[float, ...] = LATENCY_BUCKETS_S,
    ) -> None:
        self.name, self.help, self.label_names, self.buckets = name, help_text, labels, buckets
        self._counts: dict[LabelValues, list[int]] = {}
        self._sums: dict[LabelValues, float] = defaultdict(float)

    def observe(self, seconds: float, *labels: str) -> None:
        counts = self._counts.setdefault(labels, [0] * (len(self.buckets) + 1))
        counts[bisect.bisect_left(self.buckets, seconds)] += 1
        self._sums[labels] += seconds

    @contextmanager
    def time(self, *labels: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.observe(time.perf_counter() - started, *labels)

    def count(self, *labels: str) -> int:
        return sum(self._counts.get(labels, []))

    def render(self) -> Iterator[str]:
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} histogram"
        for values, counts in sorted(self._counts.items()):
            running = 0
            for bound, n in zip((*self.buckets, float("inf")), counts, strict=True):
                running += n
                le = "+Inf" if bound == float("inf") else f"{bound:g}"
                names = (*self.label_names, "le")
                yield f"{self.name}_bucket{_labels(names, (*values, le))} {running}"
            label_text = _labels(self.label_names, values)
            yield f"{self.name}_sum{label_text} {self._sums[values]:.6f}"
            yield f"{self.name}_count{label_text} {running}"


class Metrics:
    """Every metric the bot exports; one instance per runtime (no globals)."""

    def __init__(self) -> None:
        self.events = Counter(
            "opsmemory_events_total", "Slack requests received.", ("kind", "outcome")
        )
        self.answers = Counter("opsmemory_answers_total", "Answers posted.", ("stage",))
        self.errors = Counter("opsmemory_errors_total", "Errors shown to users.", ("kind",))
        self.slack_calls = Counter(
            "opsmemory_slack_api_calls_total", "Slack Web API calls.", ("method", "outcome")
        )
        self.llm_tokens = Counter("opsmemory_llm_tokens_total", "LLM tokens used.", ("kind",))
        self.answer_latency = Histogram(
            "opsmemory_answer_seconds", "Mention received to answer posted.", ("stage",)
        )
        self.retrieval_latency = Histogram(
            "opsmemory_retrieval_seconds", "Recall and runbook retrieval time.", ("what",)
        )
        self.redaction_latency = Histogram(
            "opsmemory_redaction_seconds", "Time to redact and store one captured message."
        )
        self.slack_latency = Histogram(
            "opsmemory_slack_api_seconds", "Slack Web API call time.", ("method",)
        )

    def render(self) -> str:
        lines: list[str] = []
        for metric in vars(self).values():
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"
