"""What a running server owns: settings and the long-lived clients the toolsets share."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable
from logging import INFO, WARNING
from typing import Self

import httpx2

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.ask import Analyst
from bio_mcp.features.analyst.service import build_analyst
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.ingest_jobs import IngestService
from bio_mcp.features.kb.language import warm_up as warm_up_thai
from bio_mcp.features.overflow import Overflow
from bio_mcp.logs import get_logger, log_event
from bio_mcp.server.toolset import Toolset
from bio_mcp.sources.ctgov.client import CtgovClient
from bio_mcp.sources.europepmc.client import EuropePmcClient
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.idconv import IdConverterClient
from bio_mcp.sources.pubtator3.client import Pubtator3Client
from bio_mcp.sources.unpaywall.client import UnpaywallClient
from bio_mcp.store import MetadataStore, open_metadata_store

log = get_logger("runtime")


class Runtime:
    """One per process. Clients are created on first use and closed by `aclose`."""

    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        self.started_at = time.time()
        self._transport = transport
        self._eutils: EutilsClient | None = None
        self._europepmc: EuropePmcClient | None = None
        self._idconv: IdConverterClient | None = None
        self._unpaywall: UnpaywallClient | None = None
        self._corpus: CorpusService | None = None
        self._analyst: Analyst | None = None
        self._ctgov: CtgovClient | None = None
        self._pubtator3: Pubtator3Client | None = None
        self._ingest: IngestService | None = None
        self._store: MetadataStore | None = None
        self._store_lock = threading.Lock()

    @property
    def eutils(self) -> EutilsClient:
        if self._eutils is None:
            self._eutils = EutilsClient(self.settings, transport=self._transport)
        return self._eutils

    @property
    def europepmc(self) -> EuropePmcClient:
        if self._europepmc is None:
            self._europepmc = EuropePmcClient(self.settings, transport=self._transport)
        return self._europepmc

    @property
    def idconv(self) -> IdConverterClient:
        if self._idconv is None:
            self._idconv = IdConverterClient(self.settings, transport=self._transport)
        return self._idconv

    @property
    def unpaywall(self) -> UnpaywallClient:
        if self._unpaywall is None:
            self._unpaywall = UnpaywallClient(self.settings, transport=self._transport)
        return self._unpaywall

    @property
    def corpus(self) -> CorpusService:
        if self._corpus is None:
            self._corpus = CorpusService(
                self.settings, self.eutils, pubtator3=self.pubtator3 if self.settings.pubtator3_mentions else None
            )
        return self._corpus

    @property
    def ingest(self) -> IngestService:
        """tool.ingest.run's job runner, writing through the corpus (its store, index and graph)."""
        if self._ingest is None:
            self._ingest = IngestService(self.settings, self.corpus)
        return self._ingest

    @property
    def ctgov(self) -> CtgovClient:
        """The one ClinicalTrials.gov client (and rate limit) of the trials tools and the analyst."""
        if self._ctgov is None:
            self._ctgov = CtgovClient(self.settings, transport=self._transport)
        return self._ctgov

    @property
    def pubtator3(self) -> Pubtator3Client:
        if self._pubtator3 is None:
            self._pubtator3 = Pubtator3Client(self.settings, transport=self._transport)
        return self._pubtator3

    @property
    def analyst(self) -> Analyst:
        if self._analyst is None:
            self._analyst = build_analyst(self.settings, self.eutils, self.ctgov)
        return self._analyst

    def _scratch_store(self) -> MetadataStore:
        """The metadata store for scratch texts, opened on first use (any toolset may need it)."""
        with self._store_lock:
            if self._store is None:
                self._store = open_metadata_store(self.settings)
            return self._store

    async def put_scratch(self, text: str, mime_type: str) -> str:
        """Keeps `text` behind a `bio-mcp://scratch/{id}` URI (24 h) and returns the URI."""
        def put() -> str:
            with self._scratch_store().transaction() as tx:
                return tx.scratch.put(text, mime_type).uri

        return await asyncio.to_thread(put)

    async def read_scratch(self, scratch_id: str) -> str:
        def read() -> str:
            with self._scratch_store().read() as tx:
                entry = tx.scratch.get(scratch_id)
            if entry is None:
                raise BioMcpError(
                    ErrorCode.NOT_FOUND, f"no scratch text {scratch_id}: it never existed or has expired",
                    {"scratch_id": scratch_id},
                )
            return entry.text

        return await asyncio.to_thread(read)

    @property
    def overflow(self) -> Overflow:
        """Where a feature puts what does not fit the result budget."""
        return Overflow(self.settings.text_budget, self.put_scratch)

    async def warm_up(self, toolsets: list[Toolset]) -> None:
        """Open the corpus (store, index, MeSH linker), load the local embedding model and build the
        analyst's MeSH index before the first call needs them.

        Loading the linker can take longer than the 60 s a TypeScript-SDK client (Claude Desktop,
        the Inspector) waits for a tool result, so it starts when the server does. A failure is
        logged here and met again, typed, by the first call that needs the corpus.
        """
        names = {toolset.name for toolset in toolsets}
        if {"corpus", "kb", "evidence"} & names and await self._warm_step("corpus", self.corpus.open):
            # The local embedding model, which the first search would otherwise load: about 4 s on
            # two cores, before which every kb.search and rag.search waits.
            await self._warm_step("embedding model", self.corpus.index.embeddings.load)
            log_event(log, INFO, "corpus ready")
            if {"kb", "evidence"} & names:
                graph = self.corpus.graph
                # The Thai reading of kb.search and the evidence tools (name lexicon, segmenter,
                # Thai -> English words, drug names), which the first Thai query would otherwise build.
                await self._warm_step("Thai", warm_up_thai, self.corpus.store, graph.catalog if graph else None,
                                      self.settings.caches)
            if "evidence" in names:
                await self._resume_ingestion()
        if "analyst" in names:
            # The analyst's MeSH index, built on the first question otherwise: about half a second
            # that held the event loop and was spent outside that question's time budget.
            await self._warm_step("analyst", self.analyst.mesh)

    async def _warm_step(self, what: str, step: Callable[..., object], *args: object) -> bool:
        """Runs one warm-up step (a blocking one in a worker thread); True if it succeeded.

        A warm-up must never take the server down: a failure is logged, and the first call that
        needs the step meets it again, typed.
        """
        try:
            if inspect.iscoroutinefunction(step):
                await step(*args)
            else:
                await asyncio.to_thread(step, *args)
        except BioMcpError as error:
            log_event(log, WARNING, f"{what} warm-up failed", code=error.code.value, message=error.message)
        except Exception as exc:
            log.log(WARNING, f"{what} warm-up failed unexpectedly", exc_info=exc)
        else:
            return True
        return False

    async def _resume_ingestion(self) -> None:
        """Run again the ingestion jobs a previous server left queued or running."""
        try:
            resumed = await self.ingest.resume()
        except BioMcpError as error:
            log_event(log, WARNING, "resuming ingestion jobs failed", code=error.code.value, message=error.message)
        else:
            if resumed:
                log_event(log, INFO, "ingestion jobs resumed", jobs=len(resumed))

    async def aclose(self) -> None:
        if self._ingest is not None:
            await self._ingest.aclose()
        if self._analyst is not None:
            await self._analyst.aclose()
        if self._ctgov is not None:
            await self._ctgov.aclose()
        if self._pubtator3 is not None:
            await self._pubtator3.aclose()
        if self._corpus is not None:
            await self._corpus.aclose()
        if self._eutils is not None:
            await self._eutils.aclose()
        for client in (self._europepmc, self._idconv, self._unpaywall):
            if client is not None:
                await client.aclose()
        if self._store is not None:
            self._store.close()
            self._store = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
