"""A sync's progress where anyone can read it: its job row, written while it runs.

A running `pubmed.sync_delta` reports the records it planned (ESearch's count for its windows) and
fetched so far, and what it stored, into its `sync_jobs` row after every EFetch batch. The row is
in the store, so a sync started by another process (the CLI, another replica) shows as well.
`bio-mcp://sync/{query_key}` reads a key's watermark and latest jobs (the evidence page polls it
through GraphQL's `syncProgress`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Literal
from urllib.parse import unquote

from pydantic import BaseModel, Field

from bio_mcp.store import MetadataStore
from bio_mcp.store.jobs import SyncJob

log = logging.getLogger("bio_mcp.corpus.sync")

SYNC_PROGRESS_URI = "bio-mcp://sync/{query_key}"
JOBS_SHOWN = 5


class SyncJobProgress(BaseModel):
    job_id: str
    status: Literal["running", "done", "failed"] = Field(
        description="running (or its process died: the key's next sync marks it failed), done or failed")
    term: str
    window_start: str | None = None
    window_end: str | None = None
    planned: int | None = Field(default=None, description="Records the sync planned (None before its plan)")
    fetched: int = Field(default=0, description="Records fetched from PubMed so far")
    inserted: int = 0
    updated: int = 0
    skipped: int = 0
    pmids_processed: int = 0
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None
    started_at: datetime
    finished_at: datetime | None = None


class SyncProgress(BaseModel):
    """What `bio-mcp://sync/{query_key}` returns: the key's watermark and its latest sync jobs."""

    query_key: str
    last_edat: str | None = Field(default=None, description="The watermark: last processed EDAT (ISO8601 UTC)")
    jobs: list[SyncJobProgress] = Field(description=f"The key's latest sync jobs, newest first (at most {JOBS_SHOWN})")


def _job(job: SyncJob) -> SyncJobProgress:
    counts = job.counts
    return SyncJobProgress(
        job_id=job.job_id, status=job.status, term=job.term, window_start=job.window_start,
        window_end=job.window_end, planned=counts.get("planned"), fetched=counts.get("fetched", 0),
        inserted=counts.get("inserted", 0), updated=counts.get("updated", 0), skipped=counts.get("skipped", 0),
        pmids_processed=counts.get("pmids_processed", 0), warnings=job.warnings, error=job.error,
        started_at=job.started_at, finished_at=job.finished_at,
    )


def read_sync_progress(query_key: str, store: MetadataStore) -> SyncProgress:
    """`query_key` as it stands in the URI (percent-encoded, so a key may hold a slash)."""
    key = unquote(query_key)
    with store.read() as tx:
        jobs = tx.jobs.recent(query_key=key, limit=JOBS_SHOWN)
        return SyncProgress(query_key=key, last_edat=tx.checkpoints.get(key), jobs=[_job(job) for job in jobs])


class JobProgressWriter:
    """Writes a running sync's counts to its job row without making the sync wait for the store:
    one write at a time in a thread, and a report made meanwhile replaces any older one still
    unwritten, so the row gets the newest counts. The row is advisory: a failed write is logged, and
    the job's end (`finish`, `fail`) writes the final counts anyway."""

    def __init__(self, store: MetadataStore, job_id: str) -> None:
        self._store = store
        self._job_id = job_id
        self._next: dict[str, int] | None = None
        self._writing: asyncio.Task[None] | None = None

    def report(self, counts: Mapping[str, int]) -> None:
        self._next = dict(counts)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_newest())

    async def _write_newest(self) -> None:
        while self._next is not None:
            counts, self._next = self._next, None
            try:
                await asyncio.to_thread(self._write, counts)
            except Exception:  # progress is advisory: the sync's own writes report a failing store
                log.warning("sync progress not written", exc_info=True, extra={"job_id": self._job_id})

    def _write(self, counts: dict[str, int]) -> None:
        with self._store.transaction() as tx:
            tx.jobs.progress(self._job_id, counts)

    def stop(self) -> None:
        """No report not yet written will be."""
        self._next = None

    async def close(self) -> None:
        """Stops, and waits for the write in flight (a clean end; one landing after the job's end
        would change nothing, as `SyncJobRepository.progress` writes only a running job)."""
        self.stop()
        if self._writing is not None:
            await asyncio.shield(self._writing)
