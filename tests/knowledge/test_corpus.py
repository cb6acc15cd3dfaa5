"""Corpus: slug validation at the boundary and documented behaviour for odd files (issue 3)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from knowledge.corpus import Corpus, normalise_slug
from knowledge.errors import MAX_LISTED_SLUGS, DuplicateRunbook, UnknownRunbook
from memory.errors import InvalidSlug
from tests.knowledge.conftest import write_corpus


@pytest.mark.parametrize(
    ("raw", "slug"),
    [
        ("high-latency", "high-latency"),
        (" High-Latency.md ", "high-latency"),
        ("a_b c", "a-b-c"),
        ("kube--api", "kube-api"),
    ],
)
def test_harmless_spellings_normalise_to_kebab_case(raw: str, slug: str) -> None:
    assert normalise_slug(raw) == slug


@pytest.mark.parametrize(
    "raw",
    [
        "../../secret",
        "a/b",
        "%2e%2e",
        "",
        "   ",
        "/etc/passwd",
        "..",
        "a.b",
        "-lead",
        "x" * 81,
        "c:\\windows",
        "caf\u00e9",
        "a\x00b",
    ],
)
def test_unsafe_or_malformed_slugs_are_rejected(raw: str) -> None:
    with pytest.raises(InvalidSlug):
        normalise_slug(raw)


def test_traversal_slug_is_rejected_before_touching_the_filesystem(tmp_path: Path) -> None:
    """The corpus root does not even exist: rejection cannot depend on a file lookup."""
    corpus = Corpus.load(tmp_path / "missing")
    with pytest.raises(InvalidSlug):
        corpus.get("../../etc/passwd")


def test_unknown_slug_error_names_it_and_lists_a_bounded_set(tmp_path: Path) -> None:
    write_corpus(tmp_path, {f"runbook-{i:02d}": "# t\n" for i in range(30)})
    with pytest.raises(UnknownRunbook) as err:
        Corpus.load(tmp_path).get("No-Such")
    assert "'no-such'" in str(err.value)
    assert "runbook-00" in str(err.value) and "and 10 more" in str(err.value)
    assert str(err.value).count("runbook-") == MAX_LISTED_SLUGS


def test_duplicate_slugs_in_subfolders_name_both_paths(tmp_path: Path) -> None:
    write_corpus(tmp_path / "team-a", {"disk-full": "# a\n"})
    write_corpus(tmp_path / "team-b", {"Disk_Full": "# b\n"})
    with pytest.raises(DuplicateRunbook) as err:
        Corpus.load(tmp_path)
    assert "team-a/disk-full.md" in str(err.value) and "team-b/Disk_Full.md" in str(err.value)


def test_non_utf8_file_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_corpus(tmp_path, {"good": "# Good\n"})
    (tmp_path / "latin1.md").write_bytes("# Caf\u00e9\n".encode("latin-1"))
    with caplog.at_level(logging.WARNING):
        corpus = Corpus.load(tmp_path)
    assert corpus.slugs == ["good"]
    assert corpus.skipped[0][0] == "latin1.md" and "UTF-8" in corpus.skipped[0][1]
    assert any(r.message == "runbook_skipped" for r in caplog.records)


def test_symlink_pointing_outside_the_corpus_is_skipped(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# token=abc\n")
    root = write_corpus(tmp_path / "runbooks", {"good": "# Good\n"})
    (root / "leak.md").symlink_to(secret)
    (root / "sub").symlink_to(tmp_path, target_is_directory=True)
    corpus = Corpus.load(root)
    assert corpus.slugs == ["good"]
    assert ("leak.md", "symlink points outside the corpus") in corpus.skipped


def test_subfolders_are_part_of_the_corpus_and_digest_tracks_content(tmp_path: Path) -> None:
    write_corpus(tmp_path / "db", {"pool-exhausted": "# Pool\n"})
    before = Corpus.load(tmp_path)
    assert before.slugs == ["pool-exhausted"]
    (tmp_path / "db" / "pool-exhausted.md").write_text("# Pool v2\n")
    assert Corpus.load(tmp_path).digest != before.digest
