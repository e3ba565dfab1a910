"""The `openai` provider: any server speaking OpenAI's ``POST /v1/embeddings``.

`api` is the server root (``https://api.openai.com``; `openai_base_url` accepts a trailing ``/v1``
too, since OpenAI's own SDKs spell the base that way) as a `search.json_api.JsonApi`, which the
features give as `sources.model_apis.ModelApi` (error code EMBEDDINGS), like the Jina and Cohere
clients: 429 and 5xx are retried with jittered backoff; every other failure, and a malformed answer,
is a `BioMcpError(EMBEDDINGS)` carrying the HTTP status and the start of the body.
`dim` is learned from the first answer (embedding one probe text if asked before any call).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import Embeddings
from bio_mcp.search.json_api import JsonApi

BODY_EXCERPT = 500


def openai_base_url(base_url: str) -> str:
    """The server root of an OpenAI-compatible base URL, with or without its ``/v1``."""
    return base_url.rstrip("/").removesuffix("/v1")


class OpenAIEmbeddings(Embeddings):
    def __init__(self, api: JsonApi, model: str, batch_size: int = 64) -> None:
        super().__init__(batch_size)
        self.base_url = api.base_url
        self.model = model
        self._api = api
        self._dim: int | None = None

    @property
    def model_id(self) -> str:
        return f"openai:{self.model}@{self.base_url}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._encode(["dimension probe"]).shape[1])
        return self._dim

    def close(self) -> None:
        self._api.close()

    def _encode(self, batch: list[str]) -> np.ndarray:
        return self._post(batch, {"model": self.model, "input": batch, "encoding_format": "float"})

    def _post(self, batch: list[str], body: dict[str, Any]) -> np.ndarray:
        """The vectors of `batch` from an OpenAI-shaped answer, in input order."""
        payload: Any = self._api.post("/v1/embeddings", body)
        try:
            rows = sorted(payload["data"], key=lambda item: item["index"])
            matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise self._api.malformed(exc, json.dumps(payload)[:BODY_EXCERPT]) from None
        if matrix.ndim != 2 or matrix.shape[0] != len(batch):
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"the {self._api.what} endpoint returned the wrong number of vectors",
                {"expected": len(batch), "got": list(matrix.shape)},
            )
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        return matrix
