"""Structured logs: one JSON object per line with the event name and the ids bound to it.

Listeners log events with ids in `extra` (event_id, team, channel, incident, subject), never
message text or tokens; this formatter is what makes those fields visible to a log pipeline.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "event", ...extra}`; exceptions as their type only."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info and record.exc_info[0] is not None:
            # The type only: an exception's message or traceback may quote user text.
            entry["exc_type"] = record.exc_info[0].__name__
        return json.dumps(entry, default=str, ensure_ascii=False)


QUIET_LOGGERS = ("slack_sdk", "slack_bolt", "opsmemory.bolt", "opsmemory.socket")


def configure_logging(level: str) -> None:
    """Send JSON lines to stderr at `level` (called once, by the CLI entry point)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # slack_sdk and Bolt log whole request and response bodies (message text, user profiles)
    # at DEBUG and exception text at ERROR; our own loggers carry the ids that matter.
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    logging.getLogger("slack_sdk.socket_mode").setLevel(logging.CRITICAL)
