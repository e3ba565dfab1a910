"""One retrying JSON POST for the third-party model APIs (Jina, Cohere), with the conventions of the
`openai` embeddings provider: 429 and 5xx are retried with exponential backoff (a numeric
Retry-After is honoured, capped), an unreachable endpoint, any other HTTP failure and a malformed
answer are a `BioMcpError` of the caller's code carrying the URL, the status and the start of the
body, never a stack trace.
"""

from __future__ import annotations

import time
from typing import Any

import httpx2

from bio_mcp.errors import BioMcpError, ErrorCode

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
BODY_EXCERPT = 500
MAX_RETRY_AFTER_S = 30.0


class JsonApi:
    """POSTs JSON to one API root with a bearer key; `what` names the API in error messages."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        what: str,
        code: ErrorCode,
        timeout_s: float = 30.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        client: httpx2.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.what = what
        self.code = code
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx2.Client(timeout=timeout_s, headers=headers)

    def close(self) -> None:
        self._client.close()

    def _send(self, url: str, body: dict[str, Any]) -> httpx2.Response:
        for attempt in range(self.max_retries + 1):
            try:
                response = self._client.post(url, json=body)
            except httpx2.HTTPError as exc:
                if attempt == self.max_retries:
                    raise BioMcpError(
                        self.code, f"the {self.what} endpoint cannot be reached",
                        {"url": url, "error": f"{type(exc).__name__}: {exc}"},
                    ) from None
            else:
                if response.status_code not in RETRY_STATUSES or attempt == self.max_retries:
                    return response
                retry_after = response.headers.get("Retry-After", "")
                if retry_after.isdigit():
                    time.sleep(min(float(retry_after), MAX_RETRY_AFTER_S))
                    continue
            time.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The decoded JSON answer of `POST base_url + path`."""
        url = f"{self.base_url}{path}"
        response = self._send(url, body)
        if response.status_code >= 400:
            raise BioMcpError(
                self.code, f"the {self.what} endpoint answered HTTP {response.status_code}",
                {"url": url, "status": response.status_code, "body": response.text[:BODY_EXCERPT]},
            )
        try:
            return response.json()
        except ValueError as exc:
            raise self.malformed(exc, response.text) from None

    def malformed(self, exc: Exception, body: str = "") -> BioMcpError:
        return BioMcpError(
            self.code, f"the {self.what} endpoint returned a malformed answer",
            {"error": f"{type(exc).__name__}: {exc}", "body": body[:BODY_EXCERPT]},
        )
