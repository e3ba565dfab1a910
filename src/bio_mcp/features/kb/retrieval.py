"""The kb retrieval tools over a corpus service: kb.search, kb.retrieve_evidence, diagnostics.

    retrieval = KbRetrieval(corpus_service)
    await retrieval.search(KbSearchRequest(query="drug-induced hepatotoxicity", verbosity="graph"))

The corpus's store and index are opened by the corpus service; the query linker is the one its
syncs link sections with (`CorpusService.graph`), so a query and a section name an entity alike.
Work runs in worker threads.
"""

from __future__ import annotations

import asyncio

from bio_mcp.errors import BioMcpError
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.kb.diagnostics import load_diagnostics, render_markdown
from bio_mcp.features.kb.models import (
    KbSearchRequest,
    KbSearchResponse,
    RetrieveEvidenceRequest,
    RetrieveEvidenceResponse,
)
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.retrieve_evidence import retrieve_evidence
from bio_mcp.features.kb.search import KbContext, QueryLinker, search_kb


class KbRetrieval:
    def __init__(
        self, corpus: CorpusService, *, providers: ProviderRegistry | None = None, linker: QueryLinker | None = None
    ) -> None:
        self.corpus = corpus
        self.settings = corpus.settings
        self.providers = providers or ProviderRegistry(corpus.settings)
        self._linker = linker
        self._context: KbContext | None = None
        self._opening = asyncio.Lock()

    async def context(self) -> KbContext:
        await self.corpus.open()
        async with self._opening:
            if self._context is None or self._context.store is not self.corpus.store:
                graph = self.corpus.graph
                linker = self._linker or (graph.linker if graph is not None else None)
                catalog = graph.catalog if graph is not None else None
                self._context = KbContext(
                    self.settings, self.corpus.store, self.corpus.index, self.providers, linker, catalog
                )
            return self._context

    async def search(self, request: KbSearchRequest) -> KbSearchResponse:
        context = await self.context()
        return await asyncio.to_thread(search_kb, request, context)

    async def retrieve_evidence(self, request: RetrieveEvidenceRequest) -> RetrieveEvidenceResponse:
        context = await self.context()
        return await asyncio.to_thread(retrieve_evidence, request, context)

    async def diagnostics_markdown(self, diagnostic_id: str, date: str | None = None) -> str:
        """The resource body: the Markdown summary, or the error (code and message) as Markdown."""
        await self.corpus.open()
        try:
            entry = await asyncio.to_thread(load_diagnostics, self.corpus.store, diagnostic_id, date)
        except BioMcpError as error:
            return f"# Diagnostics unavailable\n\n**{error.code.value}**: {error.message}\n"
        return render_markdown(entry)

    def close(self) -> None:
        self.providers.close()
