"""Ingested files (which file each `file:` document is) and ingestion jobs (tool.ingest.run)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.database import in_batches, upsert_insert
from bio_mcp.store.schema import ingest_jobs, ingested_files, utc_now

IngestJobStatus = Literal["queued", "running", "done", "error"]


@dataclass(frozen=True)
class IngestedFile:
    doc_key: str
    source_uri: str
    doc_type: str
    lang: str
    content_sha256: str
    pipeline: str
    size_bytes: int
    counts: dict[str, int]
    ingested_at: datetime


@dataclass(frozen=True)
class IngestJob:
    job_id: str
    status: IngestJobStatus
    dry_run: bool
    request: dict[str, Any]
    counts: dict[str, int]
    files: list[dict[str, Any]]
    log: str
    error: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


def _file(row: Row[Any]) -> IngestedFile:
    return IngestedFile(
        doc_key=row.doc_key, source_uri=row.source_uri, doc_type=row.doc_type, lang=row.lang,
        content_sha256=row.content_sha256, pipeline=row.pipeline, size_bytes=int(row.size_bytes),
        counts=dict(row.counts), ingested_at=row.ingested_at,
    )


def _job(row: Row[Any]) -> IngestJob:
    return IngestJob(
        job_id=row.job_id, status=row.status, dry_run=bool(row.dry_run), request=dict(row.request),
        counts=dict(row.counts), files=list(row.files), log=row.log, error=row.error,
        created_at=row.created_at, updated_at=row.updated_at, finished_at=row.finished_at,
    )


class IngestedFileRepository:
    """Ingested files, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def by_uri(self, source_uri: str) -> IngestedFile | None:
        row = self._connection.execute(
            sa.select(ingested_files).where(ingested_files.c.source_uri == source_uri)
        ).one_or_none()
        return None if row is None else _file(row)

    def get(self, doc_key: str) -> IngestedFile | None:
        row = self._connection.execute(
            sa.select(ingested_files).where(ingested_files.c.doc_key == doc_key)
        ).one_or_none()
        return None if row is None else _file(row)

    def put(self, record: IngestedFile) -> None:
        values = {
            "doc_key": record.doc_key, "source_uri": record.source_uri, "doc_type": record.doc_type,
            "lang": record.lang, "content_sha256": record.content_sha256, "pipeline": record.pipeline,
            "size_bytes": record.size_bytes, "counts": dict(record.counts), "ingested_at": record.ingested_at,
        }
        statement = upsert_insert(self._connection, ingested_files)
        statement = statement.on_conflict_do_update(
            index_elements=[ingested_files.c.doc_key],
            set_={name: statement.excluded[name] for name in values if name != "doc_key"},
        )
        self._connection.execute(statement, [values])

    def source_uris(self, doc_keys: Iterable[str]) -> dict[str, str]:
        """doc_key -> source_uri of the ingested files among `doc_keys`."""
        found: dict[str, str] = {}
        for batch in in_batches(sorted(set(doc_keys))):
            query = sa.select(ingested_files.c.doc_key, ingested_files.c.source_uri).where(
                ingested_files.c.doc_key.in_(batch)
            )
            found.update({row.doc_key: row.source_uri for row in self._connection.execute(query)})
        return found

    def count(self) -> int:
        return int(self._connection.execute(sa.select(sa.func.count()).select_from(ingested_files)).scalar_one())


class IngestJobRepository:
    """Ingestion jobs, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def create(self, job_id: str, request: Mapping[str, Any], dry_run: bool) -> IngestJob:
        now = utc_now()
        self._connection.execute(
            sa.insert(ingest_jobs).values(
                job_id=job_id, status="queued", dry_run=dry_run, request=dict(request), counts={}, files=[],
                log="", error=None, created_at=now, updated_at=now, finished_at=None,
            )
        )
        return self.require(job_id)

    def get(self, job_id: str) -> IngestJob | None:
        row = self._connection.execute(sa.select(ingest_jobs).where(ingest_jobs.c.job_id == job_id)).one_or_none()
        return None if row is None else _job(row)

    def require(self, job_id: str) -> IngestJob:
        job = self.get(job_id)
        if job is None:
            raise BioMcpError(ErrorCode.NOT_FOUND, f"no ingestion job {job_id!r}", {"job_id": job_id})
        return job

    def unfinished(self) -> list[IngestJob]:
        """Queued and running jobs, oldest first: what a restarted server runs again."""
        query = (
            sa.select(ingest_jobs)
            .where(ingest_jobs.c.status.in_(("queued", "running")))
            .order_by(ingest_jobs.c.created_at, ingest_jobs.c.job_id)
        )
        return [_job(row) for row in self._connection.execute(query)]

    def update(
        self,
        job_id: str,
        *,
        status: IngestJobStatus | None = None,
        counts: Mapping[str, int] | None = None,
        files: Sequence[Mapping[str, Any]] | None = None,
        log_lines: Sequence[str] = (),
        error: str | None = None,
    ) -> IngestJob:
        job = self.require(job_id)
        now = utc_now()
        values: dict[str, Any] = {"updated_at": now}
        if status is not None:
            values["status"] = status
            if status in ("done", "error"):
                values["finished_at"] = now
        if counts is not None:
            values["counts"] = dict(counts)
        if files is not None:
            values["files"] = [dict(item) for item in files]
        if log_lines:
            values["log"] = job.log + "".join(f"{line}\n" for line in log_lines)
        if error is not None:
            values["error"] = error
        self._connection.execute(sa.update(ingest_jobs).where(ingest_jobs.c.job_id == job_id).values(values))
        return self.require(job_id)
