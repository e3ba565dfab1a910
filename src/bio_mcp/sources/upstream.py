"""One HTTP path to every upstream service: rate limit, deadline, retries, error translation.

A call has one deadline that covers its time in the rate-limit queue, every attempt and every
backoff. Retries happen on 429, 5xx, timeouts and transport errors, with exponential backoff and
full jitter (or the upstream's Retry-After), and never past the deadline.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from logging import DEBUG, INFO, WARNING
from urllib.parse import urlencode

import httpx2

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.logs import correlation_id, get_logger, log_event
from bio_mcp.sources.ratelimit import RateLimiter

log = get_logger("upstream")

Params = Mapping[str, str | int | Sequence[str]]
# Given a non-2xx response, the typed error it means (None: use the generic one for its status).
ErrorTranslator = Callable[[int, bytes], BioMcpError | None]

# Above this many characters of encoded parameters a request goes by POST (NCBI's advice for long
# id lists and terms; URLs past ~2,000 characters are cut by proxies).
POST_THRESHOLD_CHARS = 1800
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0


@dataclass(frozen=True)
class UpstreamResponse:
    url: str
    method: str
    status: int
    body: bytes
    content_type: str
    attempts: int
    elapsed_ms: int


@dataclass
class UpstreamStats:
    requests: int = 0
    failures: int = 0
    last_success_at: float | None = None
    last_failure_at: float | None = None
    last_error_code: str | None = None
    latencies_ms: list[int] = field(default_factory=list)


def _retry_after_s(response: httpx2.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None


class UpstreamClient:
    def __init__(
        self,
        source: str,
        base_url: str,
        limiter: RateLimiter,
        *,
        max_retries: int,
        timeout_s: float,
        fixed_params: Mapping[str, str] | None = None,
        secret_params: frozenset[str] = frozenset(),
        user_agent: str,
        translate_error: ErrorTranslator | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.source = source
        self.base_url = base_url.rstrip("/")
        self.limiter = limiter
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.fixed_params = dict(fixed_params or {})
        self.secret_params = secret_params
        self.translate_error = translate_error
        self.stats = UpstreamStats()
        self._http = httpx2.AsyncClient(
            headers={"User-Agent": user_agent},
            transport=transport,
            limits=httpx2.Limits(max_connections=20, max_keepalive_connections=10),
        )
        # The transport's trace reports the moment a request's headers are written, which is
        # when the rate-limit slot is really used.
        self._extensions = {"trace": self._trace}

    def display_url(self, path: str, params: Params) -> str:
        """The request URL as a person may see it: fixed parameters included, secrets left out."""
        shown = {k: v for k, v in {**params, **self.fixed_params}.items() if k not in self.secret_params}
        query = urlencode(_flatten(shown), doseq=True)
        return f"{self.base_url}/{path.lstrip('/')}" + (f"?{query}" if query else "")

    async def request(
        self, path: str, params: Params, *, timeout_s: float | None = None, force_post: bool = False
    ) -> UpstreamResponse:
        started = time.monotonic()
        deadline = started + (timeout_s or self.timeout_s)
        all_params = _flatten({**params, **self.fixed_params})
        method = "POST" if force_post or len(urlencode(all_params, doseq=True)) > POST_THRESHOLD_CHARS else "GET"
        url = f"{self.base_url}/{path.lstrip('/')}"
        shown_url = self.display_url(path, params)
        headers = {"X-Request-ID": correlation_id.get() or ""}
        last_error: BioMcpError | None = None
        for attempt in range(1, self.max_retries + 2):
            waited = await self.limiter.acquire(deadline)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            retry_after: float | None = None
            sent = time.monotonic()
            self.stats.requests += 1
            try:
                try:
                    response = await self._send(method, url, all_params, headers, remaining)
                finally:
                    self.limiter.release()
            except httpx2.TimeoutException:
                last_error = BioMcpError(
                    ErrorCode.UPSTREAM, f"{self.source} did not answer in time", {"url": shown_url, "attempt": attempt}
                )
            except httpx2.TransportError as exc:
                last_error = BioMcpError(
                    ErrorCode.UPSTREAM,
                    f"{self.source} could not be reached: {type(exc).__name__}",
                    {"url": shown_url, "attempt": attempt},
                )
            else:
                elapsed_ms = int((time.monotonic() - sent) * 1000)
                log_event(
                    log, DEBUG, "upstream response", source=self.source, method=method, url=shown_url,
                    status=response.status_code, attempt=attempt, elapsed_ms=elapsed_ms, queued_ms=int(waited * 1000),
                )
                if response.status_code < 400:
                    self.stats.last_success_at = time.time()
                    self.stats.latencies_ms = (self.stats.latencies_ms + [elapsed_ms])[-200:]
                    return UpstreamResponse(
                        url=shown_url, method=method, status=response.status_code, body=response.content,
                        content_type=response.headers.get("content-type", ""), attempts=attempt,
                        elapsed_ms=int((time.monotonic() - started) * 1000),
                    )
                last_error = self._error_for(response, shown_url, attempt)
                if not (response.status_code == 429 or response.status_code >= 500):
                    self._record_failure(last_error)
                    raise last_error
                retry_after = _retry_after_s(response)
            if attempt > self.max_retries:
                break
            backoff = retry_after if retry_after is not None else random.uniform(
                0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
            )
            if time.monotonic() + backoff >= deadline:
                break
            log_event(log, INFO, "upstream retry", source=self.source, url=shown_url, attempt=attempt,
                      code=last_error.code.value, backoff_s=round(backoff, 3))
            await asyncio.sleep(backoff)
        if last_error is None:
            last_error = BioMcpError(ErrorCode.UPSTREAM, f"{self.source}: the call's deadline passed", {"url": shown_url})
        last_error.details = {**(last_error.details or {}), "attempts": min(attempt, self.max_retries + 1)}
        self._record_failure(last_error)
        log_event(log, WARNING, "upstream failed", source=self.source, url=shown_url, code=last_error.code.value)
        raise last_error

    async def _send(
        self, method: str, url: str, params: dict[str, str], headers: dict[str, str], timeout: float
    ) -> httpx2.Response:
        if method == "GET":
            return await self._http.get(url, params=params, headers=headers, timeout=timeout,
                                        extensions=self._extensions)
        return await self._http.post(url, data=params, headers=headers, timeout=timeout, extensions=self._extensions)

    async def _trace(self, event: str, info: dict[str, object]) -> None:
        if event.endswith("send_request_headers.started"):
            self.limiter.note_sent()

    def _error_for(self, response: httpx2.Response, url: str, attempt: int) -> BioMcpError:
        specific = self.translate_error(response.status_code, response.content) if self.translate_error else None
        if specific is not None:
            specific.details = {**(specific.details or {}), "status": response.status_code, "url": url}
            return specific
        body = response.content[:500].decode("utf-8", "replace")
        details = {"status": response.status_code, "url": url, "attempt": attempt, "body": body}
        if response.status_code == 429:
            return BioMcpError(ErrorCode.RATE_LIMIT, f"{self.source} refused the request: rate limit exceeded", details)
        if response.status_code == 404:
            return BioMcpError(ErrorCode.NOT_FOUND, f"{self.source}: not found", details)
        if response.status_code >= 500:
            return BioMcpError(ErrorCode.UPSTREAM, f"{self.source} failed with HTTP {response.status_code}", details)
        return BioMcpError(ErrorCode.UPSTREAM, f"{self.source} rejected the request with HTTP {response.status_code}", details)

    def _record_failure(self, error: BioMcpError) -> None:
        self.stats.failures += 1
        self.stats.last_failure_at = time.time()
        self.stats.last_error_code = error.code.value

    async def aclose(self) -> None:
        await self._http.aclose()
        close = getattr(self.limiter, "aclose", None)
        if close is not None:
            await close()


def _flatten(params: Mapping[str, object]) -> dict[str, str]:
    """Lists become NCBI's comma-separated form; None values are dropped."""
    out: dict[str, str] = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            out[key] = ",".join(str(v) for v in value)
        else:
            out[key] = str(value)
    return out
