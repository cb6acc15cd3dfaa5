"""Structured logs carry ids as JSON fields and never an exception's text (issue 5, item 11)."""

from __future__ import annotations

import json
import logging
import sys

from bot.logs import JsonFormatter


def _format(record: logging.LogRecord) -> dict[str, object]:
    return json.loads(JsonFormatter().format(record))


def test_extra_ids_become_fields() -> None:
    record = logging.makeLogRecord(
        {
            "name": "opsmemory.bot",
            "levelname": "INFO",
            "msg": "event_duplicate",
            "event_id": "Ev123",
            "team": "T1",
            "channel": "C1",
        }
    )
    entry = _format(record)
    assert entry["event"] == "event_duplicate"
    assert (entry["event_id"], entry["team"], entry["channel"]) == ("Ev123", "T1", "C1")
    assert entry["level"] == "INFO"


def test_exception_is_logged_by_type_only() -> None:
    try:
        raise ValueError("note text with a secret xoxb-123")
    except ValueError:
        record = logging.getLogger("t").makeRecord(
            "t", logging.ERROR, __file__, 1, "listener_failed", (), exc_info=True
        )
        record.exc_info = sys.exc_info()
    line = JsonFormatter().format(record)
    assert json.loads(line)["exc_type"] == "ValueError"
    assert "xoxb" not in line and "secret" not in line


def test_slack_libraries_never_log_bodies_even_at_debug() -> None:
    """slack_sdk logs request/response bodies (message text) at DEBUG."""
    from bot.logs import configure_logging

    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        configure_logging("DEBUG")
        assert not logging.getLogger("slack_sdk.web.async_base_client").isEnabledFor(logging.DEBUG)
        assert not logging.getLogger("slack_bolt.App").isEnabledFor(logging.INFO)
        assert logging.getLogger("opsmemory.runtime").isEnabledFor(logging.DEBUG)
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
        for name in (
            "slack_sdk",
            "slack_bolt",
            "opsmemory.bolt",
            "opsmemory.socket",
            "slack_sdk.socket_mode",
        ):
            logging.getLogger(name).setLevel(logging.NOTSET)
