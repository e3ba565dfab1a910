"""The `jina` embeddings provider: Jina AI's ``POST /v1/embeddings`` (OpenAI-shaped answers).

Queries and passages are embedded with Jina's retrieval task adapters (``retrieval.query`` /
``retrieval.passage``); `dimensions` asks a Matryoshka model for shorter vectors. Retries and
errors follow `search.provider_http` (code EMBEDDINGS).
"""

from __future__ import annotations

from typing import Any

import httpx2
import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import Embeddings, l2_normalise
from bio_mcp.search.provider_http import JsonApi

DEFAULT_BASE_URL = "https://api.jina.ai"


class JinaEmbeddings(Embeddings):
    def __init__(
        self,
        api_key: str | None,
        model: str = "jina-embeddings-v3",
        base_url: str = DEFAULT_BASE_URL,
        *,
        dimensions: int | None = None,
        batch_size: int = 64,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        client: httpx2.Client | None = None,
    ) -> None:
        super().__init__(batch_size)
        self.model = model
        self.dimensions = dimensions
        self.api = JsonApi(
            base_url.removesuffix("/v1"), api_key, what="Jina embeddings", code=ErrorCode.EMBEDDINGS,
            max_retries=max_retries, backoff_s=backoff_s, client=client,
        )
        self._dim: int | None = dimensions

    @property
    def model_id(self) -> str:
        return f"jina:{self.model}:{self.dimensions or 'native'}@{self.api.base_url}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._encode(["dimension probe"]).shape[1])
        return self._dim

    def close(self) -> None:
        self.api.close()

    def embed_query(self, text: str) -> np.ndarray:
        if not text.strip():
            raise BioMcpError(ErrorCode.EMBEDDINGS, "cannot embed an empty query", None)
        return l2_normalise(self._request([text], "retrieval.query"))[0]

    def _encode(self, batch: list[str]) -> np.ndarray:
        return self._request(batch, "retrieval.passage")

    def _request(self, batch: list[str], task: str) -> np.ndarray:
        body: dict[str, Any] = {"model": self.model, "input": batch, "task": task}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        payload = self.api.post("/v1/embeddings", body)
        try:
            rows = sorted(payload["data"], key=lambda item: item["index"])
            matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise self.api.malformed(exc, str(payload)) from None
        if matrix.ndim != 2 or matrix.shape[0] != len(batch):
            raise BioMcpError(
                ErrorCode.EMBEDDINGS, "the Jina embeddings endpoint returned the wrong number of vectors",
                {"expected": len(batch), "got": list(matrix.shape)},
            )
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        return matrix
