"""Slack surfaces, one module each (manifest entry → listener module is a one-step lookup)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any


def bind(
    handler: Callable[..., Any], *, name: str | None = None, **kwargs: Any
) -> Callable[..., Any]:
    """`handler` with its keyword-only dependencies filled in, for Bolt to call.

    Bolt injects arguments by the names of the positional parameters (the bound keyword-only
    ones stay hidden from it) and logs a listener by its `__name__`, which a bare partial lacks;
    `name` tells apart two bindings of one handler (approve and reject).
    """
    bound = partial(handler, **kwargs)
    bound.__name__ = name or handler.__name__  # type: ignore[attr-defined]
    return bound
