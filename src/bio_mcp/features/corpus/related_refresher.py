"""The server's background refresher of RELATED_TO (`graph/related_refresh.py`).

Woken after this process wrote documents (a sync, an ingestion, a fetched paper) and once when the
service opens (a graph an earlier process left stale), it recomputes RELATED_TO if MENTIONS changed
since the last computation. It waits `delay_s` after a wake before computing, so the writes of that
time (back-to-back syncs) share one computation, and the writes made while it computes share the
next. After computing it rests as long as the computation took before the next one, so a stream of
syncs into a large corpus keeps at most about half a core busy with it. A failure is logged and
left for the next wake to retry: it never reaches the write that woke it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from bio_mcp.graph.related_refresh import RelatedRefresh, refresh_related_if_stale
from bio_mcp.store import MetadataStore

log = logging.getLogger("bio_mcp.graph.related")


class RelatedRefresher:
    def __init__(self, store: MetadataStore, delay_s: float) -> None:
        self._store = store
        self._delay_s = delay_s
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        # The computation's thread, which cancelling the task cannot stop: `aclose` waits for it.
        self._in_flight: asyncio.Future[RelatedRefresh] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run_forever(), name="bio-mcp-related-refresher")
        self.wake()

    def wake(self) -> None:
        """Ask for a refresh (if stale) after the delay; wakes that come before it starts share it."""
        self._idle.clear()
        self._wake.set()

    async def settled(self) -> None:
        """Return once no wake is pending and no refresh is running."""
        await self._idle.wait()

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._in_flight is not None:
            # Its store is about to close: let the thread finish with it first (its failure was
            # the cancelled task's to log).
            with contextlib.suppress(Exception):
                await self._in_flight
            self._in_flight = None

    async def _run_forever(self) -> None:
        rest_until = 0.0
        while True:
            if not self._wake.is_set():
                self._idle.set()
            await self._wake.wait()
            await asyncio.sleep(max(self._delay_s, rest_until - time.monotonic()))
            self._wake.clear()
            started = time.monotonic()
            await self._refresh()
            took = time.monotonic() - started
            rest_until = time.monotonic() + took

    async def _refresh(self) -> None:
        self._in_flight = asyncio.get_running_loop().run_in_executor(None, refresh_related_if_stale, self._store)
        try:
            outcome = await asyncio.shield(self._in_flight)
        except Exception:
            log.exception("recomputing RELATED_TO failed; the next write retries it")
            return
        finally:
            if self._in_flight.done():
                self._in_flight = None
        if outcome.status != "current":
            log.info(
                "RELATED_TO %s: %d edges over %d sections (snapshot read %.1f s, write %.1f s)",
                outcome.status, outcome.edges, outcome.sections, outcome.read_s, outcome.write_s,
            )
