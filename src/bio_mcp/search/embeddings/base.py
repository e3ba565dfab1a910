"""The Embeddings adapter of seed 000: `dim`, `embed(texts)`, plus `model_id`.

Every provider returns one L2-normalised float32 vector per input text, embeds in batches of
`batch_size`, and raises `BioMcpError(EMBEDDINGS)` for empty input, a model that cannot be loaded
or an endpoint that fails. `model_id` names provider, model and version: vectors from different
`model_id`s are not comparable, so an index records the `model_id` its vectors came from and a
switch of provider or model is detected by comparing the two.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode

# Query vectors kept per embedder (each 1.5 KB at 384 dimensions).
QUERY_CACHE_SIZE = 256


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32; a zero row is an error, not a silent NaN."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if matrix.size and not np.all(norms > 0):
        raise BioMcpError(ErrorCode.EMBEDDINGS, "the model returned a zero vector", None)
    return matrix / norms


class Embeddings(ABC):
    def __init__(self, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    @abstractmethod
    def model_id(self) -> str:
        """Provider, model and version, e.g. "hash:v1:384"; known without loading the model."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """Vector length."""

    @abstractmethod
    def _encode(self, batch: list[str]) -> np.ndarray:
        """Raw vectors for one batch, shape (len(batch), dim); normalised by the caller.
        A local model is loaded by its first call (or by `load`)."""

    def load(self) -> None:
        """Load a local model now rather than at the first query (a server's warm-up). A remote or
        hashing provider has nothing to load: no request is made."""

    def embed_array(self, texts: Iterable[str]) -> np.ndarray:
        """All vectors as one (n, dim) float32 array, L2-normalised."""
        items = list(texts)
        if not items:
            raise BioMcpError(ErrorCode.EMBEDDINGS, "nothing to embed: the input is empty", None)
        blank = [i for i, text in enumerate(items) if not isinstance(text, str) or not text.strip()]
        if blank:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS, "cannot embed empty or non-string texts", {"indexes": blank[:20]}
            )
        # Batches of similar length pad less (the onnx provider pads to the longest in a batch).
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        parts = [
            self._encode([items[i] for i in order[start : start + self.batch_size]])
            for start in range(0, len(order), self.batch_size)
        ]
        sorted_rows = l2_normalise(np.concatenate(parts, axis=0))
        if sorted_rows.shape != (len(items), self.dim):
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                "the model returned vectors of the wrong shape",
                {"expected": [len(items), self.dim], "got": list(sorted_rows.shape)},
            )
        matrix = np.empty_like(sorted_rows)
        matrix[order] = sorted_rows
        return matrix

    def embed(self, texts: Iterable[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> np.ndarray:
        """One text's vector (read-only). The last queries' vectors are kept: a question is embedded
        by the search and again by the answer that reads the search's results."""
        vector = self._queries.get(text)
        if vector is None:
            vector = self.embed_array([text])[0]
            vector.setflags(write=False)
            self._queries[text] = vector
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector
