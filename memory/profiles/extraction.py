"""LLM extraction of profile facts from a person's OWN messages, validated whole or dropped whole.

The bot hands in an async `chat(messages, format=json_schema) -> str` (it wraps Ollama); this
module imports no model client. Output that is not valid JSON, breaks the schema, or cites a
message that was not one of the person's own is dropped entirely: nothing is half-stored.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as SchemaError

log = logging.getLogger(__name__)

Chat = Callable[..., Awaitable[str]]
"""async chat(messages: list[dict[str, str]], format: dict) -> str (the model's JSON text)."""

MAX_FACTS = 20
MAX_MESSAGES = 50


class ExtractedFact(BaseModel):
    """One fact the model found, tied to the message it came from."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    text: str = Field(min_length=3, max_length=300)
    kind: Literal["fact", "preference", "correction"]
    category: Literal["stack", "tools", "constraint", "oncall", "other"]
    source_ts: str = Field(min_length=1, max_length=32)


class ExtractedFacts(BaseModel):
    """The whole answer the model must give."""

    model_config = ConfigDict(extra="forbid")

    facts: list[ExtractedFact] = Field(max_length=MAX_FACTS)


@dataclass(frozen=True)
class SourceMessage:
    """A message to learn from: Slack ts, its (redacted) text and who wrote it."""

    ts: str
    text: str
    author_subject_id: str
    channel_id: str | None = None


SYSTEM_PROMPT = (
    "You extract durable facts about ONE person from messages that person wrote in an incident "
    "channel: their stack, the tools they use, constraints they work under, their on-call role, "
    "and their preferences for how answers are given. Write each fact in the first person as a "
    "short sentence. Ignore facts about incidents, systems' current state, or other people. "
    "Use kind 'correction' only when the person corrects something they said before. Cite the "
    "ts of the message each fact comes from. If there is nothing durable, return no facts. "
    "Answer with JSON only, matching the given schema."
)


def build_prompt(own: Sequence[SourceMessage]) -> list[dict[str, str]]:
    """Chat messages for the model: the instructions, then the person's messages as JSON."""
    payload = [{"ts": m.ts, "text": m.text} for m in own[-MAX_MESSAGES:]]
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": json.dumps({"messages": payload}, ensure_ascii=False)},
    ]


def output_schema() -> dict[str, Any]:
    """The JSON schema passed as Ollama's `format`, so the model is constrained to it."""
    return ExtractedFacts.model_json_schema()


def own_messages(subject_id: str, messages: Sequence[SourceMessage]) -> list[SourceMessage]:
    """Only what this subject wrote: facts are never learned from other people's messages."""
    return [m for m in messages if m.author_subject_id == subject_id and m.text.strip()]


def parse_output(raw: str, own: Sequence[SourceMessage]) -> list[ExtractedFact] | None:
    """The validated facts, or None when any part of the output is invalid (dropped whole)."""
    try:
        parsed = ExtractedFacts.model_validate_json(raw)
    except SchemaError as exc:
        log.info("profile_extraction_invalid", extra={"errors": exc.error_count()})
        return None
    known_ts = {m.ts for m in own}
    if any(f.source_ts not in known_ts for f in parsed.facts):
        log.info("profile_extraction_unknown_source", extra={"facts": len(parsed.facts)})
        return None
    return parsed.facts


async def extract_facts(
    chat: Chat, subject_id: str, messages: Sequence[SourceMessage]
) -> list[ExtractedFact] | None:
    """Ask the model for facts about `subject_id`; None when its output had to be dropped."""
    own = own_messages(subject_id, messages)
    if not own:
        return []
    raw = await chat(build_prompt(own), format=output_schema())
    return parse_output(raw, own)
