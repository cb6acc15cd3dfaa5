"""Embedders behind one protocol: the offline MiniLM ONNX model (sha256-checked at load), Ollama,
and a per-question cache. Import `memory.embedding.embedder` for `Embedder` and `build_embedder`;
the model modules load their runtimes only when built."""
