"""Small runbook corpora written into tmp dirs, and one real ONNX embedder per session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memory.embedding.embedder import OnnxMiniLmEmbedder
from memory.store import Database

RUNBOOKS = {
    "kube-api-down": """---
title: Kube API Down
---
# KubeAPIDown

## Meaning
The KubeAPIDown alert fires when the Kubernetes API servers are unreachable for 15 minutes.

## Diagnosis
Check the API server pods with kubectl.

### Network
Check firewall rules between Prometheus and the API server.

## Mitigation
Restart the failing control plane node.
""",
    "disk-filling-up": """# Disk filling up

## Symptoms
A filesystem is predicted to run out of space within hours.

## Remediation
Delete old logs, expand the volume.
""",
    "certificate-expiry": """# Certificate expiry

## Symptoms
A TLS certificate expires in less than 7 days; clients will fail the handshake.

## Remediation
Renew the certificate with cert-manager and reload the ingress.
""",
    "database-connection-pool-exhausted": """# Database connection pool exhausted

## Symptoms
Requests time out waiting for a database connection; the pool is at its maximum size.

## Remediation
Find long-running transactions and raise the pool size carefully.
""",
    "high-latency": """# High latency

## Symptoms
p99 latency of an HTTP service is far above its objective.

## Diagnosis
Compare latency before and after the last deploy.
""",
}


def write_corpus(root: Path, runbooks: dict[str, str] = RUNBOOKS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for slug, text in runbooks.items():
        (root / f"{slug}.md").write_text(text, "utf-8")
    return root


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "runbooks")


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "data" / "opsmemory.db")
    yield database
    await database.close()


@pytest.fixture(scope="session")
def onnx() -> OnnxMiniLmEmbedder:
    """The real model, loaded once: loading takes about a second."""
    return OnnxMiniLmEmbedder()
