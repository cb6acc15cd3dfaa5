"""Listener handlers are module-level functions that Bolt can call (issue 20): `register` binds
their dependencies, and Bolt, which injects arguments by parameter name, sees only its own names."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from slack_bolt.kwargs_injection.async_args import AsyncArgs
from slack_bolt.util.utils import get_arg_names_of_callable, get_name_for_callable

from bot.listeners import actions, commands, home, mentions, messages, shortcuts

BOLT_ARGS = set(inspect.signature(AsyncArgs.__init__).parameters) - {"self", "kwargs"}
MODULES = (actions, commands, home, mentions, messages, shortcuts)


class RecordingApp:
    """Stands in for Bolt's AsyncApp: records what each `app.<kind>(key)(handler)` registers."""

    def __init__(self) -> None:
        self.listeners: list[tuple[str, str, Callable[..., Any]]] = []

    def __getattr__(self, kind: str) -> Callable[[str], Callable[..., Any]]:
        def route(key: str) -> Callable[..., Any]:
            def add(handler: Callable[..., Any]) -> Callable[..., Any]:
                self.listeners.append((kind, key, handler))
                return handler

            return add

        return route


def registered() -> list[tuple[str, str, Callable[..., Any]]]:
    app = RecordingApp()
    for module in MODULES:
        module.register(app, deps=object())  # register only binds; nothing runs
    return app.listeners


LISTENERS = registered()


@pytest.mark.parametrize(
    ("kind", "key", "handler"), LISTENERS, ids=[f"{kind}:{key}" for kind, key, _ in LISTENERS]
)
def test_bolt_sees_only_its_own_argument_names_and_a_handler_name(
    kind: str, key: str, handler: Callable[..., Any]
) -> None:
    names = get_arg_names_of_callable(handler)
    assert names and set(names) <= BOLT_ARGS, (kind, key, names)
    assert inspect.iscoroutinefunction(handler)
    assert not get_name_for_callable(handler).startswith("functools")
