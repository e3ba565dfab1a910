"""`pubmed.sync_delta`: an incremental, idempotent sync of one query's PubMed records by EDAT window.

1. Under the query key's cross-process sync lock, a job row is started (and any job a killed
   process left `running` is marked abandoned).
2. The query key is bound to its term (another term is refused unless `reset_term`, audited).
   Windows run from (watermark - overlap_days), or on a first sync from `since` or `lookback_days`
   before today (never from the beginning of PubMed), to today; each is split until ESearch can
   list all its ids and it fits the per-call record cap (`windows.plan_windows`). Windows are
   synced in date order until the next would pass the cap; the rest waits for the next call
   (`more_to_sync`), which resumes from the watermark.
3. Each window's ids are paged out of ESearch, fetched by EFetch in batches, parsed once, linked
   and extracted (before the transaction), and each batch's documents, chunks and knowledge graph
   commit in ONE transaction; the derived indexes are updated right after (BM25 at once, vectors
   when the embedding writer gets to the new chunks). The four stages overlap across batches
   (fetch, parse, annotate, commit: see `_sync_window`), but batches commit one at a time, in
   order. A sync of `worker_min_records` or more starts the service's annotation worker
   (`graph/annotation_worker.py`): batches are linked and extracted in that process, on another
   core, with the same results; while it starts, parsing runs up to WORKER_START_AHEAD batches
   ahead of it.
4. The watermark advances after each window, to the highest EDAT committed so far: windows run in
   date order, so everything at or below it is in the store whatever happens next.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import deque
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta

from pydantic import ValidationError

from bio_mcp.errors import BioMcpError
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.models import Pubtator3SyncReport, SyncDeltaRequest, SyncDeltaResponse
from bio_mcp.features.corpus.pubtator3_annotations import (
    AnnotatedDocument,
    Pubtator3Run,
    Pubtator3Tally,
    record_annotations,
)
from bio_mcp.features.corpus.records import CorpusDocument, corpus_document
from bio_mcp.features.corpus.sync_progress import JobProgressWriter
from bio_mcp.features.corpus.windows import (
    ALL_TIME_START,
    ESEARCH_CEILING,
    Window,
    WindowPlan,
    plan_windows,
    window_ids,
)
from bio_mcp.features.progress import Progress
from bio_mcp.graph.annotation_worker import AnnotationWorker, Section
from bio_mcp.graph.build import DocumentSource, SectionSource
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers import parse_requested
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop
from bio_mcp.store import ChunkSet, MetadataStore
from bio_mcp.store.timestamps import format_iso_utc, parse_iso_utc

# Before the oldest Entrez date any PubMed record carries.
PUBMED_FIRST_EDAT = date(1700, 1, 1)


@dataclass(frozen=True)
class SyncOptions:
    # First sync of a query key: start here (None: `lookback_days` before the last day).
    since: date | None = None
    lookback_days: int = 365
    # Records stored per call at most, by whole windows (None: no cap); the request may lower or raise it.
    max_records: int | None = 5000
    # Ids per EFetch request and per store transaction.
    batch_size: int = 200
    # ESearch page size when listing a window's ids (NCBI serves at most 10,000 per request).
    id_page_size: int = 5000
    # Caps a window's span in days so the watermark advances in steps (None: split by count only).
    max_window_days: int | None = None
    ceiling: int = ESEARCH_CEILING
    lock_timeout_s: float = 60.0
    # The last EDAT day to sync (None: today, UTC).
    until: date | None = None
    # Told the records fetched so far after each EFetch batch ("records", done, None).
    progress: Progress | None = None
    # A sync of at least this many records starts the annotation worker (None: never); smaller
    # ones would wait longer for it to start (about 2 s) than it saves them.
    worker_min_records: int | None = 1000


DEFAULT_SYNC_OPTIONS = SyncOptions()
# While the annotation worker loads its linker (about 1.5 s here), up to this many batches are
# parsed ahead and wait for it; a worker not ready this long after is not waited for.
WORKER_START_AHEAD = 10
WORKER_START_TIMEOUT_S = 20.0
# Who a term reset through pubmed.sync_delta is audited as.
SYNC_ACTOR = "pubmed.sync_delta"


@dataclass
class SyncTally:
    inserted: int = 0
    updated: int = 0
    skipped: int = 0
    pmids_processed: int = 0
    max_edat_seen: str | None = None
    stale: int = 0
    not_returned: int = 0
    # Records EFetch sent that the batch did not ask for: dropped, never stored.
    unrequested: int = 0
    unreadable: list[str] = field(default_factory=list)
    # Wall time per stage, kept with the job row so an operator can see where a sync spends it
    # (consecutive batches' stages overlap, so they can add up to more than the sync took).
    fetch_s: float = 0.0
    parse_s: float = 0.0
    # The annotate stage (entity linking and relation extraction, in the worker or here), and its
    # two steps' own time (measured where they ran).
    annotate_s: float = 0.0
    link_s: float = 0.0
    extract_s: float = 0.0
    # Documents the annotation worker linked and extracted (the others were done in process).
    worker_documents: int = 0
    store_s: float = 0.0
    # Ids sent to EFetch so far, of the records the plan counted (None before it).
    requested: int = 0
    planned: int | None = None

    def counts(self) -> dict[str, int]:
        return {
            "inserted": self.inserted,
            "updated": self.updated,
            "skipped": self.skipped,
            "pmids_processed": self.pmids_processed,
        }

    def job_counts(self) -> dict[str, int]:
        return {
            **self.counts(),
            "fetch_ms": round(self.fetch_s * 1000),
            "parse_ms": round(self.parse_s * 1000),
            "annotate_ms": round(self.annotate_s * 1000),
            "link_ms": round(self.link_s * 1000),
            "extract_ms": round(self.extract_s * 1000),
            "worker_documents": self.worker_documents,
            "fetched": self.requested,
            **({} if self.planned is None else {"planned": self.planned}),
            "store_ms": round(self.store_s * 1000),
        }


@dataclass(frozen=True)
class BatchOutcome:
    inserted: int
    updated: int
    skipped: int
    processed: int
    max_edat_seen: str | None
    stale: int


def graph_sources(documents: dict[str, CorpusDocument], versions: dict[str, int], pmids: Sequence[str]) -> list[DocumentSource]:
    """What the graph is built from for each changed document version."""
    return [
        DocumentSource(
            pmid=pmid,
            title=documents[pmid].record.title,
            version=versions[pmid],
            last_edited=documents[pmid].record.lr,
            sections=[
                SectionSource(chunk.chunk_id, chunk.uuid, chunk.section, chunk.text, chunk.position)
                for chunk in documents[pmid].chunks
            ],
            facts=documents[pmid].facts,
            mentions=documents[pmid].mentions,
            relations=documents[pmid].relations,
        )
        for pmid in pmids
    ]


def commit_documents(
    index: CorpusIndex, documents: Sequence[CorpusDocument], graph: GraphIndexer | None = None,
    pubtator3: Pubtator3Tally | None = None,
) -> BatchOutcome:
    """Upsert documents into the index's store and replace the chunks of the changed ones, and with
    `graph` their knowledge graph (with `pubtator3`, what PubTator3 said of them too, counted
    there), in one transaction, then index them.

    Every path that fills the corpus (sync, BEIR evaluation) goes through here.
    """
    by_pmid = {document.record.pmid: document for document in documents}
    with index.lock:
        with index.store.transaction() as tx:
            result = tx.documents.upsert([document.record for document in by_pmid.values()])
            sets = [
                ChunkSet(pmid=pmid, version=result.versions[pmid], chunks=by_pmid[pmid].chunks)
                for pmid in result.changed_pmids()
            ]
            replaced = tx.chunks.replace_many(sets)
            if graph is not None:
                graph.write(tx.connection, graph_sources(by_pmid, result.versions, result.changed_pmids()))
                asked = [
                    AnnotatedDocument(pmid, result.versions[pmid],
                                      [(chunk.chunk_id, chunk.text) for chunk in document.chunks], document.pubtator3)
                    for pmid, document in by_pmid.items()
                    if document.pubtator3 is not None and pmid in result.versions
                ]
                if asked and pubtator3 is not None:
                    record_annotations(tx.connection, graph, asked, pubtator3)
        index.apply(replaced.removed_uuids, replaced.to_index_uuids, replaced.change_id)
    return BatchOutcome(
        inserted=result.inserted,
        updated=result.updated,
        skipped=result.skipped,
        processed=result.pmids_processed,
        max_edat_seen=result.max_edat_seen,
        stale=len(result.stale),
    )


def overlap_start(watermark: date, overlap_days: int) -> date:
    """The first day to re-read: `overlap_days` before the watermark, never before PubMed's first
    EDAT (which also keeps the subtraction clear of `date.min`)."""
    reach = max((watermark - ALL_TIME_START).days, 0)
    return watermark - timedelta(days=min(overlap_days, reach))


def new_job_id(now: datetime) -> str:
    return f"sync_{format_iso_utc(now)}_{uuid.uuid4().hex[:8]}"


def _documents(articles: Sequence[Article], today: date, tally: SyncTally) -> list[CorpusDocument]:
    documents = []
    for article in articles:
        try:
            documents.append(corpus_document(article, today))
        except ValidationError:
            tally.unreadable.append(article.pmid)
    return documents


async def _annotate(run: _Run, documents: list[CorpusDocument]) -> list[CorpusDocument]:
    """With a graph, the documents with their mentions and relations: by the annotation worker when
    it is ready (a starting one is waited for, within WORKER_START_TIMEOUT_S), else here (in a
    thread), with the same results either way."""
    if run.graph is None or not documents:
        return documents
    graph = run.graph
    started = time.perf_counter()
    found = None
    if run.worker is not None and run.worker.starting:
        await run.worker.wait_ready(WORKER_START_TIMEOUT_S)
    if run.worker is not None and run.worker.ready:
        found = await run.worker.annotate(
            [[Section(chunk.chunk_id, chunk.text) for chunk in document.chunks] for document in documents]
        )
        if found is not None:
            run.tally.worker_documents += len(found)
    if found is None:
        found = await asyncio.to_thread(lambda: [graph.annotate(document.chunks) for document in documents])
    run.tally.annotate_s += time.perf_counter() - started
    for annotated in found:
        run.tally.link_s += annotated.link_s
        run.tally.extract_s += annotated.extract_s
    documents = [document.annotated(annotated) for document, annotated in zip(documents, found, strict=True)]
    if run.pubtator3 is not None:
        fetched = await run.pubtator3.fetch([document.record.pmid for document in documents])
        documents = [replace(document, pubtator3=fetched[document.record.pmid]) for document in documents]
    return documents


@dataclass(frozen=True)
class CapStop:
    """Where the record cap stopped a call: records stored, the last EDAT day covered, what is left."""

    cap: int
    taken: int
    through: date
    remaining: int

    def warning(self) -> str:
        return (
            f"stopped at the per-call record cap ({self.cap}) after {self.taken} records, through EDAT "
            f"{self.through.isoformat()}; about {self.remaining} more records match later dates: call again "
            f"with the same query_key to continue from the watermark"
        )


def _warnings(tally: SyncTally, plan_warnings: list[str], abandoned: list[str], pending: int) -> list[str]:
    warnings = list(plan_warnings)
    if abandoned:
        warnings.append(f"an earlier sync of this query key did not finish (killed or crashed): {', '.join(abandoned)}")
    if tally.stale:
        warnings.append(f"{tally.stale} records were older revisions than the stored ones and were not applied")
    if tally.not_returned:
        warnings.append(f"{tally.not_returned} PMIDs listed by ESearch were not returned by EFetch")
    if tally.unrequested:
        warnings.append(f"EFetch returned {tally.unrequested} records that were not requested; they were not stored")
    if tally.unreadable:
        warnings.append(f"{len(tally.unreadable)} records could not be normalised: {', '.join(tally.unreadable[:20])}")
    if pending:
        warnings.append(f"{pending} chunks are pending embedding (searchable by BM25 until embedded)")
    return warnings


async def sync_delta(
    request: SyncDeltaRequest,
    *,
    store: MetadataStore,
    index: CorpusIndex,
    eutils: EutilsClient,
    options: SyncOptions = DEFAULT_SYNC_OPTIONS,
    graph: GraphIndexer | None = None,
    worker: AnnotationWorker | None = None,
    pubtator3: Pubtator3Run | None = None,
) -> SyncDeltaResponse:
    """One sync of `request`; with `graph`, each batch's knowledge graph commits with its documents
    (linked and extracted by `worker` when the sync is large enough to start it), and with
    `pubtator3` PubTator3's mentions of them too, after those an earlier outage left pending and
    those PubTator3 lacked a while ago (asked again)."""
    if graph is None:
        pubtator3 = None
    now = datetime.now(UTC)
    job_id = new_job_id(now)
    with ExitStack() as stack:
        # The lock may wait up to its timeout: wait in a thread, not on the event loop.
        await asyncio.to_thread(stack.enter_context, store.sync_lock(request.query_key, options.lock_timeout_s))
        with store.transaction() as tx:
            if request.reset_term:
                tx.checkpoints.reset_term(request.query_key, request.term, actor=SYNC_ACTOR)
            else:
                tx.checkpoints.bind_term(request.query_key, request.term)
            abandoned = tx.jobs.abandon_running(request.query_key)
            last = tx.checkpoints.get(request.query_key)
        end = options.until or now.date()
        if last is not None:
            start = overlap_start(parse_iso_utc(last).date(), request.overlap_days)
        else:
            start = options.since or end - timedelta(days=request.lookback_days or options.lookback_days)
        cap = request.max_records or options.max_records
        with store.transaction() as tx:
            tx.jobs.start(
                job_id,
                request.query_key,
                request.term,
                window_start=format_iso_utc(datetime.combine(start, datetime.min.time(), UTC)),
                window_end=format_iso_utc(datetime.combine(end, datetime.max.time(), UTC)),
            )
        tally = SyncTally()
        progress_row = JobProgressWriter(store, job_id)
        try:
            if pubtator3 is not None:
                await pubtator3.ask_again(store, graph)
            plan = await plan_windows(
                eutils, request.term, start, end, ceiling=options.ceiling, max_days=options.max_window_days,
                max_count=cap,
            )
            # A first sync that finds nothing in its look-back would leave a new user with an empty
            # corpus and no idea why: it reaches back to PubMed's oldest records instead, and says so.
            widened = last is None and plan.total == 0 and options.since is None and request.lookback_days is None
            if widened:
                start = PUBMED_FIRST_EDAT
                with store.transaction() as tx:
                    tx.jobs.widen(job_id, format_iso_utc(datetime.combine(start, datetime.min.time(), UTC)))
                plan = await plan_windows(
                    eutils, request.term, start, end, ceiling=options.ceiling, max_days=options.max_window_days,
                    max_count=cap,
                )
            tally.planned = plan.total
            progress_row.report(tally.job_counts())
            if worker is not None and options.worker_min_records is not None and plan.total >= options.worker_min_records:
                worker.start()
            run = _Run(request, store, index, eutils, options, now.date(), job_id, tally, graph, worker, progress_row,
                       pubtator3)
            stop = await _sync_windows(run, plan, cap)
            pending = index.pending_embeddings()
            warnings = _warnings(tally, plan.warnings, abandoned, pending)
            if pubtator3 is not None:
                await asyncio.to_thread(pubtator3.count_pending, store)
                warnings.extend(pubtator3.warnings())
            if widened:
                warnings.insert(0, f"first sync of {request.query_key!r}: no record entered PubMed in the "
                                   f"{options.lookback_days} days before {end.isoformat()}, so this sync reaches back "
                                   "to PubMed's oldest records, oldest first")
            elif last is None:
                warnings.insert(0, f"first sync of {request.query_key!r}: from EDAT {start.isoformat()} "
                                   f"(older records: pass lookback_days, or set corpus.checkpoint.set to an "
                                   "earlier date, and sync again)")
            if stop is not None:
                warnings.append(stop.warning())
            await progress_row.close()
        except BaseException as exc:
            message = exc.message if isinstance(exc, BioMcpError) else f"{type(exc).__name__}: {exc}"
            # No await here: a cancelled sync must still mark its job failed. A progress write
            # still in flight cannot undo that (it writes only a running job).
            progress_row.stop()
            with store.transaction() as tx:
                tx.jobs.fail(job_id, message, tally.job_counts())
            raise
        with store.transaction() as tx:
            tx.jobs.finish(job_id, tally.job_counts(), warnings)
    return SyncDeltaResponse(
        job_id=job_id, max_edat_seen=tally.max_edat_seen, warnings=warnings, more_to_sync=stop is not None,
        pubtator3=Pubtator3SyncReport.of(pubtator3.tally) if pubtator3 is not None else None,
        **tally.counts(),
    )


@dataclass(frozen=True)
class _Run:
    request: SyncDeltaRequest
    store: MetadataStore
    index: CorpusIndex
    eutils: EutilsClient
    options: SyncOptions
    today: date
    job_id: str
    tally: SyncTally
    graph: GraphIndexer | None
    worker: AnnotationWorker | None
    # The job row's live counts (read by `bio-mcp://sync/{query_key}`).
    progress_row: JobProgressWriter
    pubtator3: Pubtator3Run | None = None


async def _sync_windows(run: _Run, plan: WindowPlan, cap: int | None) -> CapStop | None:
    """The plan's windows in date order; the plan already ends where the cap does (see `plan_windows`,
    which always plans one window, so a single EDAT day larger than the cap still moves the watermark)."""
    for window in plan.windows:
        await _sync_window(run, window)
    if plan.complete or cap is None:
        return None
    return CapStop(cap, plan.total, plan.windows[-1].end, max(plan.range_count - plan.total, 0))


async def _sync_window(run: _Run, window: Window) -> None:
    """The window's batches, pipelined in four stages: while one batch is parsed, the next is being
    fetched, the one before is being linked and extracted (in the annotation worker when it is
    ready) and the one before that is committing (in a thread; the database works mostly without
    the GIL). Batches still commit one at a time and in order, each with its graph."""
    tally = run.tally
    ids = await window_ids(
        run.eutils, run.request.term, window, page_size=run.options.id_page_size, ceiling=run.options.ceiling
    )
    batches = [ids[offset : offset + run.options.batch_size] for offset in range(0, len(ids), run.options.batch_size)]
    fetching = asyncio.create_task(_fetch(run, batches[0])) if batches else None
    # Batches being annotated, oldest first: one, or more while the annotation worker starts.
    annotating: deque[asyncio.Task[list[CorpusDocument]]] = deque()
    committing: asyncio.Task[tuple[BatchOutcome, float]] | None = None

    async def commit_annotated() -> None:
        """The oldest annotated batch goes to the committer once the one before it has committed."""
        nonlocal committing
        documents = await annotating[0]
        annotating.popleft()
        if committing is not None:
            # Shielded: cancelling the sync does not stop a transaction's thread (see `finally`).
            _count(tally, *await asyncio.shield(committing))
            committing = None
        if documents:
            committing = asyncio.create_task(asyncio.to_thread(_commit, run, documents))

    try:
        for number, batch in enumerate(batches):
            assert fetching is not None
            body = await fetching
            fetching = asyncio.create_task(_fetch(run, batches[number + 1])) if number + 1 < len(batches) else None
            documents = await _parse(run, batch, body)
            annotating.append(asyncio.create_task(_annotate(run, documents)))
            # While the worker loads its linker, parsing goes on ahead: those batches wait for it
            # instead of being annotated here, on the core the sync's own work needs.
            ahead = WORKER_START_AHEAD if run.worker is not None and run.worker.starting else 1
            while len(annotating) > ahead:
                await commit_annotated()
        while annotating:
            await commit_annotated()
        if committing is not None:
            _count(tally, *await asyncio.shield(committing))
            committing = None
    finally:
        for task in (fetching, *annotating):
            if task is not None and not task.cancel() and not task.cancelled():
                # A stage that ended anyway: its error, if any, is not the one the sync reports.
                task.exception()
        if committing is not None:
            # A failure or cancellation left a transaction in flight: it ends (commits or rolls
            # back) before the sync reports, so the job row says what the store holds.
            await asyncio.wait({committing})
            if not committing.cancelled() and committing.exception() is None:
                _count(tally, *committing.result())
    if tally.max_edat_seen is not None:
        # Never past this window's last day, even if a record's history disagrees with ESearch's EDAT.
        ceiling = format_iso_utc(datetime.combine(window.end, datetime.max.time(), UTC))
        with run.store.transaction() as tx:
            tx.checkpoints.advance(run.request.query_key, min(tally.max_edat_seen, ceiling), run.job_id)


async def _fetch(run: _Run, batch: Sequence[str]) -> bytes:
    started = time.perf_counter()
    response = await run.eutils.efetch(batch)
    run.tally.fetch_s += time.perf_counter() - started
    return response.body


async def _parse(run: _Run, batch: Sequence[str], body: bytes) -> list[CorpusDocument]:
    """One fetched batch parsed, scored and chunked."""
    tally = run.tally
    started = time.perf_counter()
    parsed_batch = await parse_off_loop(parse_requested, body, set(batch))
    articles = parsed_batch.records
    tally.unrequested += len(parsed_batch.unrequested)
    tally.not_returned += len(set(batch) - {article.pmid for article in articles})
    tally.requested += len(batch)
    if run.options.progress is not None:
        run.options.progress("records", tally.requested, None)
    run.progress_row.report(tally.job_counts())
    documents = await asyncio.to_thread(_documents, articles, run.today, tally)
    tally.parse_s += time.perf_counter() - started
    return documents


def _commit(run: _Run, documents: Sequence[CorpusDocument]) -> tuple[BatchOutcome, float]:
    """`commit_documents` and its wall time (the store stage's, measured in its own thread)."""
    started = time.perf_counter()
    outcome = commit_documents(run.index, documents, run.graph, run.pubtator3.tally if run.pubtator3 else None)
    return outcome, time.perf_counter() - started


def _count(tally: SyncTally, outcome: BatchOutcome, store_s: float) -> None:
    tally.store_s += store_s
    tally.inserted += outcome.inserted
    tally.updated += outcome.updated
    tally.skipped += outcome.skipped
    tally.pmids_processed += outcome.processed
    tally.stale += outcome.stale
    if outcome.max_edat_seen is not None and (
        tally.max_edat_seen is None or outcome.max_edat_seen > tally.max_edat_seen
    ):
        tally.max_edat_seen = outcome.max_edat_seen
