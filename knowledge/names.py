"""Runbook names people type: slugs (`kube-pod-crash-looping`), alert names (`KubePodCrashLooping`)
and near misses, mapped to real slugs of the corpus.

A name is compared by its letters and digits only, lowercased, so `KubePodCrashLooping`,
`kube_pod_crash_looping.md` and the runbook's own `# KubePodCrashLooping` title all meet the slug.
An unknown name gets the closest real slugs (shared prefix, then edit-distance ratio), never a
made-up example.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

#: A token that names something rather than describes it: kebab/snake case or CamelCase.
_NAME_TOKEN = re.compile(
    r"`?([A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+(?:\.md)?|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*)`?"
)
#: How alike a close slug must be (difflib ratio) to be suggested.
CLOSE_RATIO = 0.6
#: Shortest shared prefix that makes a slug a suggestion on its own.
PREFIX_CHARS = 4


def looks_like_a_name(text: str) -> bool:
    """Whether one typed word is shaped like a slug or alert name rather than a search word."""
    return _NAME_TOKEN.fullmatch(text.strip()) is not None


def name_key(text: str) -> str:
    """`text` reduced to what a name is compared by: lowercase letters and digits."""
    return re.sub(r"[^a-z0-9]", "", text.lower().removesuffix(".md"))


class RunbookNames:
    """Every slug and runbook title of one corpus, by name key."""

    def __init__(self, titles: Iterable[tuple[str, str]]) -> None:
        self._by_key: dict[str, str] = {}
        self._slugs: list[str] = []
        for slug, title in titles:
            self._slugs.append(slug)
            self._by_key.setdefault(name_key(slug), slug)
            if " " not in title.strip():  # a one-word title is the alert's name
                self._by_key.setdefault(name_key(title), slug)
        self._slugs.sort()

    def resolve(self, text: str) -> str | None:
        """The slug `text` names exactly (a slug, file name or alert name), else None."""
        key = name_key(text)
        return self._by_key.get(key) if key else None

    def named_in(self, text: str) -> str | None:
        """The first slug a message names with a slug- or alert-name-shaped token."""
        for match in _NAME_TOKEN.finditer(text):
            slug = self.resolve(match[1])
            if slug is not None:
                return slug
        return None

    def closest(self, text: str, n: int = 3) -> list[str]:
        """Up to `n` real slugs closest to `text`: longest shared prefix first, then similarity;
        for several words, the slugs sharing most of them."""
        words = [w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) >= 3]
        kebab = "-".join(words)
        if not kebab:
            return []
        key = name_key(kebab)

        def prefix(slug: str) -> int:
            k = name_key(slug)
            i = 0
            while i < min(len(k), len(key)) and k[i] == key[i]:
                i += 1
            return i

        ratio = {s: difflib.SequenceMatcher(None, kebab, s).ratio() for s in self._slugs}
        shared = {s: len(set(words) & set(s.split("-"))) for s in self._slugs}
        lead = {s: p if (p := prefix(s)) >= PREFIX_CHARS else 0 for s in self._slugs}
        scored = [
            (lead[s], shared[s], ratio[s], s)
            for s in self._slugs
            if lead[s] or ratio[s] >= CLOSE_RATIO or shared[s]
        ]
        scored.sort(key=lambda t: (-t[0], -t[1], -t[2], t[3]))
        return [s for *_, s in scored[:n]]
