"""The server's RELATED_TO refresher: wakes that come together share one refresh, wakes during a
refresh one more after it, and a failure is logged and retried at the next wake. The refresh itself
is replaced by a counter here (tests/graph/test_related_refresh.py runs the real one)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bio_mcp.features.corpus import related_refresher
from bio_mcp.features.corpus.related_refresher import RelatedRefresher
from bio_mcp.graph.related_refresh import RelatedRefresh

pytestmark = pytest.mark.anyio


class CountedRefreshes:
    def __init__(self) -> None:
        self.calls = 0
        self.during_first: list = []
        self.fail_first = False

    def __call__(self, store) -> RelatedRefresh:
        self.calls += 1
        if self.calls == 1:
            for action in self.during_first:
                action()
            if self.fail_first:
                raise RuntimeError("disk full")
        return RelatedRefresh(status="written", sections=10, edges=2)


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> CountedRefreshes:
    counted = CountedRefreshes()
    monkeypatch.setattr(related_refresher, "refresh_related_if_stale", counted)
    return counted


async def test_wakes_that_come_together_share_one_refresh(refreshes: CountedRefreshes) -> None:
    refresher = RelatedRefresher(store=None, delay_s=0)  # type: ignore[arg-type]
    refresher.start()
    for _ in range(5):
        refresher.wake()
    await refresher.settled()
    await refresher.aclose()
    assert refreshes.calls == 1


async def test_wakes_during_a_refresh_share_one_more_after_it(refreshes: CountedRefreshes) -> None:
    refresher = RelatedRefresher(store=None, delay_s=0)  # type: ignore[arg-type]
    loop = asyncio.get_running_loop()
    # Three syncs end while the first refresh runs (in its thread).
    refreshes.during_first = [lambda: loop.call_soon_threadsafe(refresher.wake)] * 3
    refresher.start()
    await refresher.settled()
    await refresher.aclose()
    assert refreshes.calls == 2


async def test_a_failed_refresh_is_logged_and_retried_at_the_next_wake(
    refreshes: CountedRefreshes, caplog: pytest.LogCaptureFixture
) -> None:
    refreshes.fail_first = True
    refresher = RelatedRefresher(store=None, delay_s=0)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="bio_mcp.graph.related"):
        refresher.start()
        await refresher.settled()
    assert refreshes.calls == 1 and "recomputing RELATED_TO failed" in caplog.text
    refresher.wake()
    await refresher.settled()
    await refresher.aclose()
    assert refreshes.calls == 2
