"""The corpus as one long-lived object: the store, the derived indexes, the embedder and its writer.

    service = CorpusService(settings, eutils)      # cheap; opens everything on first use
    await service.sync_delta(SyncDeltaRequest(query_key="k", term="..."))
    await service.drain()                          # wait for the write-behind embeddings
    await service.aclose()

On first use the store is opened (schema ensured) and the indexes are reconciled with it, so a
crash, a lost index folder or a switch of embedding model is repaired before anything is served.
The embedding writer is an asyncio task: woken after each sync, it embeds pending chunks in a
worker thread and adds them to the vector index.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.checkpoints import get_checkpoint, set_checkpoint
from bio_mcp.features.corpus.documents import get_document, read_paper
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
from bio_mcp.features.corpus.search import search_corpus
from bio_mcp.features.corpus.sync import DEFAULT_SYNC_OPTIONS, SyncOptions, sync_delta
from bio_mcp.features.progress import Progress
from bio_mcp.search.embeddings import Embeddings, build_embeddings
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.store import MetadataStore, open_metadata_store

log = logging.getLogger("bio_mcp.corpus")


def index_folder(settings: Settings) -> Path:
    return settings.home / "index"


class CorpusService:
    def __init__(
        self,
        settings: Settings,
        eutils: EutilsClient,
        *,
        embeddings: Embeddings | None = None,
        sync_options: SyncOptions = DEFAULT_SYNC_OPTIONS,
        embed_in_background: bool = True,
    ) -> None:
        self.settings = settings
        self.eutils = eutils
        self.sync_options = sync_options
        self._embeddings = embeddings
        self._embed_in_background = embed_in_background
        self._store: MetadataStore | None = None
        self._index: CorpusIndex | None = None
        self._opening = asyncio.Lock()
        self._embedding = asyncio.Lock()
        self._wake = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self.last_reconcile: ReconcileReport | None = None

    # ---- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the store and indexes and reconcile them (idempotent; every method calls it)."""
        async with self._opening:
            if self._store is not None:
                return
            store = await asyncio.to_thread(open_metadata_store, self.settings)
            try:
                embeddings = self._embeddings or build_embeddings(self.settings)
                index = await asyncio.to_thread(
                    CorpusIndex, store, index_folder(self.settings), embeddings, self.settings.ann_threshold
                )
                self.last_reconcile = await asyncio.to_thread(index.reconcile)
            except BaseException:
                store.close()
                raise
            self._store, self._index = store, index
            if self._embed_in_background:
                self._worker = asyncio.create_task(self._embed_forever(), name="bio-mcp-corpus-embeddings")
                self._wake.set()

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

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        async with self._embedding:
            if self._store is not None:
                self._store.close()
                self._store = None
                self._index = None

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
                request, store=self.store, index=self.index, eutils=self.eutils, options=options or self.sync_options
            )
        finally:
            self._wake.set()

    async def search(self, request: RagSearchRequest) -> RagSearchResponse:
        await self.open()
        return await asyncio.to_thread(search_corpus, request, self.index)

    async def get(self, request: RagGetRequest) -> RagGetResponse:
        await self.open()
        return await asyncio.to_thread(get_document, request, self.store)

    async def read_paper(self, pmid: str) -> str:
        await self.open()
        return await asyncio.to_thread(read_paper, pmid, self.store)

    async def read_scratch(self, scratch_id: str) -> str:
        """A scratch text (`bio-mcp://scratch/{id}`) that a tool result pointed to."""
        await self.open()

        def read() -> str:
            with self.store.read() as tx:
                entry = tx.scratch.get(scratch_id)
            if entry is None:
                raise BioMcpError(
                    ErrorCode.NOT_FOUND, f"no scratch text {scratch_id}: it never existed or has expired",
                    {"scratch_id": scratch_id},
                )
            return entry.text

        return await asyncio.to_thread(read)

    async def checkpoint_get(self, request: CheckpointGetRequest) -> CheckpointGetResponse:
        await self.open()
        return await asyncio.to_thread(get_checkpoint, request, self.store)

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
    options: SyncOptions = DEFAULT_SYNC_OPTIONS,
    *,
    embed: bool = True,
    embed_progress: Progress | None = None,
) -> SyncDeltaResponse:
    """`bio-mcp sync`: one sync of a query key, then (with `embed`) every pending embedding."""
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, sync_options=options, embed_in_background=False)
    try:
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
    model_id = build_embeddings(settings).model_id  # providers load lazily: no model is loaded here
    store = open_metadata_store(settings)
    try:
        with store.read() as tx:
            return tx.chunks.state_counts(model_id).pending_embedding
    finally:
        store.close()
