"""Rate limits by request start, shared by every caller of a source, kept at send time.

The rule is NCBI's: at most `limit` request starts in any window of `window_s` seconds, as the
upstream counts them when they arrive. Both limiters keep one sliding log of starts:

- A caller may take a slot only when fewer than `limit` starts lie in the last `window_s` plus a
  margin (the margin absorbs how unevenly requests travel to, and are stamped by, the upstream),
  and not sooner than `min_gap` after the previous reservation, so requests never leave in a bunch.
- A slot is taken right before the request goes out and counts as *pending*, that is in every
  window from then on, until the request's headers have really been written (`confirm`): then its
  start is restamped with that moment. However late a busy event loop sends, the log never holds
  a start earlier than the bytes left, so nobody else can squeeze a start in beside it.
- A caller that gives up (its deadline passed, it was cancelled, the connection failed before a
  byte was written) gives its slot back (`release`): only a caller that can still use a slot holds
  one. Callers waiting for a slot hold nothing; they queue in their own process, and only the one
  at the front asks the log, so waiting costs the shared store a few requests per second.
- A caller whose turn cannot come before its deadline fails at once with RATE_LIMIT.
- A slot may be taken up to `LEAD_S` before the start it is for (`acquire(early=True)`): the slot
  carries that start (`Slot.start_at`), the caller readies its request meanwhile (a connection, the
  request's bytes) and writes it no sooner (`wait_for_start`). On a busy process, getting a request
  out takes tens of milliseconds; taken at the start itself, a slot would lose them from the limit
  each time. A request written later than its start is only safer: its start is restamped.

`LocalRateLimiter` keeps the log in the process. `RedisRateLimiter` keeps it in a Redis sorted set
and runs every step as one Lua script on the Redis clock, so every replica that names the same key
(one per NCBI API key) shares one limit; its client is the `redis` extra.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from logging import WARNING
from typing import Protocol

import anyio

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.logs import get_logger, log_event

log = get_logger("ratelimit")

REDIS_EXTRA_HINT = "pip install 'bio-mcp[redis]'"

# Starts are counted over window_s + this. Our own end needs none: a start is stamped after its
# bytes were written and the next one is written after it is allowed, so starts leave at least a
# window apart (measured at the wire, bench/ratelimit_replicas.py). The margin is for the way to
# the upstream: two requests that left one window apart arrive closer by the difference in their
# travel times, and are counted closer by any difference in how long the upstream takes to count
# them. NCBI_RATE_MARGIN_MS sets it for NCBI.
WINDOW_MARGIN_S = 0.02
# How long before its start a slot may be taken (see the module's docstring).
LEAD_S = 0.1
# Consecutive starts are at least this share of the even spacing (window / limit) apart.
MIN_GAP_SHARE = 0.5
# A slot is worth taking only with this long left before the caller's deadline: a request sent
# with less would use up the upstream's limit for an answer nobody waits for.
MIN_USEFUL_S = 0.1
# A slot not yet confirmed counts as if it started this far in the future, so it is in every
# window until it is confirmed or given back; if its process dies, it lapses after this long.
PENDING_HOLD_S = 30.0


@dataclass(frozen=True)
class Slot:
    """One reserved start: confirm it when the request's headers are written, or release it. Its
    request may not be written before `start_at` (time.monotonic())."""

    token: str
    waited_s: float
    start_at: float


async def wait_for_start(slot: Slot) -> None:
    """Sleep until the slot's start: its request may be written from then on."""
    early = slot.start_at - time.monotonic()
    if early > 0:
        await asyncio.sleep(early)


class RateLimiter(Protocol):
    limit: int
    window_s: float

    async def acquire(self, deadline: float | None = None, *, early: bool = False) -> Slot:
        """Wait for a start slot. `deadline` is a time.monotonic() value; RATE_LIMIT past it. With
        `early`, the slot may come up to LEAD_S before its start (`wait_for_start`); without, it
        comes at its start."""
        ...

    async def confirm(self, slot: Slot) -> None:
        """The request holding `slot` has just written its headers: its start is now."""
        ...

    async def release(self, slot: Slot) -> None:
        """The request holding `slot` never started: give the slot back."""
        ...

    async def pace(self, deadline: float | None = None) -> float:
        """Take a slot and use it at once, for a caller that sends through another client; the
        seconds waited."""
        ...

    def queue_length(self) -> int:
        """Callers of this process waiting for a slot right now."""
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


class _QueuedLimiter(ABC):
    """The waiting side both limiters share: a FIFO queue per process whose front asks the log."""

    def __init__(self, source: str, limit: int, window_s: float, margin_s: float = WINDOW_MARGIN_S) -> None:
        self.source = source
        self.limit = limit
        self.window_s = window_s
        self.span_s = window_s + margin_s
        self.min_gap_s = window_s / limit * MIN_GAP_SHARE
        self._gate = asyncio.Lock()
        self._waiting = 0

    @abstractmethod
    async def _reserve(self, token: str) -> tuple[bool, float]:
        """(True, seconds until its start) when a slot starting within LEAD_S was taken for
        `token`, else (False, seconds to wait before asking again)."""

    @abstractmethod
    async def _confirm(self, token: str) -> None:
        """The request of `token` started: stamp its slot with now."""

    @abstractmethod
    async def _release(self, token: str) -> None:
        """The request of `token` never started: give its slot back."""

    async def acquire(self, deadline: float | None = None, *, early: bool = False) -> Slot:
        slot = await self._acquire(deadline)
        if not early:
            try:
                await wait_for_start(slot)
            except BaseException:
                await self.release(slot)
                raise
        return slot

    async def _acquire(self, deadline: float | None) -> Slot:
        started = time.monotonic()
        ahead = self._waiting
        # At most `limit` starts fit in any span, so the callers ahead need this long at least.
        if deadline is not None and ahead >= self.limit:
            at_least = (ahead // self.limit) * self.span_s
            if started + at_least > deadline:
                raise _too_late(self.source, at_least)
        self._waiting += 1
        try:
            if deadline is None:
                await self._gate.acquire()
            else:
                try:
                    async with asyncio.timeout_at(_loop_time(deadline)):
                        await self._gate.acquire()
                except TimeoutError:
                    raise _too_late(self.source, time.monotonic() - started) from None
            try:
                token = uuid.uuid4().hex
                while True:
                    if deadline is not None and deadline - time.monotonic() < MIN_USEFUL_S:
                        raise BioMcpError(
                            ErrorCode.RATE_LIMIT,
                            f"{self.source}: this call's deadline passed while it waited for a request slot",
                            {"source": self.source},
                        )
                    taken, wait = await self._reserve(token)
                    if taken:
                        now = time.monotonic()
                        slot = Slot(token, now - started, now + wait)
                        if deadline is not None and deadline - slot.start_at < MIN_USEFUL_S:
                            await self.release(slot)
                            raise _too_late(self.source, wait)
                        return slot
                    # A wait longer than the span comes from a pending slot, whose request is about
                    # to go out and be restamped: look again soon rather than trust it.
                    firm = wait <= self.span_s
                    nap = wait if firm else self.min_gap_s
                    if deadline is not None:
                        left = deadline - time.monotonic() - MIN_USEFUL_S
                        if left <= 0 or (firm and wait > left):
                            raise _too_late(self.source, wait)
                        nap = min(nap, left)
                    await asyncio.sleep(nap)
            finally:
                self._gate.release()
        finally:
            self._waiting -= 1

    async def confirm(self, slot: Slot) -> None:
        # Shielded: a cancelled caller whose request did go out must still leave its start in the log.
        # If the log cannot be reached the slot stays pending, which only delays others until it lapses.
        with anyio.CancelScope(shield=True):
            try:
                await self._confirm(slot.token)
            except BioMcpError as exc:
                log_event(log, WARNING, "rate limit slot left pending", source=self.source, reason=exc.message)

    async def release(self, slot: Slot) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await self._release(slot.token)
            except BioMcpError as exc:
                log_event(log, WARNING, "rate limit slot left pending", source=self.source, reason=exc.message)

    async def pace(self, deadline: float | None = None) -> float:
        started = time.monotonic()
        await self.confirm(await self.acquire(deadline))
        return time.monotonic() - started

    def queue_length(self) -> int:
        return self._waiting


def _loop_time(deadline: float) -> float:
    """A time.monotonic() deadline on the running loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())


class SlidingLog:
    """The log of starts itself, in memory: what `RedisRateLimiter`'s script does, in Python."""

    def __init__(self, limit: int, span_s: float, min_gap_s: float, hold_s: float = PENDING_HOLD_S) -> None:
        self.limit = limit
        self.span_s = span_s
        self.min_gap_s = min_gap_s
        self.hold_s = hold_s
        self.starts: dict[str, float] = {}
        self.last_start: float | None = None

    def reserve(self, token: str, now: float, lead_s: float = LEAD_S) -> tuple[bool, float]:
        """See `_QueuedLimiter._reserve`. The earliest start is the first moment at which fewer than
        `limit` starts (a pending one counting as in every window) lie in the span before it, and
        `min_gap` after the last reserved start."""
        self.starts = {key: moment for key, moment in self.starts.items() if moment > now - self.span_s}
        start = now if self.last_start is None else max(now, self.last_start + self.min_gap_s)
        if len(self.starts) >= self.limit:
            ordered = sorted(self.starts.values())
            start = max(start, ordered[len(ordered) - self.limit] + self.span_s)
        if start - now > lead_s:
            return False, start - now - lead_s
        self.starts[token] = now + self.hold_s
        self.last_start = start
        return True, start - now

    def confirm(self, token: str, now: float) -> None:
        self.starts[token] = now

    def release(self, token: str) -> None:
        self.starts.pop(token, None)


class LocalRateLimiter(_QueuedLimiter):
    """One limit within a process."""

    def __init__(self, source: str, limit: int, window_s: float = 1.0, margin_s: float = WINDOW_MARGIN_S) -> None:
        super().__init__(source, limit, window_s, margin_s)
        self.log = SlidingLog(limit, self.span_s, self.min_gap_s)

    async def _reserve(self, token: str) -> tuple[bool, float]:
        return self.log.reserve(token, time.monotonic())

    async def _confirm(self, token: str) -> None:
        self.log.confirm(token, time.monotonic())

    async def _release(self, token: str) -> None:
        self.log.release(token)


# KEYS[1] the sorted set of starts (member: slot token, score: start in microseconds on the Redis
# clock, or the pending hold's end), KEYS[2] the last reserved start (the minimum gap counts from
# it). ARGV: op, token, limit, span_us, min_gap_us, hold_us, lead_us. reserve returns -1 - (the
# microseconds until the slot's start) when the slot is taken, else the microseconds to wait.
_LOG_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local op, token = ARGV[1], ARGV[2]
local limit, span, min_gap, hold = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local lead = tonumber(ARGV[7])
local ttl = math.floor((hold + span) / 1000) + 1000
if op == 'release' then
  redis.call('ZREM', KEYS[1], token)
  return 0
end
if op == 'confirm' then
  redis.call('ZADD', KEYS[1], now, token)
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - span))
local last = tonumber(redis.call('GET', KEYS[2]) or '')
local start = now
if last ~= nil then
  start = math.max(start, last + min_gap)
end
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  start = math.max(start, tonumber(oldest[2]) + span)
end
if start - now > lead then
  return math.max(1, math.floor(start - now - lead))
end
redis.call('ZADD', KEYS[1], string.format('%.0f', now + hold), token)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], string.format('%.0f', start), 'PX', ttl)
return -1 - math.ceil(start - now)
"""


class RedisRateLimiter(_QueuedLimiter):
    """One limit per key across every process that uses the same Redis and key."""

    def __init__(
        self, source: str, redis_url: str, key: str, limit: int, window_s: float = 1.0,
        margin_s: float = WINDOW_MARGIN_S,
    ) -> None:
        try:
            import redis.asyncio as redis_asyncio
        except ImportError:
            raise BioMcpError(
                ErrorCode.VALIDATION,
                f"REDIS_URL is set but the Redis client is not installed: {REDIS_EXTRA_HINT}",
                {"missing": "redis"},
            ) from None

        super().__init__(source, limit, window_s, margin_s)
        self._redis = redis_asyncio.from_url(redis_url)
        self._script = self._redis.register_script(_LOG_LUA)
        prefix = f"bio-mcp:ratelimit:{source}:{key}"
        self._keys = [f"{prefix}:starts", f"{prefix}:last"]
        self._args = [limit, int(self.span_s * 1e6), int(self.min_gap_s * 1e6), int(PENDING_HOLD_S * 1e6),
                      int(LEAD_S * 1e6)]

    async def _run(self, op: str, token: str) -> int:
        try:
            return int(await self._script(keys=self._keys, args=[op, token, *self._args]))
        except Exception as exc:  # redis-py raises several unrelated types for an unreachable server
            raise BioMcpError(
                ErrorCode.RATE_LIMIT, f"{self.source}: the shared rate limiter in Redis is unreachable",
                {"error": type(exc).__name__},
            ) from exc

    async def _reserve(self, token: str) -> tuple[bool, float]:
        result = await self._run("reserve", token)
        return (True, (-1 - result) / 1e6) if result < 0 else (False, result / 1e6)

    async def _confirm(self, token: str) -> None:
        await self._run("confirm", token)

    async def _release(self, token: str) -> None:
        await self._run("release", token)

    async def aclose(self) -> None:
        await self._redis.aclose()


def limiter_key(secret: str | None) -> str:
    """A stable key per credential that never exposes the credential itself."""
    return hashlib.sha256((secret or "anonymous").encode()).hexdigest()[:16]


def build_rate_limiter(
    source: str, rate_per_s: float, redis_url: str | None, credential: str | None,
    margin_s: float = WINDOW_MARGIN_S,
) -> RateLimiter:
    limit, window = limit_for_rate(rate_per_s)
    if redis_url:
        return RedisRateLimiter(source, redis_url, limiter_key(credential), limit, window, margin_s)
    return LocalRateLimiter(source, limit, window, margin_s)
