"""Entity linking and relation extraction of sync batches in a worker process.

A sync is CPU-bound in one process: parsing, linking, extraction and the store's Python work share
one interpreter lock, so the second core of a small machine mostly idles. Linking and extraction
are pure functions of the section texts, so one worker process (spawned, with its own linker and
extractors built from the same settings and cache) takes them off the sync's process while it
parses the next batch and commits the one before. It returns the same mentions and relations the
in-process path makes (a test holds the two equal).

The worker costs a few seconds to start (imports, the MeSH linker from its cache), so it starts in
the background when a sync has enough records to repay that, and serves the syncs after it for the
life of the service. While it loads, the sync that started it parses batches ahead and they wait
for it (`wait_ready`); if it takes too long, or ever fails, batches are annotated in process as
without it: the worker can make a sync faster, never fail it or change what it stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import fields
from operator import attrgetter
from typing import Any, NamedTuple

from bio_mcp.collector import settle_collector
from bio_mcp.config import Settings
from bio_mcp.graph.elements import StatedRelation
from bio_mcp.graph.indexer import Annotations, GraphIndexer, build_graph_indexer
from bio_mcp.graph.mentions import EntityMentions

log = logging.getLogger(__name__)


class Section(NamedTuple):
    """What the worker is sent of a chunk: only what linking reads."""

    chunk_id: str
    text: str


# The worker process's indexer, built once by `_start`.
_indexer: GraphIndexer | None = None


def _start(settings: Settings) -> None:
    global _indexer
    # Ctrl-C reaches the whole process group: the sync's process decides what stops, and the
    # worker must not print a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The worker inherits the server's stdout, which on the stdio transport is the MCP stream:
    # anything written there (a library's print, a C warning) would corrupt it. Send it to stderr.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    _indexer = build_graph_indexer(settings)
    # The linker and vocabulary live as long as the process.
    settle_collector()


def _linking() -> bool:
    return _indexer is not None and _indexer.linker is not None


# Relations cross the process boundary as plain tuples: unpickling frozen dataclasses runs a
# Python function per object, which cost the sync's process more time than the worker saved it.
# The grouped mentions are tuples already.
_Packed = tuple[dict[str, list[EntityMentions]], dict[str, list[tuple[Any, ...]]], float, float]
_RELATION_FIELDS = attrgetter(*(field.name for field in fields(StatedRelation)))


def _pack(annotations: Annotations) -> _Packed:
    return (
        annotations.mentions,
        {chunk: [_RELATION_FIELDS(r) for r in found] for chunk, found in annotations.relations.items()},
        annotations.link_s,
        annotations.extract_s,
    )


def _unpack(packed: _Packed) -> Annotations:
    mentions, relations, link_s, extract_s = packed
    return Annotations(
        mentions,
        {chunk: [StatedRelation(*values) for values in found] for chunk, found in relations.items()},
        link_s,
        extract_s,
    )


def _annotate(documents: Sequence[Sequence[Section]]) -> list[_Packed]:
    assert _indexer is not None
    return [_pack(_indexer.annotate(sections)) for sections in documents]


class AnnotationWorker:
    """One worker process annotating for the syncs of a service (`start` it, `close` it)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._pool: ProcessPoolExecutor | None = None
        self._started: Future[bool] | None = None
        self._failed = False

    def start(self) -> None:
        """Start the process in the background (no-op once started, or after a failure)."""
        if self._pool is not None or self._failed:
            return
        self._pool = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_start,
            initargs=(self._settings,),
        )
        self._started = self._pool.submit(_linking)

    @property
    def ready(self) -> bool:
        """Started and linking; never blocks (a worker still loading is not ready)."""
        if self._failed or self._started is None or not self._started.done():
            return False
        error = self._started.exception()
        if error is not None or not self._started.result():
            self._fail(error or "the worker has no linker")
            return False
        return True

    @property
    def starting(self) -> bool:
        """Started and still loading its linker."""
        return not self._failed and self._started is not None and not self._started.done()

    async def wait_ready(self, timeout_s: float) -> bool:
        """Wait (at most `timeout_s`) for a starting worker; whether it is ready."""
        if self.starting:
            assert self._started is not None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self._started)), timeout_s)
        return self.ready

    async def annotate(self, documents: Sequence[Sequence[Section]]) -> list[Annotations] | None:
        """Each document's annotations, or None if the worker failed (annotate in process instead)."""
        if self._pool is None or self._failed:
            return None
        try:
            packed = await asyncio.wrap_future(self._pool.submit(_annotate, documents))
        except BrokenProcessPool as exc:
            self._fail(exc)
            return None
        return [_unpack(values) for values in packed]

    def _fail(self, error: object) -> None:
        log.warning("the annotation worker failed, annotating in process from now on: %s", error)
        self._failed = True
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
