"""Heading-bounded chunking with heading paths, GitHub anchors and content hashes (issue 3)."""

from __future__ import annotations

from knowledge.chunking import CHUNKER_VERSION, chunk_runbook, github_anchor
from memory.text import expand_identifiers, identifier_terms, split_identifier
from tests.knowledge.conftest import RUNBOOKS


def test_sections_split_on_h2_and_h3_with_heading_paths() -> None:
    rb = chunk_runbook("kube-api-down", RUNBOOKS["kube-api-down"])
    assert rb.title == "Kube API Down"
    paths = [c.heading_path for c in rb.chunks]
    assert paths == [(), ("Meaning",), ("Diagnosis",), ("Diagnosis", "Network"), ("Mitigation",)]
    assert [c.anchor for c in rb.chunks][1:] == ["meaning", "diagnosis", "network", "mitigation"]
    assert all(c.slug == "kube-api-down" and len(c.content_hash) == 16 for c in rb.chunks)


def test_heading_less_file_is_one_chunk_titled_from_the_slug() -> None:
    rb = chunk_runbook("plain-notes", "Just restart it.\nThen check again.")
    assert len(rb.chunks) == 1
    assert rb.title == "Plain notes" and rb.chunks[0].text.startswith("Just restart")


def test_headings_inside_code_fences_are_not_sections() -> None:
    rb = chunk_runbook("x", "# X\n## Steps\n```\n## not a heading\n```\n")
    assert [c.heading_path for c in rb.chunks] == [("Steps",)]


def test_github_anchors_drop_punctuation_and_number_repeats() -> None:
    assert github_anchor("Check `kubectl` output (v1.2)!") == "check-kubectl-output-v12"
    rb = chunk_runbook("x", "# X\n## Steps\na\n## Steps\nb\n")
    assert [c.anchor for c in rb.chunks] == ["steps", "steps-1"]


def test_content_hash_changes_only_when_the_section_changes() -> None:
    a = chunk_runbook("x", "# X\n## One\nfirst\n## Two\nsecond\n")
    b = chunk_runbook("x", "# X\n## One\nfirst\n## Two\nchanged\n")
    assert a.chunks[0].content_hash == b.chunks[0].content_hash
    assert a.chunks[1].content_hash != b.chunks[1].content_hash
    assert CHUNKER_VERSION


def test_identifiers_split_on_camel_kebab_and_snake_case() -> None:
    assert split_identifier("KubeAPIDown") == ["kube", "api", "down"]
    assert split_identifier("etcd_grpc-requests") == ["etcd", "grpc", "requests"]
    assert expand_identifiers("KubeAPIDown") == "kubeapidown kube api down"
    assert identifier_terms('The "KubeAPIDown" OR NEAR(x) 10.0.0.1') == [
        "kubeapidown",
        "kube",
        "api",
        "down",
        "near",
    ]
