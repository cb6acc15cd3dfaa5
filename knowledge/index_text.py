"""What text each index sees: chunk context (runbook title + heading path) for keywords and vectors.

Every chunk is indexed with its runbook's title and slug in a heavy `title` column and its heading
path in a `headings` column, so a section that never repeats the runbook's subject still matches
it. Each runbook also gets one document-level keyword row and one summary vector (title + opening
sections), aggregated with its chunks at search time. The embedder reads runbook text without
what it rules out ("rather than a prediction ..."), as it reads queries: a vector should say what
a section is about. The keyword indexes keep every word. Both read links as their text only:
a link's address (`https://…/controller-recovery.html`, `{{< ref "./OtherAlert.md" >}}`) names
another page, not this section's subject.
"""

from __future__ import annotations

import re

from knowledge.chunking import Chunk, ChunkedRunbook
from knowledge.profile import without_exclusions
from memory.text import expand_identifiers

#: Bump when the text given to either index changes; part of index provenance with the chunker's.
INDEX_TEXT_VERSION = "ctx-v4"
#: Characters of text handed to the embedder per item; MiniLM reads at most 256 tokens anyway.
MAX_EMBED_CHARS = 1_200

#: A Markdown link or image, inline (`[text](target "title")`) or by reference (`[text][ref]`).
#: Link text excludes `[` so a line of unclosed brackets is scanned once, not once per bracket.
_LINK = re.compile(
    r"!?\[([^\[\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)"
    r"|!?\[([^\[\]\n]*)\]\[[^\[\]\n]*\]"
)
#: Hugo shortcodes (`{{< ref "./X.md" >}}`), often a link's whole target; bounded for the same
#: reason.
_SHORTCODE = re.compile(r"\{\{[<%][^{}\n]{0,500}?[>%]\}\}")
#: Link reference definitions (`[1]: https://…`) and bare URLs.
_ADDRESS = re.compile(r"(?m)^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$|<?\bhttps?://[^\s>]+>?")


def readable(text: str) -> str:
    """`text` with links reduced to their text and addresses dropped."""
    text = _LINK.sub(lambda m: m[1] if m[1] is not None else m[2], _SHORTCODE.sub("", text))
    return _ADDRESS.sub(" ", text)


def chunk_fields(chunk: Chunk) -> tuple[str, str, str]:
    """(title, headings, body) columns of one chunk's keyword row."""
    return (
        expand_identifiers(f"{chunk.title} {chunk.slug}"),
        expand_identifiers(" ".join(chunk.heading_path)),
        expand_identifiers(readable(chunk.text)),
    )


def doc_fields(rb: ChunkedRunbook) -> tuple[str, str, str]:
    """(title, headings, body) columns of one runbook's document-level keyword row."""
    headings = " ".join(h for c in rb.chunks for h in c.heading_path[-1:])
    body = "\n".join(readable(c.text) for c in rb.chunks)
    return (
        expand_identifiers(f"{rb.title} {rb.slug}"),
        expand_identifiers(headings),
        expand_identifiers(body),
    )


_CAMEL_WORD = re.compile(r"\b[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def humanise(text: str) -> str:
    """`KubeAPIDown` -> `Kube API Down`: the embedder reads words, not identifiers."""
    return _CAMEL_WORD.sub(lambda m: " ".join(_CAMEL_PART.findall(m[0])), text)


def chunk_embedding_text(chunk: Chunk) -> str:
    context = " › ".join((chunk.title, *chunk.heading_path))
    text = without_exclusions(f"{context}\n{readable(chunk.text)}")
    return humanise(text[:MAX_EMBED_CHARS])


def doc_embedding_text(rb: ChunkedRunbook) -> str:
    opening = "\n".join(readable(c.text) for c in rb.chunks[:3] if c.text)
    return humanise(without_exclusions(f"{rb.title}\n{opening}")[:MAX_EMBED_CHARS])


def embedding_texts(runbooks: list[ChunkedRunbook]) -> tuple[list[str], list[str]]:
    """(one text per chunk in order, one summary text per runbook in order)."""
    chunks = [chunk_embedding_text(c) for rb in runbooks for c in rb.chunks]
    docs = [doc_embedding_text(rb) for rb in runbooks]
    return chunks, docs
