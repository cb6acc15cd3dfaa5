"""A Presidio recognizer that always raises: plugged into a real Redactor, it makes the real
analysis fail, so fail-closed paths are tested without replacing any of our code."""

from __future__ import annotations

from typing import Any

from presidio_analyzer import EntityRecognizer

from memory.redaction.redactor import Redactor


class CrashingRecognizer(EntityRecognizer):
    def __init__(self) -> None:
        super().__init__(supported_entities=["BOOM"], name="CrashingRecognizer")

    def load(self) -> None:
        return None

    def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
        raise RuntimeError("recognizer crashed")


def crashing_redactor() -> Redactor:
    """A real Redactor whose analysis raises on every text."""
    return Redactor(extra_recognizers=[CrashingRecognizer()])
