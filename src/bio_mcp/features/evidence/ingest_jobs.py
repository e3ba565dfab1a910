"""Ingestion jobs: tool.ingest.run checks the whole batch, queues a job, and a background task of
the server process runs jobs one at a time (OCR is CPU-bound, and writes take the index's lock).

A job's row (`ingest_jobs`) holds its request, status, counts, per-file reports and log, updated
after every file, so `bio-mcp://jobs/{job_id}` always shows its progress. A server that stops
mid-job leaves it queued or running; the next start (`resume`) runs it again from its first file,
which costs nothing for the files already written: they are unchanged, so they are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.ingest_access import MAX_FOLDER_FILES, check_file, doc_type_of, files_in_folder
from bio_mcp.features.evidence.ingest_models import (
    IngestCounts,
    IngestFileReport,
    IngestItem,
    IngestRunRequest,
    IngestRunResponse,
    JobStatus,
)
from bio_mcp.features.evidence.ingest_ocr import OcrOptions
from bio_mcp.features.evidence.ingest_pdf import open_pdf
from bio_mcp.features.evidence.ingest_pipeline import IngestOptions, ingest_file, report_of
from bio_mcp.graph.build import EntityCatalog
from bio_mcp.graph.mentions import EntityType
from bio_mcp.graph.name_linking import NameLinker
from bio_mcp.graph.names import all_names
from bio_mcp.store.ingest import IngestJob

log = logging.getLogger("bio_mcp.evidence.ingest")

JOB_URI = "bio-mcp://jobs/{job_id}"
JOB_LOG_URI = "bio-mcp://jobs/{job_id}/log"


class IngestJobView(BaseModel):
    """What `bio-mcp://jobs/{job_id}` returns: the job's current status and counts."""

    job_id: str
    status: JobStatus
    dry_run: bool
    log_uri: str
    counts: IngestCounts
    files: list[IngestFileReport]
    error: str | None = None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None
    batch: list[dict[str, Any]] = Field(default_factory=list)


def options_of(settings: Settings, request: IngestRunRequest) -> IngestOptions:
    params = request.ocr.params
    return IngestOptions(
        roots=list(settings.ingest_roots), max_bytes=settings.ingest_max_bytes, max_pages=settings.ingest_max_pages,
        ocr=OcrOptions(
            languages=str(params.get("languages", settings.ingest_ocr_languages)),
            dpi=int(params.get("dpi", settings.ingest_ocr_dpi)),
            timeout_s=settings.ingest_ocr_timeout_s,
        ),
        ocr_min_chars=settings.ingest_ocr_min_chars,
        thai_names=bool(request.ner.params.get("thai_names", True)),
    )


def _entity_type(catalog: EntityCatalog, entity_id: str) -> EntityType:
    """MeSH's type for a MeSH id; a herb without one is an Organism, a formulation a Concept."""
    described = catalog.describe(entity_id)
    if described is not None:
        return described[1]  # type: ignore[return-value]
    return "Concept" if entity_id.startswith("formulation:") else "Organism"


def _totals(files: Sequence[IngestFileReport]) -> IngestCounts:
    return IngestCounts(
        files=len(files),
        pages=sum(f.pages for f in files), ocr_pages=sum(f.ocr_pages for f in files),
        characters=sum(f.characters for f in files), sections=sum(f.sections for f in files),
        chunks=sum(f.chunks for f in files), entities=sum(f.entities for f in files),
        relations=sum(f.relations for f in files),
        written=sum(1 for f in files if f.status == "written"),
        unchanged=sum(1 for f in files if f.status == "unchanged"),
        failed=sum(1 for f in files if f.status == "error"),
    )


def job_view(job: IngestJob) -> IngestJobView:
    request = IngestRunRequest.model_validate(job.request)
    return IngestJobView(
        job_id=job.job_id, status=job.status, dry_run=job.dry_run, log_uri=JOB_LOG_URI.format(job_id=job.job_id),
        counts=IngestCounts.model_validate(job.counts) if job.counts else IngestCounts(files=len(request.batch)),
        files=[IngestFileReport.model_validate(item) for item in job.files]
        or [IngestFileReport(uri=item.uri, status="pending") for item in request.batch],
        error=job.error, created_at=job.created_at, updated_at=job.updated_at, finished_at=job.finished_at,
        batch=[item.model_dump(mode="json") for item in request.batch],
    )


class IngestService:
    """Runs ingestion jobs against `corpus` (its store, index and graph writer)."""

    def __init__(self, settings: Settings, corpus: CorpusService) -> None:
        self.settings = settings
        self.corpus = corpus
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._finished: dict[str, asyncio.Event] = {}
        self._worker: asyncio.Task[None] | None = None

    # ---- the tool ---------------------------------------------------------------------------

    async def run(self, request: IngestRunRequest) -> IngestRunResponse:
        await self.corpus.open()
        request = await asyncio.to_thread(self._expand_folders, request)
        await asyncio.to_thread(self._check_batch, request)
        job_id = uuid.uuid4().hex
        with self.corpus.store.transaction() as tx:
            tx.ingest_jobs.create(job_id, request.model_dump(mode="json"), request.dry_run)
        done = self._enqueue(job_id)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(done.wait()), timeout=self.settings.ingest_wait_s)
        return self.response(await self.job(job_id))

    def _expand_folders(self, request: IngestRunRequest) -> IngestRunRequest:
        """The batch with each folder replaced by its files (each with the folder's lang and doc_type),
        so the job reports and writes file by file."""
        roots = list(self.settings.ingest_roots)
        items: list[IngestItem] = []
        for item in request.batch:
            files = files_in_folder(item.uri, roots, item.doc_type)
            items += [item] if files is None else [item.model_copy(update={"uri": uri}) for uri in files]
        if len(items) > MAX_FOLDER_FILES:
            raise BioMcpError(
                ErrorCode.VALIDATION, f"the batch holds {len(items)} files, over {MAX_FOLDER_FILES}; split it",
                {"field": "batch", "files": len(items), "max_files": MAX_FOLDER_FILES},
            )
        return request.model_copy(update={"batch": items})

    def _check_batch(self, request: IngestRunRequest) -> None:
        """Every file of the batch may be read and is well formed, or the call fails before any job exists."""
        for item in request.batch:
            allowed = check_file(item.uri, list(self.settings.ingest_roots), self.settings.ingest_max_bytes)
            if doc_type_of(item.doc_type, allowed.path) == "pdf":
                open_pdf(allowed.path, allowed.path.read_bytes(), self.settings.ingest_max_pages)

    @staticmethod
    def response(view: IngestJobView) -> IngestRunResponse:
        return IngestRunResponse(
            job_id=view.job_id, status=view.status, log_uri=view.log_uri, status_uri=JOB_URI.format(job_id=view.job_id),
            dry_run=view.dry_run, counts=view.counts, files=view.files, error=view.error,
        )

    async def job(self, job_id: str) -> IngestJobView:
        await self.corpus.open()

        def read() -> IngestJob:
            with self.corpus.store.read() as tx:
                return tx.ingest_jobs.require(job_id)

        return job_view(await asyncio.to_thread(read))

    async def job_json(self, job_id: str) -> str:
        return (await self.job(job_id)).model_dump_json(indent=2)

    async def job_log(self, job_id: str) -> str:
        await self.corpus.open()

        def read() -> str:
            with self.corpus.store.read() as tx:
                return tx.ingest_jobs.require(job_id).log

        return await asyncio.to_thread(read)

    # ---- the runner ---------------------------------------------------------------------------

    def _enqueue(self, job_id: str) -> asyncio.Event:
        done = self._finished.setdefault(job_id, asyncio.Event())
        self._queue.put_nowait(job_id)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work(), name="bio-mcp-ingest-jobs")
        return done

    async def resume(self) -> list[str]:
        """Queue the jobs a previous process left queued or running; returns their ids."""
        await self.corpus.open()

        def unfinished() -> list[str]:
            with self.corpus.store.transaction() as tx:
                jobs = tx.ingest_jobs.unfinished()
                for job in jobs:
                    tx.ingest_jobs.update(
                        job.job_id, status="queued", log_lines=[f"resumed after a restart (was {job.status})"]
                    )
                return [job.job_id for job in jobs]

        ids = await asyncio.to_thread(unfinished)
        for job_id in ids:
            self._enqueue(job_id)
        return ids

    async def wait(self, job_id: str, timeout_s: float) -> IngestJobView:
        """The job once finished (or as it is after `timeout_s`)."""
        done = self._finished.get(job_id)
        if done is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(done.wait()), timeout=timeout_s)
        return await self.job(job_id)

    async def _work(self) -> None:
        while not self._queue.empty():
            job_id = self._queue.get_nowait()
            try:
                await asyncio.to_thread(self._execute, job_id)
            except Exception:
                log.exception("ingestion job %s failed unexpectedly", job_id)
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self._fail, job_id, "internal error: see the server log")
            finally:
                self.corpus.chunks_written()
                self._finished.setdefault(job_id, asyncio.Event()).set()

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    def _fail(self, job_id: str, message: str) -> None:
        with self.corpus.store.transaction() as tx:
            tx.ingest_jobs.update(job_id, status="error", error=message, log_lines=[f"error: {message}"])

    def _execute(self, job_id: str) -> None:
        store = self.corpus.store
        with store.transaction() as tx:
            job = tx.ingest_jobs.require(job_id)
            if job.status not in ("queued", "running"):
                return
            tx.ingest_jobs.update(job_id, status="running", log_lines=[f"job {job_id} running ({'dry run' if job.dry_run else 'writing'})"])
        request = IngestRunRequest.model_validate(job.request)
        options = options_of(self.settings, request)
        graph = self.corpus.graph
        assert graph is not None
        names = None
        if options.thai_names:
            with store.read() as tx:
                stored_names = all_names(tx.connection)
            names = NameLinker(stored_names, lambda entity: _entity_type(graph.catalog, entity))
        reports: list[IngestFileReport] = []
        for item in request.batch:
            lines: list[str] = []
            try:
                report = ingest_file(
                    item, dry_run=request.dry_run, options=options, index=self.corpus.index, graph=graph,
                    names=names, log=lines.append,
                )
            except BioMcpError as error:
                lines.append(f"{item.uri}: error {error.code.value}: {error.message}")
                report = report_of(item, None, None, "error").model_copy(update={"error": error.message})
            reports.append(report)
            with store.transaction() as tx:
                tx.ingest_jobs.update(
                    job_id, counts=_totals(reports).model_dump(),
                    files=[r.model_dump(mode="json") for r in reports], log_lines=lines,
                )
        failed = [r for r in reports if r.status == "error"]
        totals = _totals(reports)
        with store.transaction() as tx:
            if failed:
                message = f"{len(failed)} of {len(reports)} files failed: " + "; ".join(
                    f"{r.uri}: {r.error}" for r in failed
                )
                tx.ingest_jobs.update(job_id, status="error", error=message, log_lines=[f"error: {message}"])
            else:
                tx.ingest_jobs.update(
                    job_id, status="done",
                    log_lines=[
                        (f"done: {totals.written} written, {totals.unchanged} unchanged, "
                        f"{sum(1 for r in reports if r.status == 'would_write')} would be written")
                    ],
                )


def require_job_id(job_id: str) -> str:
    if not (len(job_id) == 32 and all(char in "0123456789abcdef" for char in job_id)):
        raise BioMcpError(ErrorCode.VALIDATION, f"job_id {job_id!r} is not an ingestion job id", {"field": "job_id"})
    return job_id


def summarize(response: IngestRunResponse) -> str:
    """The whole result as Markdown: the job, its totals, one line per file."""
    c = response.counts
    mode = "dry run (nothing written)" if response.dry_run else "write"
    lines = [
        f"Ingestion job `{response.job_id}`: **{response.status}** ({mode}).",
        (f"Totals: {c.files} files, {c.pages} pages ({c.ocr_pages} by OCR), {c.characters} characters, "
        f"{c.sections} sections, {c.chunks} chunks, {c.entities} entities, {c.relations} relations; {c.written} written, "
        f"{c.unchanged} unchanged, {c.failed} failed."),
    ]
    for report in response.files:
        detail = (
            f"error: {report.error}" if report.status == "error"
            else f"{report.pages} pages ({report.ocr_pages} OCR), {report.characters} chars, {report.sections} sections, "
            f"{report.chunks} chunks, {report.entities} entities, {report.relations} relations"
        )
        where = f" as {report.doc_id}" if report.doc_id else ""
        lines.append(f"- {report.uri}{where} [{report.doc_type or '?'}, {report.lang or '?'}]: {report.status}; {detail}")
    if response.error:
        lines.append(f"Error: {response.error}")
    if response.status in ("queued", "running"):
        lines.append(f"Still {response.status}: read {response.status_uri} for progress.")
    lines.append(f"Log: {response.log_uri}; status: {response.status_uri}")
    return "\n".join(lines)


async def ingest_once(settings: Settings, request: IngestRunRequest) -> IngestRunResponse:
    """`bio-mcp ingest`: one job run to its end in this process, then (if it wrote) every pending embedding."""
    from bio_mcp.sources.ncbi.client import EutilsClient

    eutils = EutilsClient(settings)
    corpus = CorpusService(settings, eutils, embed_in_background=False)
    service = IngestService(settings, corpus)
    try:
        response = await service.run(request)
        view = await service.wait(response.job_id, timeout_s=float("inf"))
        if view.counts.written:
            await corpus.drain()
        return service.response(view)
    finally:
        await service.aclose()
        await corpus.aclose()
        await eutils.aclose()
