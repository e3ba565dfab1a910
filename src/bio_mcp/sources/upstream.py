"""One HTTP path to every upstream service: rate limit, deadline, retries, size cap, error translation.

A call has one deadline that covers its time in the rate-limit queue, every attempt and every
backoff; one attempt may use at most `attempt_timeout_s` of it, so a single slow answer leaves time
for a retry. Retries happen on 429, 5xx, timeouts, transport errors and bodies the source's
`check_body` finds cut short, with exponential backoff and full jitter (or the upstream's
Retry-After), and never past the deadline. Bodies are streamed and refused past `max_body_bytes`.
A cancelled call closes its connection at once: nothing keeps reading for a caller that has gone.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from logging import DEBUG, INFO, WARNING
from typing import Any
from urllib.parse import urlencode

import httpx2

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.logs import correlation_id, get_logger, log_event
from bio_mcp.sources.ratelimit import RateLimiter, Slot, wait_for_start

log = get_logger("upstream")

Params = Mapping[str, str | int | Sequence[str]]
# Given a non-2xx response, the typed error it means (None: use the generic one for its status).
ErrorTranslator = Callable[[int, bytes], BioMcpError | None]
# Given a 2xx body and its content type, the error when it is incomplete (retried), else None.
BodyCheck = Callable[[bytes, str], BioMcpError | None]

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


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes
    content_type: str
    retry_after_s: float | None


class _BodyTooLarge(Exception):
    def __init__(self, received: int, declared: int | None) -> None:
        super().__init__(received, declared)
        self.received = received
        self.declared = declared


class _SlotTrace:
    """The transport's trace hook for one attempt: holds the request's headers until the rate-limit
    slot's start (the slot was taken early, so the connection and the request were readied
    meanwhile), confirms the slot each time they have been written (a reconnect writes them again,
    later), and at the end gives the slot back if they never were."""

    def __init__(self, limiter: RateLimiter, slot: Slot) -> None:
        self.limiter = limiter
        self.slot = slot
        self.started = False
        self.confirmed = False

    async def __call__(self, event: str, info: dict[str, object]) -> None:
        if event.endswith("send_request_headers.started"):
            await wait_for_start(self.slot)
            self.started = True
        elif event.endswith(("send_request_headers.complete", "send_request_headers.failed")):
            await self.limiter.confirm(self.slot)
            self.confirmed = True

    async def settle(self) -> None:
        if self.confirmed:
            return
        if self.started:  # some bytes may have gone out: count the start, as of now
            await self.limiter.confirm(self.slot)
        else:
            await self.limiter.release(self.slot)


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
        attempt_timeout_s: float | None = None,
        max_body_bytes: int = 32 * 1024 * 1024,
        check_body: BodyCheck | None = None,
        fixed_params: Mapping[str, str] | None = None,
        secret_params: frozenset[str] = frozenset(),
        user_agent: str,
        headers: Mapping[str, str] | None = None,
        translate_error: ErrorTranslator | None = None,
        outage_code: ErrorCode = ErrorCode.UPSTREAM,
        backoff_base_s: float = BACKOFF_BASE_S,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.source = source
        self.base_url = base_url.rstrip("/")
        self.limiter = limiter
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.attempt_timeout_s = attempt_timeout_s or timeout_s
        self.max_body_bytes = max_body_bytes
        self.check_body = check_body
        self.fixed_params = dict(fixed_params or {})
        self.secret_params = secret_params
        self.translate_error = translate_error
        # The code of an error that says the source is out (unreachable, too slow, too big an answer):
        # UPSTREAM, or the caller's own (EMBEDDINGS for an embedding provider's API).
        self.outage_code = outage_code
        self.backoff_base_s = backoff_base_s
        self.stats = UpstreamStats()
        self._http = httpx2.AsyncClient(
            headers={"User-Agent": user_agent, **(headers or {})},
            transport=transport,
            limits=httpx2.Limits(max_connections=20, max_keepalive_connections=10),
        )

    def display_url(self, path: str, params: Params) -> str:
        """The request URL as a person may see it: fixed parameters included, secrets left out."""
        shown = {k: v for k, v in {**params, **self.fixed_params}.items() if k not in self.secret_params}
        query = urlencode(_flatten(shown), doseq=True)
        return f"{self.base_url}/{path.lstrip('/')}" + (f"?{query}" if query else "")

    async def request(
        self, path: str, params: Params, *, timeout_s: float | None = None, force_post: bool = False,
        json_body: object = None,
    ) -> UpstreamResponse:
        """GET `path` with `params` (POST past POST_THRESHOLD_CHARS or with `force_post`, the params
        as a form); with `json_body`, POST it as JSON and keep the params in the URL."""
        started = time.monotonic()
        deadline = started + (timeout_s or self.timeout_s)
        all_params = _flatten({**params, **self.fixed_params})
        too_long = len(urlencode(all_params, doseq=True)) > POST_THRESHOLD_CHARS
        method = "POST" if force_post or too_long or json_body is not None else "GET"
        url = f"{self.base_url}/{path.lstrip('/')}"
        shown_url = self.display_url(path, params)
        headers = {"X-Request-ID": correlation_id.get() or ""}
        last_error: BioMcpError | None = None
        for attempt in range(1, self.max_retries + 2):
            slot = await self.limiter.acquire(deadline, early=True)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                await self.limiter.release(slot)
                last_error = last_error or BioMcpError(
                    ErrorCode.RATE_LIMIT, f"{self.source}: the call's deadline passed waiting for a request slot",
                    {"url": shown_url},
                )
                break
            retry_after: float | None = None
            sent = time.monotonic()
            self.stats.requests += 1
            try:
                reply = await self._attempt(
                    method, url, all_params, json_body, headers, min(remaining, self.attempt_timeout_s), slot
                )
            except (httpx2.TimeoutException, TimeoutError):
                last_error = BioMcpError(
                    self.outage_code, f"{self.source} did not answer in time", {"url": shown_url, "attempt": attempt}
                )
            except httpx2.TransportError as exc:
                last_error = BioMcpError(
                    self.outage_code,
                    f"{self.source} could not be reached: {type(exc).__name__}",
                    {"url": shown_url, "attempt": attempt},
                )
            except _BodyTooLarge as exc:
                error = BioMcpError(
                    self.outage_code,
                    f"{self.source} answered with more than {self.max_body_bytes:,} bytes; the answer was refused",
                    {"url": shown_url, "limitBytes": self.max_body_bytes, "receivedBytes": exc.received,
                     "declaredBytes": exc.declared},
                )
                self._record_failure(error)
                raise error from None
            else:
                elapsed_ms = int((time.monotonic() - sent) * 1000)
                log_event(
                    log, DEBUG, "upstream response", source=self.source, method=method, url=shown_url,
                    status=reply.status, attempt=attempt, elapsed_ms=elapsed_ms, queued_ms=int(slot.waited_s * 1000),
                )
                if reply.status < 400:
                    incomplete = self.check_body(reply.body, reply.content_type) if self.check_body else None
                    if incomplete is None:
                        self.stats.last_success_at = time.time()
                        self.stats.latencies_ms = (self.stats.latencies_ms + [elapsed_ms])[-200:]
                        return UpstreamResponse(
                            url=shown_url, method=method, status=reply.status, body=reply.body,
                            content_type=reply.content_type, attempts=attempt,
                            elapsed_ms=int((time.monotonic() - started) * 1000),
                        )
                    # A body cut short is nearly always a dropped connection: worth another try.
                    incomplete.details = {**(incomplete.details or {}), "url": shown_url, "attempt": attempt}
                    last_error = incomplete
                else:
                    last_error = self._error_for(reply, shown_url, attempt)
                    if not (reply.status == 429 or reply.status >= 500):
                        self._record_failure(last_error)
                        raise last_error
                    retry_after = reply.retry_after_s
            if attempt > self.max_retries:
                break
            backoff = retry_after if retry_after is not None else random.uniform(
                0, min(BACKOFF_CAP_S, self.backoff_base_s * 2 ** (attempt - 1))
            )
            if time.monotonic() + backoff >= deadline:
                break
            log_event(log, INFO, "upstream retry", source=self.source, url=shown_url, attempt=attempt,
                      code=last_error.code.value, backoff_s=round(backoff, 3))
            await asyncio.sleep(backoff)
        if last_error is None:
            last_error = BioMcpError(self.outage_code, f"{self.source}: the call's deadline passed", {"url": shown_url})
        last_error.details = {**(last_error.details or {}), "attempts": min(attempt, self.max_retries + 1)}
        self._record_failure(last_error)
        log_event(log, WARNING, "upstream failed", source=self.source, url=shown_url, code=last_error.code.value)
        raise last_error

    async def _attempt(
        self, method: str, url: str, params: dict[str, str], json_body: object, headers: dict[str, str],
        timeout: float, slot: Slot,
    ) -> _Reply:
        """One request within `timeout` seconds in all (connect, send, every byte of the body),
        holding `slot` until its headers are written; the body is read up to the size cap."""
        trace = _SlotTrace(self.limiter, slot)
        options: dict[str, Any] = {"headers": headers, "timeout": timeout, "extensions": {"trace": trace}}
        if json_body is not None:
            options["params"], options["json"] = params, json_body
        else:
            options["params" if method == "GET" else "data"] = params
        try:
            async with asyncio.timeout(timeout):
                async with self._http.stream(method, url, **options) as response:
                    body = await self._read_capped(response)
        finally:
            await trace.settle()
        return _Reply(
            status=response.status_code, body=body, content_type=response.headers.get("content-type", ""),
            retry_after_s=_retry_after_s(response),
        )

    async def _read_capped(self, response: httpx2.Response) -> bytes:
        declared = response.headers.get("content-length")
        identity = response.headers.get("content-encoding", "identity") == "identity"
        if declared is not None and declared.isdigit() and identity and int(declared) > self.max_body_bytes:
            raise _BodyTooLarge(0, int(declared))
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > self.max_body_bytes:
                raise _BodyTooLarge(len(body), int(declared) if declared and declared.isdigit() else None)
        return bytes(body)

    def _error_for(self, reply: _Reply, url: str, attempt: int) -> BioMcpError:
        specific = self.translate_error(reply.status, reply.body) if self.translate_error else None
        if specific is not None:
            specific.details = {**(specific.details or {}), "status": reply.status, "url": url}
            return specific
        body = reply.body[:500].decode("utf-8", "replace")
        details = {"status": reply.status, "url": url, "attempt": attempt, "body": body}
        if reply.status == 429:
            return BioMcpError(ErrorCode.RATE_LIMIT, f"{self.source} refused the request: rate limit exceeded", details)
        if reply.status == 404:
            return BioMcpError(ErrorCode.NOT_FOUND, f"{self.source}: not found", details)
        if reply.status >= 500:
            return BioMcpError(ErrorCode.UPSTREAM, f"{self.source} failed with HTTP {reply.status}", details)
        return BioMcpError(ErrorCode.UPSTREAM, f"{self.source} rejected the request with HTTP {reply.status}", details)

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
