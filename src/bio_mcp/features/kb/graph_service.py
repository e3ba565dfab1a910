"""The graph tools over the corpus's store: `graph.traverse` / `traverse_relationships`, `graph.entities`."""

from __future__ import annotations

import asyncio

from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.kb.entities import find_entities
from bio_mcp.features.kb.models import EntitiesRequest, EntitiesResponse, TraverseRequest, TraverseResponse
from bio_mcp.features.kb.traverse import GraphLimits, traverse_relationships


class KbGraph:
    def __init__(self, corpus: CorpusService) -> None:
        self.corpus = corpus
        self.limits = GraphLimits.from_settings(corpus.settings)

    async def traverse(self, request: TraverseRequest) -> TraverseResponse:
        await self.corpus.open()
        return await traverse_relationships(request, self.corpus.store, self.limits)

    async def entities(self, request: EntitiesRequest) -> EntitiesResponse:
        await self.corpus.open()
        graph = self.corpus.graph
        if graph is None:
            raise RuntimeError("CorpusService.open() sets the graph indexer")
        return await asyncio.to_thread(find_entities, request, self.corpus.store, graph.catalog, graph.linker)
