"""The herb-knowledge features over the corpus's store: `kg://herb/{id}`, `tool.query_kg`,
`tool.find_contraindications`. Each runs in a worker thread on one read transaction.

`kg://herb/{id}` carries, additively, `safety` (how many interaction or contraindication findings
`tool.find_contraindications` has for the herb, or, with none, the silence sentence: "No
interaction or contraindication evidence was found in the N documents searched; this is not
evidence of safety.") and `coverage` (what was searched)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.engine import Connection

from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.contraindications import (
    FindContraindicationsRequest,
    FindContraindicationsResponse,
    find_contraindications,
)
from bio_mcp.features.evidence.coverage import searched_text, silence
from bio_mcp.features.evidence.herbs import herb_record
from bio_mcp.features.evidence.query_kg import QueryKgRequest, QueryKgResponse, query_kg
from bio_mcp.graph.duke_farmacy import TraditionalUse, duke_farmacy_dir_of, ethnobotany, traditional_uses
from bio_mcp.graph.herb_catalog import duke_activities, duke_dir_of
from bio_mcp.graph.icd10 import Icd10Index, do_xrefs_path_of, load_icd10_index
from bio_mcp.graph.vocabulary import Vocabulary

T = TypeVar("T")


class HerbKnowledge:
    def __init__(self, corpus: CorpusService) -> None:
        self.corpus = corpus

    @property
    def icd10(self) -> Icd10Index:
        return load_icd10_index(do_xrefs_path_of(self.corpus.settings))

    @property
    def vocabulary(self) -> Vocabulary | None:
        """MeSH, to tell plants from other organisms (the corpus's graph indexer has it once opened)."""
        graph = self.corpus.graph
        return graph.catalog.vocabulary if graph is not None else None

    async def _read(self, work: Callable[[Connection], T]) -> T:
        await self.corpus.open()
        store = self.corpus.store

        def run() -> T:
            with store.read() as tx:
                return work(tx.connection)

        return await asyncio.to_thread(run)

    async def read_herb(self, id: str) -> str:
        # Opened first: the MeSH vocabulary that knows a plant by name comes with the corpus's graph, and a
        # read before the server's warm-up had opened it answered NOT_FOUND for 'garlic'.
        await self.corpus.open()
        activities = await asyncio.to_thread(duke_activities, duke_dir_of(self.corpus.settings))
        icd10 = await asyncio.to_thread(lambda: self.icd10)
        farmacy = duke_farmacy_dir_of(self.corpus.settings)
        await asyncio.to_thread(ethnobotany, farmacy)
        vocabulary = self.vocabulary

        def uses_of(taxa: list[str]) -> list[TraditionalUse]:
            return traditional_uses(farmacy, taxa, vocabulary)

        def read(connection: Connection) -> dict[str, object]:
            record = herb_record(connection, id, icd10, activities, vocabulary, uses_of)
            safety = find_contraindications(connection, FindContraindicationsRequest(herb_ids=[record.id]), vocabulary)
            body: dict[str, object] = record.model_dump(mode="json")
            if safety.coverage is not None:
                body["coverage"] = safety.coverage.model_dump(mode="json")
                body["safety"] = (f"{len(safety.results)} interaction or contraindication finding(s): "
                                  "tool.find_contraindications states each with its evidence."
                                  if safety.results else f"{silence(safety.coverage)} {searched_text(safety.coverage)}")
            return body

        return json.dumps(await self._read(read), ensure_ascii=False, sort_keys=True)

    async def query_kg(self, request: QueryKgRequest) -> QueryKgResponse:
        icd10 = await asyncio.to_thread(lambda: self.icd10)
        return await self._read(lambda connection: query_kg(connection, request, icd10, self.vocabulary))

    async def find_contraindications(self, request: FindContraindicationsRequest) -> FindContraindicationsResponse:
        return await self._read(lambda connection: find_contraindications(connection, request, self.vocabulary))
