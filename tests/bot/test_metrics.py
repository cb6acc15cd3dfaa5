"""/metrics text is valid Prometheus exposition (issue 5, item 11)."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import Metrics
from bot.pacing import ChannelPacer


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition, parsed by prometheus-client's own parser."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_histogram_buckets_are_cumulative_and_count_matches() -> None:
    m = Metrics()
    for s in (0.001, 0.02, 0.02, 3.0):
        m.answer_latency.labels("cited").observe(s)
    text = m.render().decode()
    got = samples(text)

    def bucket(le: str) -> float:
        return got[("opsmemory_answer_seconds_bucket", frozenset({("stage", "cited"), ("le", le)}))]

    assert (bucket("0.005"), bucket("0.025"), bucket("+Inf")) == (1, 3, 4)
    assert got[("opsmemory_answer_seconds_count", frozenset({("stage", "cited")}))] == 4
    assert "# TYPE opsmemory_events_total counter" in text


def test_label_values_are_escaped() -> None:
    m = Metrics()
    m.errors.labels('we"ird\n').inc()
    assert 'kind="we\\"ird\\n"' in m.render().decode()
    assert m.sample("opsmemory_errors_total", kind='we"ird\n') == 1


def test_each_app_has_its_own_registry() -> None:
    """Several apps in one process (the e2e tests) never share or collide on a metric."""
    one, two = Metrics(), Metrics()
    one.events.labels("command", "accepted").inc()
    assert one.sample("opsmemory_events_total", kind="command", outcome="accepted") == 1
    assert two.sample("opsmemory_events_total", kind="command", outcome="accepted") == 0


async def test_pacer_spaces_posts_in_one_channel_but_not_across_channels() -> None:
    now = [100.0]
    waited: list[float] = []

    async def sleep(seconds: float) -> None:  # an injected clock: sleeping moves it
        waited.append(seconds)
        now[0] += seconds

    pacer = ChannelPacer(interval_s=0.2, now=lambda: now[0], sleep=sleep)
    await asyncio.gather(pacer.wait("C1"), pacer.wait("C1"), pacer.wait("C1"), pacer.wait("C2"))
    assert waited == [pytest.approx(0.2), pytest.approx(0.2)]  # 2nd and 3rd post in C1 only
    await pacer.wait("C3")
    assert len(waited) == 2
    assert pacer.free_in("C3") == pytest.approx(0.2)  # what the next post there would wait
    now[0] += 0.5
    assert pacer.free_in("C3") == 0.0 and pacer.free_in("C9") == 0.0


def test_exposition_keeps_the_series_it_always_had() -> None:
    """The same metric names as before prometheus-client (issue 20), and no *_created series."""
    m = Metrics()
    m.events.labels("event", "accepted").inc()
    m.answer_latency.labels("cited").observe(0.1)
    names = {name for name, _ in samples(m.render().decode())}
    assert {"opsmemory_events_total", "opsmemory_answer_seconds_count"} <= names
    assert not [n for n in names if n.endswith("_created")]
