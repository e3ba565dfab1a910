"""The rate limiters keep NCBI's rule (at most N starts in any window) and fail fast past a deadline."""

from __future__ import annotations

import time
import uuid

import anyio
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ratelimit import LocalRateLimiter, RedisRateLimiter, build_rate_limiter, limit_for_rate

pytestmark = pytest.mark.anyio


def max_in_window(starts: list[float], window: float) -> int:
    starts = sorted(starts)
    best = 0
    j = 0
    for i, t in enumerate(starts):
        while starts[j] <= t - window:
            j += 1
        best = max(best, i - j + 1)
    return best


async def run_callers(limiter, callers: int) -> list[float]:
    starts: list[float] = []

    async def one() -> None:
        await limiter.acquire()
        starts.append(time.monotonic())
        limiter.note_sent()

    async with anyio.create_task_group() as tg:
        for _ in range(callers):
            tg.start_soon(one)
    return starts


def test_limit_for_rate() -> None:
    assert limit_for_rate(10) == (10, 1.0)
    assert limit_for_rate(3) == (3, 1.0)
    assert limit_for_rate(0.5) == (1, 2.0)


async def test_local_limiter_never_exceeds_limit_in_any_window() -> None:
    limiter = LocalRateLimiter("test", limit=10)
    starts = await run_callers(limiter, 35)
    assert len(starts) == 35
    assert max_in_window(starts, 1.0) <= 10
    # Starts are spaced 1.03 s / 10 apart: 34 gaps take about 3.5 s, within 97% of the limit.
    assert max(starts) - min(starts) < 3.6


async def test_deadline_fails_fast_with_rate_limit_and_reserves_nothing() -> None:
    limiter = LocalRateLimiter("ncbi", limit=3)
    for _ in range(3):
        await limiter.acquire()
        limiter.note_sent()
    started = time.monotonic()
    with pytest.raises(BioMcpError) as info:
        await limiter.acquire(deadline=time.monotonic() + 0.2)
    assert info.value.code is ErrorCode.RATE_LIMIT
    assert info.value.details["wait_s"] > 0.2
    assert time.monotonic() - started < 0.05
    # The refused caller took no slot: the next one gets the next one, a third of a second on.
    waited = await limiter.acquire()
    limiter.note_sent()
    assert waited < 0.4


async def test_a_late_send_pushes_the_next_slot_back() -> None:
    limiter = LocalRateLimiter("ncbi", limit=10)
    await limiter.acquire()
    await anyio.sleep(0.3)  # the event loop was busy: the request leaves late
    sent = time.monotonic()
    limiter.note_sent()
    await limiter.acquire()
    assert time.monotonic() - sent >= 0.1
    limiter.release()


async def test_a_request_that_fails_before_sending_frees_its_slot() -> None:
    limiter = LocalRateLimiter("ncbi", limit=10)
    await limiter.acquire()
    limiter.release()
    with anyio.fail_after(1):
        await limiter.acquire()
    limiter.release()


async def test_redis_limiter_is_shared_by_every_instance_with_the_same_key(redis_url: str) -> None:
    key = uuid.uuid4().hex
    # Two limiters stand in for two replicas: one limit between them.
    a = RedisRateLimiter("ncbi", redis_url, key, limit=5)
    b = RedisRateLimiter("ncbi", redis_url, key, limit=5)
    starts: list[float] = []

    async def one(limiter) -> None:
        await limiter.acquire()
        starts.append(time.monotonic())

    async with anyio.create_task_group() as tg:
        for i in range(16):
            tg.start_soon(one, a if i % 2 else b)
    await a.aclose()
    await b.aclose()
    assert len(starts) == 16
    assert max_in_window(starts, 1.0) <= 5


async def test_redis_limiter_deadline(redis_url: str) -> None:
    limiter = RedisRateLimiter("ncbi", redis_url, uuid.uuid4().hex, limit=2)
    await limiter.acquire()
    await limiter.acquire()
    with pytest.raises(BioMcpError) as info:
        await limiter.acquire(deadline=time.monotonic() + 0.1)
    assert info.value.code is ErrorCode.RATE_LIMIT
    await limiter.aclose()


async def test_unreachable_redis_is_a_typed_error() -> None:
    limiter = RedisRateLimiter("ncbi", "redis://127.0.0.1:1/0", "k", limit=2)
    with pytest.raises(BioMcpError) as info:
        await limiter.acquire()
    assert info.value.code is ErrorCode.RATE_LIMIT
    await limiter.aclose()


def test_build_chooses_backend(redis_url: str) -> None:
    assert isinstance(build_rate_limiter("ncbi", 3, None, None), LocalRateLimiter)
    assert isinstance(build_rate_limiter("ncbi", 10, redis_url, "secret-key"), RedisRateLimiter)
