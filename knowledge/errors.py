"""Errors the knowledge package raises on purpose (all derive from memory.errors).

OpsmemoryError
├── ValidationError
│   ├── InvalidSlug                 (memory.errors) a slug that is not lowercase kebab-case
│   ├── InvalidQuery                empty or oversized search query
│   └── DuplicateRunbook            two files in the corpus normalise to the same slug
├── NotFound
│   └── UnknownRunbook              no runbook with that slug; lists (some of) the available ones
└── StorageError
    └── IndexBuildFailed            a new index generation failed validation and was rolled back
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.errors import NotFound, StorageError, ValidationError

#: How many available slugs an UnknownRunbook message lists at most.
MAX_LISTED_SLUGS = 20


class UnknownRunbook(NotFound):
    """No runbook has this (normalised) slug."""

    def __init__(self, slug: str, available: Sequence[str]) -> None:
        self.slug = slug
        self.available = tuple(sorted(available))
        shown = ", ".join(self.available[:MAX_LISTED_SLUGS])
        more = len(self.available) - MAX_LISTED_SLUGS
        if more > 0:
            shown += f" and {more} more"
        listing = f"available: {shown}" if self.available else "the runbook corpus is empty"
        super().__init__(f"There is no runbook '{slug}'; pick one of the known slugs ({listing}).")


class DuplicateRunbook(ValidationError):
    """Two files (in different subfolders) would both be served under one slug."""

    def __init__(self, slug: str, first: str, second: str) -> None:
        self.slug, self.first, self.second = slug, first, second
        super().__init__(
            f"Runbooks {first} and {second} both have the slug '{slug}'; rename one of them "
            "so every file stem in the corpus is unique."
        )


class InvalidQuery(ValidationError):
    """A search query that is empty or too long."""

    def __init__(self, *, length: int, limit: int) -> None:
        self.length, self.limit = length, limit
        if length == 0:
            msg = "The search query is empty; describe the problem or paste the alert text."
        else:
            msg = (
                f"Search queries can be at most {limit:,} characters; this one has {length:,}. "
                "Paste just the alert summary and description."
            )
        super().__init__(msg)


class IndexBuildFailed(StorageError):
    """A freshly built index generation did not validate; it was rolled back."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"The runbook index could not be rebuilt ({what}); keyword search over the corpus "
            "is used instead. Run `opsmemory index` to retry."
        )
