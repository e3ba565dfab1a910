"""The `jina` embeddings provider: Jina AI's ``POST /v1/embeddings`` (OpenAI-shaped answers).

Queries and passages are embedded with Jina's retrieval task adapters (``retrieval.query`` /
``retrieval.passage``); `dimensions` asks a Matryoshka model for shorter vectors. Requests (through
the `api` the features give, `sources.model_apis.ModelApi`), errors (code EMBEDDINGS) and the
answer's parsing are the `openai` provider's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import l2_normalise
from bio_mcp.search.embeddings.openai_compat import OpenAIEmbeddings
from bio_mcp.search.json_api import JsonApi


class JinaEmbeddings(OpenAIEmbeddings):
    def __init__(
        self, api: JsonApi, model: str = "jina-embeddings-v3", *, dimensions: int | None = None, batch_size: int = 64
    ) -> None:
        super().__init__(api, model, batch_size=batch_size)
        self.dimensions = dimensions
        self._dim = dimensions

    @property
    def model_id(self) -> str:
        return f"jina:{self.model}:{self.dimensions or 'native'}@{self.base_url}"

    def embed_query(self, text: str) -> np.ndarray:
        if not text.strip():
            raise BioMcpError(ErrorCode.EMBEDDINGS, "cannot embed an empty query", None)
        return l2_normalise(self._post([text], self._body([text], "retrieval.query")))[0]

    def _encode(self, batch: list[str]) -> np.ndarray:
        return self._post(batch, self._body(batch, "retrieval.passage"))

    def _body(self, batch: list[str], task: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "input": batch, "task": task}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        return body
