"""The third-party model APIs (Jina, Cohere, any OpenAI-compatible server) as the search layer's
HTTP-backed embedding and rerank providers call them: a JSON POST with a bearer key through the
house's one upstream client, so these calls get what every upstream call gets (a deadline, retries
on 429 and 5xx with full jitter or the API's Retry-After, a body cap, typed errors).

The providers are synchronous (they are called from sync code and from worker threads of a running
event loop), so each API runs its client on a private event loop in a daemon thread, started at the
first call: a provider nobody closes holds no process open at exit.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from bio_mcp import __version__
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ratelimit import build_rate_limiter
from bio_mcp.sources.upstream import BACKOFF_BASE_S, UpstreamClient

BODY_EXCERPT = 500
# A ceiling of our own, below the APIs' published limits; past theirs they answer 429, which is retried.
REQUESTS_PER_S = 10.0
# An embeddings answer is about 20 bytes a dimension a text: 64 texts of 3,072 dimensions is 4 MB.
MAX_BODY_BYTES = 32 * 1024 * 1024

T = TypeVar("T")


class ModelApi:
    """POSTs JSON to one API root with a bearer key; `what` names the API in error messages and
    `code` is the code of every error (EMBEDDINGS for an embedding provider, UPSTREAM for a reranker).
    One attempt may take `timeout_s`; a call, its `max_retries` retries and their backoff together
    take at most `max_retries + 1` times that."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        what: str,
        code: ErrorCode,
        timeout_s: float = 30.0,
        max_retries: int = 2,
        backoff_s: float = BACKOFF_BASE_S,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.what = what
        self.code = code
        self._http = UpstreamClient(
            what, self.base_url, build_rate_limiter(what, REQUESTS_PER_S, None, None),
            max_retries=max_retries, timeout_s=timeout_s * (max_retries + 1), attempt_timeout_s=timeout_s,
            max_body_bytes=max_body_bytes, user_agent=f"bio-mcp/{__version__}",
            headers={"Authorization": f"Bearer {api_key}"} if api_key else None,
            translate_error=self._http_error, outage_code=code, backoff_base_s=backoff_s,
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The decoded JSON answer of `POST base_url + path`."""
        response = self._run(self._http.request(path, {}, json_body=body))
        try:
            return json.loads(response.body)
        except ValueError as exc:
            raise self.malformed(exc, response.body.decode("utf-8", "replace")) from None

    def malformed(self, exc: Exception, body: str = "") -> BioMcpError:
        return BioMcpError(
            self.code, f"the {self.what} endpoint returned a malformed answer",
            {"error": f"{type(exc).__name__}: {exc}", "body": body[:BODY_EXCERPT]},
        )

    def close(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._http.aclose(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()

    def _http_error(self, status: int, body: bytes) -> BioMcpError:
        return BioMcpError(
            self.code, f"the {self.what} endpoint answered HTTP {status}",
            {"status": status, "body": body[:BODY_EXCERPT].decode("utf-8", "replace")},
        )

    def _run(self, call: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(call, self._running_loop()).result()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=f"bio-mcp {self.what}", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop
