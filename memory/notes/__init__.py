"""Incident notes: saving them (validate, redact, embed, one write transaction) and which notes
form an exchange, so neighbour context joins only a conversation."""

from memory.notes.notes import (
    NOTE_KINDS,
    InvalidKind,
    Note,
    NoteDraft,
    NoteKind,
    NotePolicy,
    Notes,
    OnlySecrets,
)

__all__ = [
    "NOTE_KINDS",
    "InvalidKind",
    "Note",
    "NoteDraft",
    "NoteKind",
    "NotePolicy",
    "Notes",
    "OnlySecrets",
]
