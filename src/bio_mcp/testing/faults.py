"""Fault injection and the arrival log shared by the fake E-utilities and ClinicalTrials.gov servers.

Each fake owns one `FaultPlan`, offers it to tests through `FaultInjectingService`, and wraps its
ASGI app in `FaultingApp`. The plan is driven from the test thread while the app runs on the server
thread, so every mutable piece sits behind a lock.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypedDict, Unpack
from urllib.parse import parse_qsl

import anyio

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
# The status logged for a request whose client hung up while it was delayed (nginx's convention).
CLIENT_CLOSED_REQUEST = 499
REQUEST_INFO_KEY = "bio_mcp_request_info"


@dataclass(frozen=True)
class RequestInfo:
    """One request as the services see it: query-string and form-body parameters merged, in order."""

    method: str
    path: str
    params: tuple[tuple[str, str], ...]

    def param(self, name: str) -> str | None:
        """The first value of `name` (NCBI and CT.gov both read the first of repeated scalars)."""
        for key, value in self.params:
            if key == name:
                return value
        return None

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.params if key == name]


def parse_request_params(query_string: bytes, body: bytes, content_type: str) -> tuple[tuple[str, str], ...]:
    """Query string first, then a urlencoded POST body, exactly as NCBI accepts either."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    if body and content_type.split(";")[0].strip().lower() == FORM_CONTENT_TYPE:
        pairs += parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return tuple(pairs)


def request_info_of(scope: Scope) -> RequestInfo:
    """The parameters `FaultingApp` read for this request (handlers never re-read the consumed body)."""
    info = scope.get("state", {}).get(REQUEST_INFO_KEY)
    if info is None:
        raise RuntimeError("the fake's handlers must run inside FaultingApp")
    return info


@dataclass(frozen=True)
class Fault:
    """What to do to one request instead of, or on top of, serving it normally.

    With `status` set the real handler is skipped and `body` (or `body_for(request)`) is sent.
    `delay_s` waits before answering: a slow server, or past the client's timeout, a timeout.
    `keep_fraction` serves the real response with its body cut short: truncated XML or JSON.
    `chunked` sends the body in pieces without a Content-Length, so its size is known only at the end.
    """

    name: str
    status: int | None = None
    body: bytes = b""
    body_for: Callable[[RequestInfo], bytes] | None = None
    content_type: str = "text/plain; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    keep_fraction: float | None = None
    chunked: bool = False

    @classmethod
    def http_status(
        cls, status: int, body: bytes = b"", content_type: str = "text/plain; charset=utf-8"
    ) -> Fault:
        return cls(name=f"http_{status}", status=status, body=body, content_type=content_type)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls(name="slow", delay_s=seconds)

    @classmethod
    def truncated(cls, keep_fraction: float = 0.5) -> Fault:
        if not 0.0 <= keep_fraction < 1.0:
            raise ValueError("keep_fraction must be in [0, 1)")
        return cls(name="truncated", keep_fraction=keep_fraction)

    def body_of(self, request: RequestInfo) -> bytes:
        return self.body_for(request) if self.body_for is not None else self.body


@dataclass
class FaultRule:
    fault: Fault
    path_suffix: str | None = None
    when: Callable[[RequestInfo], bool] | None = None
    # None: applies until cleared; otherwise the number of matching requests still to fault.
    remaining: int | None = 1

    def matches(self, request: RequestInfo) -> bool:
        if self.path_suffix is not None and not request.path.endswith(self.path_suffix):
            return False
        return self.when is None or self.when(request)


@dataclass(frozen=True)
class RateLimit:
    """Requests allowed in any trailing window, counted per api_key (or per anonymous caller).

    NCBI allows 3 requests/second without a key and 10 with one; `per_window_with_key` expresses
    that split. Excess requests are always recorded as violations; with `enforce` they are also
    answered with the service's HTTP 429 instead of being served.
    """

    per_window: int
    per_window_with_key: int | None = None
    window_s: float = 1.0
    enforce: bool = False

    def limit_for(self, api_key: str | None) -> int:
        if api_key and self.per_window_with_key is not None:
            return self.per_window_with_key
        return self.per_window


@dataclass(frozen=True)
class Arrival:
    """One request in the arrival log."""

    monotonic: float
    wall: datetime
    method: str
    path: str
    params: tuple[tuple[str, str], ...]
    status: int
    fault: str | None = None
    rate_limited: bool = False

    def param(self, name: str) -> str | None:
        for key, value in self.params:
            if key == name:
                return value
        return None


def busiest_window(arrivals: Iterable[Arrival], window_s: float = 1.0) -> int:
    """The most arrivals that fall in any half-open window of `window_s` seconds."""
    times = sorted(arrival.monotonic for arrival in arrivals)
    best = 0
    start = 0
    for end, moment in enumerate(times):
        while moment - times[start] >= window_s:
            start += 1
        best = max(best, end - start + 1)
    return best


def window_violations(arrivals: Iterable[Arrival], limit: int, window_s: float = 1.0) -> list[Arrival]:
    """Every arrival that was beyond the `limit`-th within the `window_s` seconds ending at it."""
    ordered = sorted(arrivals, key=lambda arrival: arrival.monotonic)
    excess: list[Arrival] = []
    start = 0
    for end, arrival in enumerate(ordered):
        while arrival.monotonic - ordered[start].monotonic >= window_s:
            start += 1
        if end - start + 1 > limit:
            excess.append(arrival)
    return excess


class ArrivalLog:
    """Every request a fake received, with its arrival time (monotonic and wall clock) and final status."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._arrivals: list[Arrival] = []

    def record(self, arrival: Arrival) -> None:
        with self._lock:
            self._arrivals.append(arrival)

    def clear(self) -> None:
        with self._lock:
            self._arrivals.clear()

    @property
    def arrivals(self) -> list[Arrival]:
        """A snapshot in arrival order (entries are logged when answered, so completion order may differ)."""
        with self._lock:
            return sorted(self._arrivals, key=lambda arrival: arrival.monotonic)

    def to(self, path_suffix: str) -> list[Arrival]:
        return [arrival for arrival in self.arrivals if arrival.path.endswith(path_suffix)]

    def busiest_window(self, window_s: float = 1.0) -> int:
        return busiest_window(self.arrivals, window_s)

    def violations(self, limit: int, window_s: float = 1.0) -> list[Arrival]:
        return window_violations(self.arrivals, limit, window_s)

    def __len__(self) -> int:
        with self._lock:
            return len(self._arrivals)


TooManyRequests = Callable[[RequestInfo, int, int], Fault]


class FaultPlan:
    """The faults, latency and rate limit one fake applies, and its arrival log."""

    def __init__(self, too_many_requests: TooManyRequests) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []
        self._recent: dict[str, deque[float]] = {}
        self._too_many_requests = too_many_requests
        self.log = ArrivalLog()
        self.latency_s = 0.0
        self.rate_limit: RateLimit | None = None
        # Bumped by reset(), so a request still in flight from before it is not logged after it.
        self.generation = 0

    def inject(
        self,
        fault: Fault,
        *,
        times: int | None = 1,
        path: str | None = None,
        when: Callable[[RequestInfo], bool] | None = None,
    ) -> FaultRule:
        """Fault the next `times` requests whose path ends with `path` and satisfy `when`.

        `times=None` keeps faulting until `clear()`. Rules are tried in the order they were added.
        """
        rule = FaultRule(fault=fault, path_suffix=path, when=when, remaining=times)
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
            self._recent.clear()
        self.latency_s = 0.0
        self.rate_limit = None

    def reset(self) -> None:
        self.clear()
        self.generation += 1
        self.log.clear()

    @property
    def pending(self) -> list[FaultRule]:
        with self._lock:
            return list(self._rules)

    def take(self, request: RequestInfo) -> Fault | None:
        with self._lock:
            for rule in self._rules:
                if rule.matches(request):
                    if rule.remaining is not None:
                        rule.remaining -= 1
                        if rule.remaining <= 0:
                            self._rules.remove(rule)
                    return rule.fault
        return None

    def over_rate_limit(self, request: RequestInfo, arrived: float) -> tuple[int, int] | None:
        """(count in window, limit) when this arrival exceeds the rate limit, else None."""
        limit_rule = self.rate_limit
        if limit_rule is None:
            return None
        api_key = request.param("api_key")
        with self._lock:
            recent = self._recent.setdefault(api_key or "", deque())
            while recent and arrived - recent[0] >= limit_rule.window_s:
                recent.popleft()
            recent.append(arrived)
            count = len(recent)
        limit = limit_rule.limit_for(api_key)
        return (count, limit) if count > limit else None

    def too_many_requests(self, request: RequestInfo, count: int, limit: int) -> Fault:
        return self._too_many_requests(request, count, limit)


class FaultScope(TypedDict, total=False):
    """Which requests `FaultPlan.inject` faults; its signature holds the defaults."""

    times: int | None
    path: str | None
    when: Callable[[RequestInfo], bool] | None


class FaultInjectingService:
    """A fake's `faults` plan around its `app`, and what it offers tests: injection, latency, the log."""

    def __init__(self, app: ASGIApp, too_many_requests: TooManyRequests) -> None:
        self.faults = FaultPlan(too_many_requests)
        self.app = FaultingApp(app, self.faults)

    @property
    def requests(self) -> list[Arrival]:
        return self.faults.log.arrivals

    def inject(self, fault: Fault, **scope: Unpack[FaultScope]) -> FaultRule:
        """Apply `fault` to the next `times` requests (None: until reset) whose path ends with `path`."""
        return self.faults.inject(fault, **scope)

    @property
    def latency_s(self) -> float:
        return self.faults.latency_s

    @latency_s.setter
    def latency_s(self, seconds: float) -> None:
        self.faults.latency_s = seconds

    @staticmethod
    def server_error(status: int = 503, body: bytes = b"") -> Fault:
        return Fault.http_status(status, body)

    @staticmethod
    def slow(seconds: float) -> Fault:
        return Fault.slow(seconds)

    @staticmethod
    def truncated(keep_fraction: float = 0.5) -> Fault:
        return Fault.truncated(keep_fraction)


@dataclass
class _CapturedResponse:
    status: int = 500
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    body: bytearray = field(default_factory=bytearray)


class FaultingApp:
    """ASGI wrapper that logs each request and applies the plan's latency, rate limit and faults."""

    def __init__(self, app: ASGIApp, plan: FaultPlan) -> None:
        self.app = app
        self.plan = plan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = time.monotonic()
        wall = datetime.now(UTC)
        generation = self.plan.generation
        body = await _read_body(receive)
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        request = RequestInfo(
            method=scope["method"],
            path=scope["path"],
            params=parse_request_params(
                scope.get("query_string", b""), body, headers.get("content-type", "")
            ),
        )
        scope.setdefault("state", {})[REQUEST_INFO_KEY] = request
        over = self.plan.over_rate_limit(request, arrived)
        fault = self.plan.take(request)
        rate_limit = self.plan.rate_limit
        if over is not None and rate_limit is not None and rate_limit.enforce:
            fault = replace(
                self.plan.too_many_requests(request, *over), delay_s=fault.delay_s if fault else 0.0
            )
        delay = self.plan.latency_s + (fault.delay_s if fault else 0.0)
        if delay > 0 and await _client_left_during(delay, receive):
            # nginx's 499: the client closed the connection before it was answered.
            if generation == self.plan.generation:
                self.plan.log.record(Arrival(
                    monotonic=arrived, wall=wall, method=request.method, path=request.path, params=request.params,
                    status=CLIENT_CLOSED_REQUEST, fault=fault.name if fault else None, rate_limited=over is not None,
                ))
            return
        if fault is not None and fault.status is not None:
            response = _CapturedResponse(
                status=fault.status,
                headers=[(b"content-type", fault.content_type.encode())]
                + [(key.lower().encode(), value.encode()) for key, value in fault.headers],
                body=bytearray(fault.body_of(request)),
            )
        else:
            response = await _capture(self.app, scope, body)
            if fault is not None and fault.keep_fraction is not None:
                del response.body[int(len(response.body) * fault.keep_fraction) :]
        # Logged before sending, so a client that has its answer always finds the request in the log.
        if generation == self.plan.generation:
            self.plan.log.record(
                Arrival(
                    monotonic=arrived,
                    wall=wall,
                    method=request.method,
                    path=request.path,
                    params=request.params,
                    status=response.status,
                    fault=fault.name if fault else None,
                    rate_limited=over is not None,
                )
            )
        await _send(response, send, chunked=fault is not None and fault.chunked)


async def _client_left_during(delay_s: float, receive: Receive) -> bool:
    """Wait `delay_s`; True as soon as the client disconnects instead (the body is already read,
    so the server's next message can only be the disconnect)."""
    with anyio.move_on_after(delay_s):
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return True
    return False


async def _read_body(receive: Receive) -> bytes:
    chunks = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks += message.get("body", b"")
        if not message.get("more_body", False):
            break
    return bytes(chunks)


async def _capture(app: ASGIApp, scope: Scope, body: bytes) -> _CapturedResponse:
    captured = _CapturedResponse()
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if delivered:
            # The body was already handed over; block like a quiet client until the app is done.
            await anyio.sleep_forever()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def collect(message: Message) -> None:
        if message["type"] == "http.response.start":
            captured.status = message["status"]
            captured.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            captured.body += message.get("body", b"")

    await app(scope, replay, collect)
    return captured


CHUNK_BYTES = 64 * 1024


async def _send(response: _CapturedResponse, send: Send, *, chunked: bool = False) -> None:
    headers = [(key, value) for key, value in response.headers if key.lower() != b"content-length"]
    if not chunked:
        headers.append((b"content-length", str(len(response.body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    if not chunked:
        await send({"type": "http.response.body", "body": bytes(response.body), "more_body": False})
        return
    body = bytes(response.body)
    for start in range(0, len(body), CHUNK_BYTES):
        await send({"type": "http.response.body", "body": body[start : start + CHUNK_BYTES], "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})
