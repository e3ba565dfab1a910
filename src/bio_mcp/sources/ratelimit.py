"""Rate limits by request start, shared by every caller of a source.

The rule is NCBI's: at most `limit` request starts in any window of `window_s` seconds. Starts
are spaced evenly, `window_s / limit` apart (plus a small margin), rather than sent in bursts: a
burst arrives bunched behind a slow server's queue and can look like more than `limit` in one
window at the other end. A caller
whose slot lies beyond its deadline reserves nothing and fails at once with RATE_LIMIT, so a
slow upstream makes callers fail fast instead of queueing for minutes.

`LocalRateLimiter` shares one limit within a process. `RedisRateLimiter` runs the same
reservation atomically in Redis (on the Redis clock), so every replica that names the same key
(one per NCBI API key) shares one limit.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Protocol

from bio_mcp.errors import BioMcpError, ErrorCode

# Request starts are spread a little wider than the rule, so network jitter between our start
# and the upstream's arrival clock cannot put limit+1 arrivals inside one window.
WINDOW_MARGIN_S = 0.03


class RateLimiter(Protocol):
    limit: int
    window_s: float

    async def acquire(self, deadline: float | None = None) -> float:
        """Wait for a start slot; return the seconds waited. `deadline` is a time.monotonic() value."""
        ...

    def queue_length(self) -> int:
        """Callers of this process waiting for a slot right now."""
        ...

    def note_sent(self) -> None:
        """The request that holds the slot has just written its first byte to the wire."""
        ...

    async def pace(self, deadline: float | None = None) -> float:
        """Wait for a slot and use it at once: for a caller that sends through another client."""
        ...

    def release(self) -> None:
        """The request that holds the slot is done with it (sent, or failed before sending)."""
        ...


def limit_for_rate(rate_per_s: float) -> tuple[int, float]:
    """(limit, window) for a rate: 10/s is 10 per second; 0.5/s is 1 per 2 seconds."""
    if rate_per_s >= 1:
        return int(rate_per_s), 1.0
    return 1, 1.0 / rate_per_s


def _too_late(source: str, wait_s: float) -> BioMcpError:
    return BioMcpError(
        ErrorCode.RATE_LIMIT,
        f"{source}: the next request slot is {wait_s:.1f}s away, past this call's deadline; retry later",
        {"source": source, "wait_s": round(wait_s, 3)},
    )


class LocalRateLimiter:
    """A slot is held from `acquire` until its request really writes to the wire (`note_sent`),
    and the next slot opens `spacing` after that write. However long a busy event loop delays a
    send, the requests arrive spaced, never bunched together."""

    def __init__(self, source: str, limit: int, window_s: float = 1.0) -> None:
        self.source = source
        self.limit = limit
        self.window_s = window_s
        self._spacing = (window_s + WINDOW_MARGIN_S) / limit
        self._last: float | None = None
        self._gate = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None
        self._waiting = 0

    async def acquire(self, deadline: float | None = None) -> float:
        started = time.monotonic()
        if deadline is not None:
            earliest = started if self._last is None else max(started, self._last + self._spacing)
            projected = earliest + self._waiting * self._spacing
            if projected > deadline:
                raise _too_late(self.source, projected - started)
        self._waiting += 1
        try:
            await self._gate.acquire()
        finally:
            self._waiting -= 1
        try:
            if self._last is not None:
                wait = self._last + self._spacing - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
        except BaseException:
            self._gate.release()
            raise
        self._holder = asyncio.current_task()
        self._last = time.monotonic()
        return self._last - started

    async def pace(self, deadline: float | None = None) -> float:
        waited = await self.acquire(deadline)
        self.note_sent()
        return waited

    def note_sent(self) -> None:
        if self._holder is asyncio.current_task():
            self._last = max(self._last or 0.0, time.monotonic())
            self.release()

    def release(self) -> None:
        # Only the task that holds the slot may give it up: a late call from an earlier holder
        # must not open the gate under the current one.
        if self._holder is not None and self._holder is asyncio.current_task():
            self._holder = None
            self._gate.release()

    def queue_length(self) -> int:
        return self._waiting


# KEYS[1] the last reserved slot (microseconds on the Redis clock); ARGV: spacing_us, max_wait_us
# (-1: no deadline). Returns the wait in microseconds, or -(wait+1) when the slot would be past the
# deadline (nothing reserved).
_RESERVE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing = tonumber(ARGV[1])
local max_wait = tonumber(ARGV[2])
local last = redis.call('GET', KEYS[1])
local slot = now
if last then
  slot = math.max(now, tonumber(last) + spacing)
end
local wait = slot - now
if max_wait >= 0 and wait > max_wait then
  return -(wait + 1)
end
redis.call('SET', KEYS[1], slot, 'PX', math.floor((wait + spacing) / 1000) + 1000)
return wait
"""


class RedisRateLimiter:
    """One limit per key across every process that uses the same Redis and key."""

    def __init__(self, source: str, redis_url: str, key: str, limit: int, window_s: float = 1.0) -> None:
        import redis.asyncio as redis_asyncio

        self.source = source
        self.limit = limit
        self.window_s = window_s
        self._spacing_us = int((window_s + WINDOW_MARGIN_S) / limit * 1_000_000)
        self._redis = redis_asyncio.from_url(redis_url)
        self._script = self._redis.register_script(_RESERVE_LUA)
        self._key = f"bio-mcp:ratelimit:{source}:{key}"
        self._waiting = 0

    async def acquire(self, deadline: float | None = None) -> float:
        max_wait_us = -1 if deadline is None else max(int((deadline - time.monotonic()) * 1_000_000), 0)
        try:
            result = int(await self._script(keys=[self._key], args=[self._spacing_us, max_wait_us]))
        except Exception as exc:  # redis-py raises several unrelated types for an unreachable server
            raise BioMcpError(
                ErrorCode.RATE_LIMIT, f"{self.source}: the shared rate limiter in Redis is unreachable",
                {"error": type(exc).__name__},
            ) from exc
        if result < 0:
            raise _too_late(self.source, (-result - 1) / 1_000_000)
        wait = result / 1_000_000
        if wait > 0:
            self._waiting += 1
            try:
                await asyncio.sleep(wait)
            finally:
                self._waiting -= 1
        return wait

    def queue_length(self) -> int:
        return self._waiting

    async def pace(self, deadline: float | None = None) -> float:
        return await self.acquire(deadline)

    def note_sent(self) -> None:
        """Slots are reserved in Redis on its clock; a late send is absorbed by the window margin."""

    def release(self) -> None:
        """Nothing is held locally between a reservation and its send."""

    async def aclose(self) -> None:
        await self._redis.aclose()


def limiter_key(secret: str | None) -> str:
    """A stable key per credential that never exposes the credential itself."""
    return hashlib.sha256((secret or "anonymous").encode()).hexdigest()[:16]


def build_rate_limiter(source: str, rate_per_s: float, redis_url: str | None, credential: str | None) -> RateLimiter:
    limit, window = limit_for_rate(rate_per_s)
    if redis_url:
        return RedisRateLimiter(source, redis_url, limiter_key(credential), limit, window)
    return LocalRateLimiter(source, limit, window)
