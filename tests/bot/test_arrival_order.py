"""ArrivalOrder: a channel's messages stored in arrival order, their lookups side by side."""

from __future__ import annotations

import asyncio

import pytest

from bot.pacing import ArrivalOrder


async def test_a_later_message_stores_only_after_the_earlier_one_and_looks_up_meanwhile() -> None:
    order, log = ArrivalOrder(), []
    slow_lookup, later_looked_up = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with order.ticket("C1") as t:
            await slow_lookup.wait()  # e.g. chat.getPermalink held by a rate limit
            await t.turn()
            log.append("first stored")

    async def second() -> None:
        async with order.ticket("C1") as t:
            later_looked_up.set()  # its own lookups ran while the first one waited
            await t.turn()
            log.append("second stored")

    tasks = [asyncio.create_task(first()), asyncio.create_task(second())]
    await later_looked_up.wait()
    assert log == []
    slow_lookup.set()
    await asyncio.gather(*tasks)
    assert log == ["first stored", "second stored"]


async def test_a_failed_or_skipped_message_lets_the_next_one_store() -> None:
    order, log = ArrivalOrder(), []

    async def fails() -> None:
        async with order.ticket("C1"):
            raise RuntimeError("users.info failed")

    async def skipped() -> None:
        async with order.ticket("C1"):
            return  # a bot's message, nothing to store

    async def stores() -> None:
        async with order.ticket("C1") as t:
            await t.turn()
            log.append("stored")

    results = await asyncio.gather(fails(), skipped(), stores(), return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and log == ["stored"]
    assert order._last == {}  # nothing left queued for the channel


async def test_channels_do_not_wait_on_each_other() -> None:
    order = ArrivalOrder()
    # C1 busy (its first message still working); C2's first message has its turn at once.
    async with order.ticket("C1"), order.ticket("C2") as other:
        await asyncio.wait_for(other.turn(), timeout=5)


@pytest.mark.parametrize("n", [5])
async def test_many_messages_store_in_arrival_order_whatever_their_lookup_order(n: int) -> None:
    order, log = ArrivalOrder(), []
    gates = [asyncio.Event() for _ in range(n)]

    async def message(i: int) -> None:
        async with order.ticket("C1") as t:
            await gates[i].wait()
            await t.turn()
            log.append(i)

    tasks = [asyncio.create_task(message(i)) for i in range(n)]
    await asyncio.sleep(0)
    for gate in reversed(gates):  # lookups finish last-first
        gate.set()
    await asyncio.gather(*tasks)
    assert log == list(range(n))
