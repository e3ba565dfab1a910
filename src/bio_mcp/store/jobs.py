"""Sync job rows: what each `pubmed.sync_delta` run did, and which runs died before finishing.

A sync holds its query key's sync lock for its whole run, and a dead process releases that lock.
So whoever next takes the lock and still finds a `running` job for the key knows that job's
process is gone: `abandon_running` marks such jobs failed, making a killed sync visible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.schema import sync_jobs, utc_now
from bio_mcp.store.timestamps import require_iso_utc

JobStatus = Literal["running", "done", "failed"]

ABANDONED = "abandoned: the sync process ended without finishing (killed or crashed)"


@dataclass(frozen=True)
class SyncJob:
    job_id: str
    query_key: str
    term: str
    status: JobStatus
    window_start: str | None
    window_end: str | None
    counts: dict[str, int]
    warnings: list[str]
    error: str | None
    started_at: datetime
    finished_at: datetime | None


def _job(row: Row[Any]) -> SyncJob:
    return SyncJob(
        job_id=row.job_id,
        query_key=row.query_key,
        term=row.term,
        status=row.status,
        window_start=row.window_start,
        window_end=row.window_end,
        counts=dict(row.counts),
        warnings=list(row.warnings),
        error=row.error,
        started_at=row.started_at,
        finished_at=row.finished_at,
    )


class SyncJobRepository:
    """Sync jobs, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def start(
        self,
        job_id: str,
        query_key: str,
        term: str,
        *,
        window_start: str | None = None,
        window_end: str | None = None,
    ) -> SyncJob:
        if not job_id or not query_key or not term:
            raise BioMcpError(ErrorCode.VALIDATION, "a sync job needs job_id, query_key and term")
        values: dict[str, Any] = {
            "job_id": job_id,
            "query_key": query_key,
            "term": term,
            "status": "running",
            "window_start": None if window_start is None else require_iso_utc(window_start, "window_start"),
            "window_end": None if window_end is None else require_iso_utc(window_end, "window_end"),
            "counts": {},
            "warnings": [],
            "error": None,
            "started_at": utc_now(),
            "finished_at": None,
        }
        self._connection.execute(sa.insert(sync_jobs).values(values))
        return self._require(job_id)

    def widen(self, job_id: str, window_start: str) -> None:
        """A running job's window now starts earlier (a first sync whose look-back held nothing)."""
        self._connection.execute(sa.update(sync_jobs).where(sync_jobs.c.job_id == job_id)
                                 .values(window_start=require_iso_utc(window_start, "window_start")))

    def progress(self, job_id: str, counts: Mapping[str, int]) -> bool:
        """A running job's counts so far; False (nothing written) once the job has ended, so a late
        report never overwrites how it ended."""
        result = self._connection.execute(
            sa.update(sync_jobs).where(sync_jobs.c.job_id == job_id, sync_jobs.c.status == "running")
            .values(counts=dict(counts)))
        return result.rowcount == 1

    def finish(self, job_id: str, counts: Mapping[str, int], warnings: Sequence[str] = ()) -> SyncJob:
        return self._end(job_id, "done", counts, warnings, error=None)

    def fail(
        self, job_id: str, error: str, counts: Mapping[str, int] | None = None, warnings: Sequence[str] = ()
    ) -> SyncJob:
        return self._end(job_id, "failed", counts or {}, warnings, error=error)

    def get(self, job_id: str) -> SyncJob | None:
        row = self._connection.execute(sa.select(sync_jobs).where(sync_jobs.c.job_id == job_id)).one_or_none()
        return None if row is None else _job(row)

    def recent(
        self, *, query_key: str | None = None, status: JobStatus | None = None, limit: int = 100
    ) -> list[SyncJob]:
        """Jobs, newest first."""
        query = sa.select(sync_jobs).order_by(sync_jobs.c.started_at.desc(), sync_jobs.c.job_id).limit(limit)
        if query_key is not None:
            query = query.where(sync_jobs.c.query_key == query_key)
        if status is not None:
            query = query.where(sync_jobs.c.status == status)
        return [_job(row) for row in self._connection.execute(query)]

    def abandon_running(self, query_key: str) -> list[str]:
        """Mark `query_key`'s running jobs failed; call only while holding that key's sync lock."""
        running = list(
            self._connection.execute(
                sa.select(sync_jobs.c.job_id)
                .where(sync_jobs.c.query_key == query_key, sync_jobs.c.status == "running")
                .order_by(sync_jobs.c.job_id)
            ).scalars()
        )
        if running:
            self._connection.execute(
                sa.update(sync_jobs)
                .where(sync_jobs.c.job_id.in_(running))
                .values(status="failed", error=ABANDONED, finished_at=utc_now())
            )
        return running

    def _end(
        self,
        job_id: str,
        status: JobStatus,
        counts: Mapping[str, int],
        warnings: Sequence[str],
        error: str | None,
    ) -> SyncJob:
        result = self._connection.execute(
            sa.update(sync_jobs)
            .where(sync_jobs.c.job_id == job_id, sync_jobs.c.status == "running")
            .values(
                status=status,
                counts=dict(counts),
                warnings=list(warnings),
                error=error,
                finished_at=utc_now(),
            )
        )
        if result.rowcount != 1:
            existing = self.get(job_id)
            if existing is None:
                raise BioMcpError(ErrorCode.NOT_FOUND, f"no sync job {job_id!r}", {"job_id": job_id})
            raise BioMcpError(
                ErrorCode.INVARIANT_FAILURE,
                f"sync job {job_id!r} already ended as {existing.status}",
                {"job_id": job_id, "status": existing.status},
            )
        return self._require(job_id)

    def _require(self, job_id: str) -> SyncJob:
        job = self.get(job_id)
        if job is None:
            raise BioMcpError(ErrorCode.NOT_FOUND, f"no sync job {job_id!r}", {"job_id": job_id})
        return job
