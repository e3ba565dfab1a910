"""The corpus as one long-lived object: the store, the derived indexes, the embedder and its writer.

    service = CorpusService(settings, eutils)      # cheap; opens everything on first use
    await service.sync_delta(SyncDeltaRequest(query_key="k", term="..."))
    await service.drain()                          # wait for the write-behind embeddings
    await service.aclose()

On first use the store is opened (schema ensured) and the indexes are reconciled with it, so a
crash, a lost index folder or a switch of embedding model is repaired before anything is served.
The embedding writer is an asyncio task: woken after each sync, it embeds pending chunks in a
worker thread and adds them to the vector index. Another, the RELATED_TO refresher
(`related_refresher.py`), is woken by the same writes and recomputes the graph's co-occurrence
edges, debounced, when MENTIONS changed.

Other processes may write the same store (a `bio-mcp sync`, another replica): a second task polls
the store's change log every BIO_MCP_CORPUS_FOLLOW_INTERVAL_S (on PostgreSQL it also wakes at once
on the log's NOTIFY) and applies their changes to this process's index (`CorpusIndex.follow`),
which lives in a folder this process leases (`index_lease`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bio_mcp.collector import settle_collector
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError
from bio_mcp.features.corpus.checkpoints import get_checkpoint, set_checkpoint
from bio_mcp.features.corpus.documents import get_document, read_paper
from bio_mcp.features.corpus.index_lease import IndexLease, lease_index_folder
from bio_mcp.features.corpus.indexing import CorpusIndex, ReconcileReport
from bio_mcp.features.corpus.models import (
    CheckpointGetRequest,
    CheckpointGetResponse,
    CheckpointSetRequest,
    CheckpointSetResponse,
    RagGetRequest,
    RagGetResponse,
    RagSearchRequest,
    RagSearchResponse,
    SyncDeltaRequest,
    SyncDeltaResponse,
)
from bio_mcp.features.corpus.pubtator3_annotations import Pubtator3Run
from bio_mcp.features.corpus.records import CorpusDocument, corpus_document
from bio_mcp.features.corpus.related_refresher import RelatedRefresher
from bio_mcp.features.corpus.search import search_corpus
from bio_mcp.features.corpus.sync import DEFAULT_SYNC_OPTIONS, SyncOptions, commit_documents, sync_delta
from bio_mcp.features.corpus.sync_progress import read_sync_progress
from bio_mcp.features.progress import Progress
from bio_mcp.graph.annotation_worker import AnnotationWorker
from bio_mcp.graph.indexer import GraphIndexer, build_graph_indexer
from bio_mcp.graph.kg_import import import_shipped_tables
from bio_mcp.search.embeddings import Embeddings, build_embeddings
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.pubtator3.client import Pubtator3Client
from bio_mcp.store import MetadataStore, open_metadata_store
from bio_mcp.store.changelog import ChangeListener

log = logging.getLogger("bio_mcp.corpus")

# Follow rounds between two prunes of the change log.
_PRUNE_EVERY = 600


def sync_options_of(settings: Settings, **overrides: Any) -> SyncOptions:
    """The sync options the settings give (look-back, record cap), with `overrides`."""
    return replace(
        DEFAULT_SYNC_OPTIONS,
        lookback_days=settings.sync_lookback_days,
        max_records=settings.sync_max_records,
        worker_min_records=settings.annotation_worker_min_records or None,
        **overrides,
    )


def index_folder(settings: Settings) -> Path:
    return settings.home / "index"


class CorpusService:
    def __init__(
        self,
        settings: Settings,
        eutils: EutilsClient,
        *,
        embeddings: Embeddings | None = None,
        sync_options: SyncOptions | None = None,
        embed_in_background: bool = True,
        follow_changes: bool | None = None,
        graph: GraphIndexer | None = None,
        refresh_related: bool | None = None,
        import_shipped_names: bool | None = None,
        pubtator3: Pubtator3Client | None = None,
    ) -> None:
        self.settings = settings
        self.eutils = eutils
        # With BIO_MCP_PUBTATOR3_MENTIONS on, the client PubTator3's annotations are fetched with:
        # the caller's (one rate limit per process), else one of the service's own.
        self._own_pubtator3 = pubtator3 is None and settings.pubtator3_mentions
        self.pubtator3 = Pubtator3Client(settings) if self._own_pubtator3 else pubtator3
        self.sync_options = sync_options or sync_options_of(settings)
        self._embeddings = embeddings
        self._embed_in_background = embed_in_background
        self._store: MetadataStore | None = None
        self._index: CorpusIndex | None = None
        # Links and writes each sync batch's knowledge graph (None: built from settings on open).
        self.graph = graph
        # Annotates large syncs' batches in a worker process, when the graph is the settings' own.
        self._annotation_worker: AnnotationWorker | None = None
        self._opening = asyncio.Lock()
        self._embedding = asyncio.Lock()
        self._wake = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        # Follows other processes' writes; by default when the embedding writer runs (a server).
        self._follow = embed_in_background if follow_changes is None else follow_changes
        self._follower: asyncio.Task[None] | None = None
        # Builds a new replica's BM25 half from the store (`CorpusIndex.needs_lexical_build`).
        self._lexical: asyncio.Task[None] | None = None
        self._lease: IndexLease | None = None
        self._listener: ChangeListener | None = None
        # Recomputes RELATED_TO after this process's writes; by default in a server, as the setting says.
        self._refresh_related = (
            embed_in_background and settings.graph_related_after_sync if refresh_related is None else refresh_related
        )
        self._related: RelatedRefresher | None = None
        self.last_reconcile: ReconcileReport | None = None
        # Imports the Thai herb names and formulations the package ships on open (once per store), so a
        # server finds herbs by their Thai names with no `bio-mcp kg import` step; by default in a server.
        self._import_shipped = embed_in_background if import_shipped_names is None else import_shipped_names

    # ---- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the store and indexes and reconcile them (idempotent; every method calls it)."""
        async with self._opening:
            if self._store is not None:
                return
            store = await asyncio.to_thread(open_metadata_store, self.settings)
            lease: IndexLease | None = None
            try:
                lease = lease_index_folder(self.settings.home)
                embeddings = self._embeddings or build_embeddings(self.settings, model_api=ModelApi)
                index = await asyncio.to_thread(
                    CorpusIndex,
                    store,
                    lease.folder,
                    embeddings,
                    self.settings.ann_threshold,
                    self.settings.vector_backend,
                )
                build_in_background = await asyncio.to_thread(index.needs_lexical_build)
                if build_in_background:
                    index.lexical_ready.clear()
                else:
                    self.last_reconcile = await asyncio.to_thread(index.reconcile)
                if self.graph is None:
                    self.graph = await asyncio.to_thread(build_graph_indexer, self.settings)
                    if self.graph.linker is not None:
                        self._annotation_worker = AnnotationWorker(self.settings)
                if self._import_shipped and self.graph.catalog.vocabulary is not None:
                    imported = await asyncio.to_thread(import_shipped_tables, store, self.graph.catalog)
                    if imported:
                        log.info("imported the shipped Thai herb names and formulations: %s",
                                 ", ".join(f"{report.names_added} names, {report.edges_added} edges" for report in imported))
            except BaseException:
                if lease is not None:
                    lease.release()
                store.close()
                raise
            self._store, self._index, self._lease = store, index, lease
            if build_in_background:
                log.info("this replica's word index is empty: building it from the store in the background; "
                         "searches use the shared vectors alone until it is built")
                self._lexical = asyncio.create_task(self._build_lexical(index), name="bio-mcp-corpus-lexical")
            if self._embed_in_background:
                pending = await asyncio.to_thread(index.pending_embeddings)
                if pending:
                    # Chunks a stopped server (or a sync run with --no-embed) left unembedded are found by
                    # BM25 only until now; said, so a user knows why search improves after a restart.
                    log.info("%d chunks were left unembedded by an earlier run; embedding them now", pending)
                self._worker = asyncio.create_task(self._embed_forever(), name="bio-mcp-corpus-embeddings")
                self._wake.set()
            if self._refresh_related:
                self._related = RelatedRefresher(store, self.settings.graph_related_delay_s)
                self._related.start()
            if self._follow and self.settings.corpus_follow_interval_s > 0:
                if self.settings.corpus_listen:
                    try:
                        self._listener = await asyncio.to_thread(store.change_listener)
                    except BioMcpError as exc:
                        log.warning("polling the change log only: %s", exc.message)
                self._follower = asyncio.create_task(self._follow_forever(), name="bio-mcp-corpus-follower")

    @property
    def annotation_worker(self) -> AnnotationWorker | None:
        """The process that links and extracts large syncs' batches (None: no linking, or a graph
        given by the caller); started by the first sync large enough to repay its start."""
        return self._annotation_worker

    @property
    def related_refresher(self) -> RelatedRefresher | None:
        """The background refresher of RELATED_TO (None: not refreshed by this service)."""
        return self._related

    @property
    def store(self) -> MetadataStore:
        if self._store is None:
            raise RuntimeError("CorpusService.open() has not run")
        return self._store

    @property
    def index(self) -> CorpusIndex:
        if self._index is None:
            raise RuntimeError("CorpusService.open() has not run")
        return self._index

    async def _build_lexical(self, index: CorpusIndex) -> None:
        try:
            self.last_reconcile = await asyncio.to_thread(index.reconcile)
        except Exception:
            log.exception("building this replica's word index failed; searches stay on the shared vectors")
            raise
        else:
            index.lexical_ready.set()
            log.info("this replica's word index is built: searches are hybrid")

    async def lexical_built(self) -> None:
        """Wait until a new replica's word index is built (at once when none is being built)."""
        await self.open()
        if self._lexical is not None:
            await asyncio.shield(self._lexical)

    async def aclose(self) -> None:
        if self._lexical is not None:
            # The build runs in a thread that cannot be cancelled: it finishes before the store closes.
            with contextlib.suppress(Exception):
                await self._lexical
            self._lexical = None
        for task in (self._worker, self._follower):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._worker = self._follower = None
        if self._related is not None:
            await self._related.aclose()
            self._related = None
        if self._annotation_worker is not None:
            self._annotation_worker.close()
            self._annotation_worker = None
        if self._own_pubtator3 and self.pubtator3 is not None:
            await self.pubtator3.aclose()
            self.pubtator3 = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        async with self._embedding:
            if self._store is not None:
                self._store.close()
                self._store = None
                self._index = None
            if self._lease is not None:
                self._lease.release()
                self._lease = None

    # ---- following other processes' writes ---------------------------------------------------

    async def _follow_forever(self) -> None:
        rounds = 0
        interval = self.settings.corpus_follow_interval_s
        while True:
            await self._wait_for_changes(interval)
            try:
                if await asyncio.to_thread(self.index.follow):
                    # Another process's chunks may still lack vectors: this process can embed them too.
                    self._wake.set()
                rounds += 1
                if rounds % _PRUNE_EVERY == 0:
                    await asyncio.to_thread(
                        self.index.prune_changes, self.settings.changelog_keep_rows, self.settings.changelog_min_age_s
                    )
            except Exception:
                # The cursor did not move: the next round retries the same changes.
                log.exception("following the corpus change log failed")

    async def _wait_for_changes(self, interval: float) -> None:
        listener = self._listener
        if listener is None:
            await asyncio.sleep(interval)
            return
        try:
            await asyncio.to_thread(listener.wait, interval)
        except Exception:
            # A lost LISTEN connection: carry on polling, which never depended on it.
            log.warning("the change log's NOTIFY connection failed; polling only", exc_info=True)
            self._listener = None
            listener.close()

    async def follow(self) -> int:
        """Apply other processes' changes now; returns how many change-log rows were applied."""
        await self.open()
        return await asyncio.to_thread(self.index.follow)

    # ---- the write-behind embedding writer --------------------------------------------------

    async def _embed_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._embed_all()
            except Exception:
                # The chunks stay pending in the store; the next wake (or drain) retries them.
                log.exception("embedding pending chunks failed")

    async def _embed_all(self, progress: Progress | None = None) -> int:
        done = 0
        async with self._embedding:
            total = await asyncio.to_thread(self.index.pending_embeddings) if progress is not None else None
            while True:
                taken = await asyncio.to_thread(self.index.embed_pending, self.settings.embeddings_batch_size)
                if taken == 0:
                    return done
                done += taken
                if progress is not None:
                    progress("chunks", done, max(done, total or 0))

    async def drain(self, progress: Progress | None = None) -> int:
        """Embed everything pending now (errors propagate); returns how many chunks were embedded."""
        await self.open()
        return await self._embed_all(progress)

    # ---- the tools --------------------------------------------------------------------------

    async def sync_delta(self, request: SyncDeltaRequest, options: SyncOptions | None = None) -> SyncDeltaResponse:
        await self.open()
        try:
            return await sync_delta(
                request, store=self.store, index=self.index, eutils=self.eutils, options=options or self.sync_options,
                graph=self.graph, worker=self._annotation_worker, pubtator3=self._pubtator3_run(),
            )
        finally:
            self._documents_written()

    def chunks_written(self) -> None:
        """Wakes the embedding writer (and the RELATED_TO refresher) after chunks were written
        outside `sync_delta` (an ingestion)."""
        self._documents_written()

    def _documents_written(self) -> None:
        self._wake.set()
        if self._related is not None:
            self._related.wake()

    def _pubtator3_run(self) -> Pubtator3Run | None:
        """PubTator3's part of one write, when its mentions are on and the graph is written."""
        if self.pubtator3 is None or not self.settings.pubtator3_mentions or self.graph is None:
            return None
        return Pubtator3Run(self.pubtator3, timedelta(days=self.settings.pubtator3_absent_recheck_days))

    async def add_articles(self, articles: Sequence[Article]) -> None:
        """Store fetched articles the way a sync does (documents, chunks, linked graph, index, in one
        transaction, with PubTator3's mentions when they are on: pending if PubTator3 is down);
        their embeddings follow from the background writer (or `drain`)."""
        await self.open()
        today = datetime.now(UTC).date()
        graph = self.graph
        pubtator3 = self._pubtator3_run()

        def annotate() -> list[CorpusDocument]:
            documents = [corpus_document(article, today) for article in articles]
            if graph is not None:
                documents = [document.annotated(graph.annotate(document.chunks)) for document in documents]
            return documents

        try:
            documents = await asyncio.to_thread(annotate)
            if pubtator3 is not None:
                fetched = await pubtator3.fetch([document.record.pmid for document in documents])
                documents = [replace(document, pubtator3=fetched[document.record.pmid]) for document in documents]
            await asyncio.to_thread(
                commit_documents, self.index, documents, graph, pubtator3.tally if pubtator3 else None
            )
            if pubtator3 is not None and pubtator3.tally.error is not None:
                log.warning("PubTator3 could not be reached (%s): the annotations of PMIDs %s are pending",
                            pubtator3.tally.error, ", ".join(d.record.pmid for d in documents))
        finally:
            self._documents_written()

    async def search(self, request: RagSearchRequest) -> RagSearchResponse:
        await self.open()
        graph = self.graph
        linker, catalog = (graph.linker, graph.catalog) if graph is not None else (None, None)
        return await asyncio.to_thread(search_corpus, request, self.index, linker, catalog)

    async def get(self, request: RagGetRequest) -> RagGetResponse:
        await self.open()
        return await asyncio.to_thread(get_document, request, self.store)

    async def read_paper(self, pmid: str) -> str:
        await self.open()
        return await asyncio.to_thread(read_paper, pmid, self.store)

    async def checkpoint_get(self, request: CheckpointGetRequest) -> CheckpointGetResponse:
        await self.open()
        return await asyncio.to_thread(get_checkpoint, request, self.store)

    async def sync_progress(self, query_key: str) -> str:
        await self.open()
        progress = await asyncio.to_thread(read_sync_progress, query_key, self.store)
        return progress.model_dump_json(indent=2)

    async def checkpoint_set(self, request: CheckpointSetRequest) -> CheckpointSetResponse:
        await self.open()
        return await asyncio.to_thread(set_checkpoint, request, self.store)

    async def rebuild_indexes(self, progress: Progress | None = None) -> int:
        """The derived index from the store's chunks (`bio-mcp index rebuild`); returns the chunk count."""
        await self.open()
        async with self._embedding:
            return await asyncio.to_thread(self.index.rebuild, progress)


async def rebuild_indexes(settings: Settings, eutils: EutilsClient, progress: Progress | None = None) -> int:
    """`bio-mcp index rebuild`: rebuild the derived indexes of the corpus in BIO_MCP_HOME."""
    service = CorpusService(settings, eutils, embed_in_background=False)
    try:
        return await service.rebuild_indexes(progress)
    finally:
        await service.aclose()


async def sync_once(
    settings: Settings,
    request: SyncDeltaRequest,
    options: SyncOptions | None = None,
    *,
    embed: bool = True,
    embed_progress: Progress | None = None,
) -> SyncDeltaResponse:
    """`bio-mcp sync`: one sync of a query key, then (with `embed`) every pending embedding."""
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, sync_options=options, embed_in_background=False)
    try:
        await service.open()
        settle_collector()
        response = await service.sync_delta(request)
        if embed:
            await service.drain(embed_progress)
        return response
    finally:
        await service.aclose()
        await eutils.aclose()


async def embed_pending_once(settings: Settings, progress: Progress | None = None) -> int:
    """`bio-mcp index embed`: embed every chunk still waiting for a vector; returns how many."""
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False)
    try:
        return await service.drain(progress)
    finally:
        await service.aclose()
        await eutils.aclose()


def pending_embeddings(settings: Settings) -> int:
    """Chunks of the corpus in BIO_MCP_HOME still waiting for a vector from the configured model."""
    model_id = build_embeddings(settings, model_api=ModelApi).model_id  # providers load lazily: no model is loaded here
    store = open_metadata_store(settings)
    try:
        with store.read() as tx:
            return tx.chunks.state_counts(model_id).pending_embedding
    finally:
        store.close()
