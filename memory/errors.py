"""Errors opsmemory raises on purpose, each with one sentence safe to show the person who caused it.

OpsmemoryError                  base: message = the problem and the fix
├── StorageError                database cannot be opened, migrated or written
│   └── SchemaTooNew            the database was written by a newer opsmemory
├── RedactionFailed             secrets check raised: nothing was written (fail closed)
├── RedactionConfigError        the redaction policy cannot be built as configured
├── EmbeddingUnavailable        embedder missing, corrupt or unreachable: fall back to keyword
├── ValidationError             bad input at an edge (ids, text, limits)
│   ├── NoteTooLong, EmptyText, InvalidIncidentId, InvalidSlug, InvalidLimit
│   ├── InvalidSlackId, InvalidSubjectId, InvalidScope, InvalidKind, InvalidIncidentField
│   ├── OnlySecrets, FactOnlySecrets, FactTooLong   nothing left to save, or too long
│   └── NotChannelMemory        thread messages are channel memory only
├── NotFound                    UnknownIncident, UnknownRunbook, UnknownItem
└── PermissionDenied            the requester may not do this (guest writes, approvals)
    └── GuestWriteRefused       guests and other organisations read but never save
"""

from __future__ import annotations


class OpsmemoryError(Exception):
    """Base of every error raised on purpose; `str()` is one user-safe sentence."""


class StorageError(OpsmemoryError):
    """The database cannot be opened, migrated or written."""


class SchemaTooNew(StorageError):
    """The database file was written by a newer opsmemory than this one."""

    def __init__(self, *, found: int, supported: int, path: str) -> None:
        self.found, self.supported, self.path = found, supported, path
        super().__init__(
            f"The database at {path} has schema version {found}, but this opsmemory understands "
            f"up to {supported}; upgrade opsmemory or point OPSMEMORY_DATA_DIR at another directory."
        )


class RedactionFailed(OpsmemoryError):
    """Redaction raised, so nothing was written (fail closed)."""

    def __init__(self) -> None:
        super().__init__(
            "Could not check this text for secrets, so nothing was saved. Try again; "
            "if it keeps failing, tell your opsmemory admin."
        )


class RedactionConfigError(OpsmemoryError):
    """The redaction policy asks for something this installation cannot do."""


class EmbeddingUnavailable(OpsmemoryError):
    """The embedder cannot run; callers fall back to keyword search."""


class ValidationError(OpsmemoryError):
    """Input at an edge is malformed; the message says what and how to fix it."""


class EmptyText(ValidationError):
    def __init__(self, what: str = "The note") -> None:
        super().__init__(f"{what} is empty; write some text after the command.")


class NoteTooLong(ValidationError):
    def __init__(self, *, limit: int, got: int) -> None:
        self.limit, self.got = limit, got
        super().__init__(f"Notes can be at most {limit:,} characters; this one has {got:,}.")


class InvalidIncidentId(ValidationError):
    def __init__(self, *, got: str) -> None:
        shown = got if len(got) <= 40 else got[:40] + "…"
        self.got = got
        super().__init__(f"'{shown}' is not an incident id; use a number like 42, #42 or inc-42.")


class InvalidSlug(ValidationError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)


class InvalidLimit(ValidationError):
    def __init__(self, *, got: int, cap: int) -> None:
        self.got, self.cap = got, cap
        super().__init__(f"limit must be between 1 and {cap}; got {got}.")


class NotFound(OpsmemoryError):
    """Something named does not exist (or is not visible to the requester)."""


class UnknownIncident(NotFound):
    def __init__(self, incident_id: str) -> None:
        self.incident_id = incident_id
        super().__init__(
            f"There is no incident {incident_id}; open it first with `/incident open <title>`."
        )


class UnknownItem(NotFound):
    def __init__(self, item_id: str) -> None:
        self.item_id = item_id
        super().__init__(f"There is no memory item {item_id} that you can change.")


class PermissionDenied(OpsmemoryError):
    """The requester may not do this."""


class NotChannelMemory(ValidationError):
    def __init__(self) -> None:
        super().__init__("Thread messages are channel memory; capture them with scope channel.")


class InvalidSlackId(ValidationError):
    """A team, enterprise or user id does not look like a Slack id."""

    def __init__(self, what: str) -> None:
        super().__init__(f"The {what} id is not a Slack id; pass ids like T0123ABC or U0123ABC.")


class FactTooLong(ValidationError):
    def __init__(self, *, limit: int, got: int) -> None:
        self.limit, self.got = limit, got
        super().__init__(
            f"Profile facts can be at most {limit:,} characters; this one has {got:,}."
        )


class FactOnlySecrets(ValidationError):
    def __init__(self) -> None:
        super().__init__(
            "That fact held only secrets or personal data, so nothing was saved; "
            "write it without them."
        )


class OnlySecrets(ValidationError):
    def __init__(self) -> None:
        super().__init__(
            "That note held only secrets or personal data, so nothing was saved; "
            "describe what happened without them."
        )


class InvalidKind(ValidationError):
    def __init__(self, allowed: tuple[str, ...]) -> None:
        self.allowed = allowed
        super().__init__(f"Note kind must be one of {', '.join(allowed)}.")


class InvalidSubjectId(ValidationError):
    def __init__(self) -> None:
        super().__init__("That is not a subject id; use the form T0123ABC/U0123ABC.")


class InvalidScope(ValidationError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)


class InvalidIncidentField(ValidationError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)


GUEST_WRITE_REFUSED = (
    "Guests and people from other organisations can read answers here but cannot save to opsmemory."
)


class GuestWriteRefused(PermissionDenied):
    """A guest or Slack Connect user tried to write memory."""

    def __init__(self) -> None:
        super().__init__(GUEST_WRITE_REFUSED)
