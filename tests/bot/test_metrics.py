"""/metrics text is valid Prometheus exposition (issue 5, item 11)."""

from __future__ import annotations

import asyncio

import pytest

from bot.metrics import Metrics
from bot.pacing import ChannelPacer


def test_histogram_buckets_are_cumulative_and_count_matches() -> None:
    m = Metrics()
    for s in (0.001, 0.02, 0.02, 3.0):
        m.answer_latency.observe(s, "cited")
    text = m.render()
    assert 'opsmemory_answer_seconds_bucket{stage="cited",le="0.005"} 1' in text
    assert 'opsmemory_answer_seconds_bucket{stage="cited",le="0.025"} 3' in text
    assert 'opsmemory_answer_seconds_bucket{stage="cited",le="+Inf"} 4' in text
    assert 'opsmemory_answer_seconds_count{stage="cited"} 4' in text
    assert "# TYPE opsmemory_events_total counter" in text


def test_label_values_are_escaped() -> None:
    m = Metrics()
    m.errors.inc('we"ird\n')
    assert 'kind="we\\"ird\\n"' in m.render()


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
