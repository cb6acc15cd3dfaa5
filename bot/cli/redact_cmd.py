"""`opsmemory redact`: stdin text in, redacted text out (the same engine every write uses)."""

from __future__ import annotations

import argparse
import json
import sys

from bot.settings import Settings
from memory.errors import OpsmemoryError


def add_redact_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "redact",
        help="redact PII and secrets from text on stdin",
        description=(
            "Reads text on stdin and writes it to stdout with PII and secrets replaced by "
            "<ENTITY_TYPE>. With --json, prints one JSON object with the text and the findings "
            "(entity types and counts, never the values)."
        ),
    )
    p.add_argument("--json", action="store_true", help="print JSON with text and findings")
    p.set_defaults(handler=run_redact)


def redaction_policy(settings: Settings):  # -> RedactionPolicy, imported lazily (Presidio is heavy)
    """The redaction policy the settings describe."""
    from memory.redaction.redactor import RedactionPolicy

    return RedactionPolicy(
        redact_ip_addresses=settings.redact_ip_addresses,
        redact_person_names=settings.redact_person_names,
        ner_model=settings.ner_model,
    )


async def run_redact(args: argparse.Namespace, settings: Settings) -> int:
    from memory.redaction.redactor import Redactor

    raw = sys.stdin.buffer.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise OpsmemoryError("stdin is not valid UTF-8 text; convert it first.") from None
    result = await Redactor(redaction_policy(settings)).redact(text)
    if args.json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
    else:
        sys.stdout.write(result.text)
    return 0
