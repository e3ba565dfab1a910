"""The rate limiters keep NCBI's rule (at most N starts in any window) at send time, hold no slot
for a caller that cannot use it, and fail fast past a deadline."""

from __future__ import annotations

import sys
import time
import uuid

import anyio
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ratelimit import (
    LEAD_S,
    WINDOW_MARGIN_S,
    LocalRateLimiter,
    RedisRateLimiter,
    SlidingLog,
    build_rate_limiter,
    limit_for_rate,
    wait_for_start,
)

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


async def run_callers(limiters, callers: int) -> list[float]:
    """Each caller takes a slot and 'sends' at once; the send times."""
    starts: list[float] = []

    async def one(limiter) -> None:
        slot = await limiter.acquire()
        starts.append(time.monotonic())
        await limiter.confirm(slot)

    async with anyio.create_task_group() as tg:
        for i in range(callers):
            tg.start_soon(one, limiters[i % len(limiters)])
    return starts


def test_limit_for_rate() -> None:
    assert limit_for_rate(10) == (10, 1.0)
    assert limit_for_rate(3) == (3, 1.0)
    assert limit_for_rate(0.5) == (1, 2.0)


def test_sliding_log_counts_a_pending_slot_until_it_is_confirmed() -> None:
    log = SlidingLog(limit=2, span_s=1.0, min_gap_s=0.1)
    assert log.reserve("a", now=0.0, lead_s=0) == (True, 0)
    assert log.reserve("b", now=0.1, lead_s=0) == (True, 0)
    # Both windows are full; "a" is still pending, so nobody can know when its window ends.
    taken, wait = log.reserve("c", now=5.0, lead_s=0)
    assert not taken and wait > 1.0
    log.confirm("a", now=5.0)
    # Confirmed at 5.0, "a" now frees its place one span after that, not after 0.0.
    assert log.reserve("c", now=5.5, lead_s=0)[0] is False
    log.confirm("b", now=5.1)
    assert log.reserve("c", now=6.0, lead_s=0) == (True, 0)
    taken, wait = log.reserve("d", now=6.05, lead_s=0)
    assert not taken and wait == pytest.approx(0.05)


def test_sliding_log_gives_a_released_slot_back() -> None:
    log = SlidingLog(limit=1, span_s=1.0, min_gap_s=0.1)
    assert log.reserve("a", now=0.0, lead_s=0) == (True, 0)
    assert log.reserve("b", now=0.2, lead_s=0)[0] is False
    log.release("a")
    assert log.reserve("b", now=0.2, lead_s=0) == (True, 0)


def test_a_slot_is_taken_at_most_the_lead_before_its_start() -> None:
    log = SlidingLog(limit=1, span_s=1.0, min_gap_s=0.1)
    assert log.reserve("a", now=0.0, lead_s=0.1) == (True, 0)
    log.confirm("a", now=0.0)
    # The next start is at 1.0: not yet within the lead at 0.85, within it at 0.95.
    taken, wait = log.reserve("b", now=0.85, lead_s=0.1)
    assert not taken and wait == pytest.approx(0.05)
    taken, until_start = log.reserve("b", now=0.95, lead_s=0.1)
    assert taken and until_start == pytest.approx(0.05)
    # "b" is pending: whoever asks next waits for it to be sent and confirmed.
    assert log.reserve("c", now=0.96, lead_s=0.1)[0] is False
    log.confirm("b", now=1.02)  # written a little after its start
    taken, wait = log.reserve("c", now=1.5, lead_s=0.1)
    assert not taken and wait == pytest.approx(2.02 - 1.5 - 0.1)


async def test_local_limiter_never_exceeds_limit_in_any_window() -> None:
    limiter = LocalRateLimiter("test", limit=10)
    starts = await run_callers([limiter], 35)
    assert len(starts) == 35
    assert max_in_window(starts, 1.0 + WINDOW_MARGIN_S) <= 10
    # Three full windows of 10 and five more: a little over three spans, not more.
    assert max(starts) - min(starts) < 3 * (1 + WINDOW_MARGIN_S) + 0.3


async def test_deadline_fails_fast_with_rate_limit_and_reserves_nothing() -> None:
    limiter = LocalRateLimiter("ncbi", limit=3)
    for _ in range(3):
        await limiter.confirm(await limiter.acquire())
    started = time.monotonic()
    with pytest.raises(BioMcpError) as info:
        await limiter.acquire(deadline=time.monotonic() + 0.2)
    assert info.value.code is ErrorCode.RATE_LIMIT
    assert info.value.details["wait_s"] > 0.2
    assert time.monotonic() - started < 0.2  # refused at once, not at the deadline
    # The refused caller took no slot: the log still holds the three starts only.
    assert len(limiter.log.starts) == 3


async def test_a_late_send_counts_from_when_it_really_left() -> None:
    limiter = LocalRateLimiter("ncbi", limit=2)
    first = await limiter.acquire()
    await anyio.sleep(0.3)  # the event loop was busy: the request leaves late
    sent = time.monotonic()
    await limiter.confirm(first)
    await limiter.confirm(await limiter.acquire())
    await limiter.acquire()
    # The third start waits a whole span after the late send, not after the reservation.
    assert time.monotonic() - sent >= 1.0


async def test_an_unconfirmed_slot_holds_its_place() -> None:
    limiter = LocalRateLimiter("ncbi", limit=1)
    await limiter.acquire()  # reserved, its request not yet sent
    with pytest.raises(BioMcpError) as info:
        await limiter.acquire(deadline=time.monotonic() + 0.8)
    assert info.value.code is ErrorCode.RATE_LIMIT


async def test_a_request_that_never_started_gives_its_slot_back() -> None:
    limiter = LocalRateLimiter("ncbi", limit=1)
    await limiter.release(await limiter.acquire())
    waited = (await limiter.acquire()).waited_s
    # Only the minimum gap between starts, not a whole window.
    assert waited < 0.6


async def test_redis_url_without_the_redis_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # As in the default install, where the Redis client is the `redis` extra.
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    with pytest.raises(BioMcpError) as caught:
        build_rate_limiter("ncbi", 3.0, "redis://127.0.0.1:6379/0", None)
    assert caught.value.code is ErrorCode.VALIDATION
    assert "pip install 'bio-mcp[redis]'" in caught.value.message


async def test_callers_that_give_up_hold_no_slots(redis_url: str) -> None:
    limiter = RedisRateLimiter("ncbi", redis_url, uuid.uuid4().hex, limit=2)
    outcomes: list[str] = []

    async def one() -> None:
        try:
            await limiter.confirm(await limiter.acquire(deadline=time.monotonic() + 0.5))
            outcomes.append("ok")
        except BioMcpError as exc:
            outcomes.append(exc.code.value)

    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(one)
    starts = await limiter._redis.zcard(limiter._keys[0])
    await limiter.aclose()
    assert sorted(outcomes) == ["RATE_LIMIT"] * 8 + ["ok"] * 2
    assert starts == 2


async def test_redis_limiter_is_shared_by_every_instance_with_the_same_key(redis_url: str) -> None:
    key = uuid.uuid4().hex
    # Two limiters stand in for two replicas: one limit between them.
    a = RedisRateLimiter("ncbi", redis_url, key, limit=5)
    b = RedisRateLimiter("ncbi", redis_url, key, limit=5)
    starts = await run_callers([a, b], 16)
    await a.aclose()
    await b.aclose()
    assert len(starts) == 16
    assert max_in_window(starts, 1.0) <= 5


async def test_redis_pending_slot_is_seen_by_other_replicas(redis_url: str) -> None:
    key = uuid.uuid4().hex
    a = RedisRateLimiter("ncbi", redis_url, key, limit=1)
    b = RedisRateLimiter("ncbi", redis_url, key, limit=1)
    slot = await a.acquire()
    with pytest.raises(BioMcpError):
        await b.acquire(deadline=time.monotonic() + 0.7)
    await a.release(slot)
    await b.acquire(deadline=time.monotonic() + 0.7)
    await a.aclose()
    await b.aclose()


@pytest.mark.parametrize("backend", ["local", "redis"])
async def test_an_early_slot_comes_within_the_lead_and_names_its_start(redis_url: str, backend: str) -> None:
    if backend == "redis":
        limiter = RedisRateLimiter("ncbi", redis_url, uuid.uuid4().hex, limit=1, margin_s=0)
    else:
        limiter = LocalRateLimiter("ncbi", limit=1, margin_s=0)
    await limiter.confirm(await limiter.acquire())
    confirmed = time.monotonic()
    early = await limiter.acquire(early=True)
    handed = time.monotonic()
    # Its start is a whole window after the last confirmed start, and it came at most LEAD_S before.
    assert early.start_at >= confirmed + 1.0 - 0.005
    assert 0 < early.start_at - handed <= LEAD_S + 0.005
    await wait_for_start(early)
    await limiter.confirm(early)
    # Without `early`, acquire returns only at the start itself.
    slot = await limiter.acquire()
    assert time.monotonic() >= slot.start_at >= early.start_at + 1.0 - 0.005
    if backend == "redis":
        await limiter.aclose()


async def test_an_early_slot_whose_start_leaves_no_time_before_the_deadline_is_given_back() -> None:
    limiter = LocalRateLimiter("ncbi", limit=1, margin_s=0)
    await limiter.confirm(await limiter.acquire())
    # The next start is a second away; the slot for it can be had 0.1 s before, but the call
    # would have only 0.05 s left once it may send.
    with pytest.raises(BioMcpError) as info:
        await limiter.acquire(deadline=time.monotonic() + 1.05, early=True)
    assert info.value.code is ErrorCode.RATE_LIMIT
    assert len(limiter.log.starts) == 1


async def test_redis_limiter_deadline(redis_url: str) -> None:
    limiter = RedisRateLimiter("ncbi", redis_url, uuid.uuid4().hex, limit=2)
    await limiter.confirm(await limiter.acquire())
    await limiter.confirm(await limiter.acquire())
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


async def test_a_wider_margin_counts_starts_over_a_longer_window(bio_home) -> None:
    from bio_mcp.config import load_settings
    from bio_mcp.sources.ncbi.client import EutilsClient

    client = EutilsClient(load_settings(NCBI_RATE_MARGIN_MS=200))
    limiter = client.limiter
    starts = []
    for _ in range(4):
        await limiter.pace()
        # The start as the limiter stamped it: a clock read here, after a loaded loop hands control
        # back, can be late for the first start and make the span look short.
        starts.append(max(limiter.log.starts.values()))
    await client.aclose()
    assert limiter.limit == 3
    assert starts[3] - starts[0] >= 1.2
