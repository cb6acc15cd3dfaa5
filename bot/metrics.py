"""The bot's Prometheus metrics (prometheus-client), in one registry per app, served on /metrics.

Labels carry kinds and outcomes, never ids or text.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)

LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4


class Metrics:
    """Every metric the bot exports; one registry per runtime, so apps in one process never mix."""

    def __init__(self) -> None:
        # The *_created series (a timestamp per counter) were never part of our /metrics;
        # the switch is process-wide in prometheus-client, and this is the only registry we keep.
        disable_created_metrics()
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        r = self.registry
        self.events = Counter(
            "opsmemory_events_total", "Slack requests received.", ("kind", "outcome"), registry=r
        )
        self.answers = Counter("opsmemory_answers_total", "Answers posted.", ("stage",), registry=r)
        self.errors = Counter(
            "opsmemory_errors_total", "Errors shown to users.", ("kind",), registry=r
        )
        self.slack_calls = Counter(
            "opsmemory_slack_api_calls_total",
            "Slack Web API calls.",
            ("method", "outcome"),
            registry=r,
        )
        self.llm_tokens = Counter(
            "opsmemory_llm_tokens_total", "LLM tokens used.", ("kind",), registry=r
        )
        self.answer_latency = Histogram(
            "opsmemory_answer_seconds",
            "Mention received to answer posted.",
            ("stage",),
            buckets=LATENCY_BUCKETS_S,
            registry=r,
        )
        self.retrieval_latency = Histogram(
            "opsmemory_retrieval_seconds",
            "Recall and runbook retrieval time.",
            ("what",),
            buckets=LATENCY_BUCKETS_S,
            registry=r,
        )
        self.redaction_latency = Histogram(
            "opsmemory_redaction_seconds",
            "Time to redact and store one captured message.",
            buckets=LATENCY_BUCKETS_S,
            registry=r,
        )
        self.slack_latency = Histogram(
            "opsmemory_slack_api_seconds",
            "Slack Web API call time.",
            ("method",),
            buckets=LATENCY_BUCKETS_S,
            registry=r,
        )

    def render(self) -> bytes:
        """The Prometheus text exposition of everything in this registry."""
        return generate_latest(self.registry)

    def sample(self, name: str, **labels: str) -> float:
        """One sample's current value (0 when never set), e.g.
        `sample("opsmemory_events_total", kind="command", outcome="accepted")`."""
        return self.registry.get_sample_value(name, labels) or 0.0
