"""The `openai` provider: any server speaking OpenAI's ``POST /v1/embeddings``.

`base_url` is the server root (``https://api.openai.com``); a trailing ``/v1`` is accepted too,
since OpenAI's own SDKs spell the base that way. 429 and 5xx answers are retried a few times with
exponential backoff (honouring a numeric Retry-After); every other failure, and a malformed
answer, is a `BioMcpError(EMBEDDINGS)` carrying the HTTP status and the start of the body.
`dim` is learned from the first answer (embedding one probe text if asked before any call).
"""

from __future__ import annotations

import time
from typing import Any

import httpx2
import numpy as np

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import Embeddings

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_BODY_EXCERPT = 500
_MAX_RETRY_AFTER_S = 30.0


class OpenAIEmbeddings(Embeddings):
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        client: httpx2.Client | None = None,
    ) -> None:
        super().__init__(batch_size)
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        self.model = model
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx2.Client(timeout=timeout_s, headers=headers)
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
        self._client.close()

    def _post(self, batch: list[str]) -> httpx2.Response:
        url = f"{self.base_url}/v1/embeddings"
        body = {"model": self.model, "input": batch, "encoding_format": "float"}
        for attempt in range(self.max_retries + 1):
            try:
                response = self._client.post(url, json=body)
            except httpx2.HTTPError as exc:
                if attempt == self.max_retries:
                    raise BioMcpError(
                        ErrorCode.EMBEDDINGS,
                        "the embeddings endpoint cannot be reached",
                        {"url": url, "error": f"{type(exc).__name__}: {exc}"},
                    ) from None
            else:
                if response.status_code not in _RETRY_STATUSES or attempt == self.max_retries:
                    return response
                retry_after = response.headers.get("Retry-After", "")
                if retry_after.isdigit():
                    time.sleep(min(float(retry_after), _MAX_RETRY_AFTER_S))
                    continue
            time.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _encode(self, batch: list[str]) -> np.ndarray:
        response = self._post(batch)
        if response.status_code >= 400:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                f"the embeddings endpoint answered HTTP {response.status_code}",
                {"status": response.status_code, "body": response.text[:_BODY_EXCERPT]},
            )
        try:
            payload: Any = response.json()
            rows = sorted(payload["data"], key=lambda item: item["index"])
            matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                "the embeddings endpoint returned a malformed answer",
                {"error": f"{type(exc).__name__}: {exc}", "body": response.text[:_BODY_EXCERPT]},
            ) from None
        if matrix.ndim != 2 or matrix.shape[0] != len(batch):
            raise BioMcpError(
                ErrorCode.EMBEDDINGS,
                "the embeddings endpoint returned the wrong number of vectors",
                {"expected": len(batch), "got": list(matrix.shape)},
            )
        if self._dim is None:
            self._dim = int(matrix.shape[1])
        return matrix
