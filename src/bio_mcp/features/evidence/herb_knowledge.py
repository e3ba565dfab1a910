"""The herb-knowledge features over the corpus's store: `kg://herb/{id}`, `tool.query_kg`,
`tool.find_contraindications`. Each runs in a worker thread on one read transaction.

Dr. Duke's constituents of the herbs a read names (a herb, a formulation's ingredients) are written
first, once per herb, when `bio-mcp kg herbs` has not written them all (`duke_farmacy.write_herb_constituents`): on a fresh install
`kg://herb/garlic` lists allicin with no command run.

`kg://herb/{id}` carries, additively, `safety` (how many interaction or contraindication findings
`tool.find_contraindications` has for the herb, or, with none, the silence sentence: "No
interaction or contraindication evidence was found in the N documents searched; this is not
evidence of safety.") and `coverage` (what was searched). With no indication it carries
`indications_note`, which says so and names the traditional uses apart: no curated source of
indications ships with the package (the Thai herb table holds names only; Dr. Duke's ethnobotany
records uses, not evidence), so without synced literature none is stated."""

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
from bio_mcp.features.evidence.coverage import Coverage, searched_text, silence
from bio_mcp.features.evidence.herbs import HerbRecord, find_formulation, find_herb, herb_record
from bio_mcp.features.evidence.query_kg import QueryKgRequest, QueryKgResponse, query_kg
from bio_mcp.features.evidence.relations import relation_edges
from bio_mcp.graph.duke_farmacy import (
    TraditionalUse,
    constituents_pending,
    duke_farmacy_dir_of,
    ethnobotany,
    herb_taxa,
    traditional_uses,
    write_herb_constituents,
)
from bio_mcp.graph.elements import HAS_INGREDIENT
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

    async def _write_constituents(self, herbs_of: Callable[[Connection], list[str]]) -> None:
        """Dr. Duke's constituents of the herbs `herbs_of` finds, for those that lack them."""
        farmacy = duke_farmacy_dir_of(self.corpus.settings)
        await self.corpus.open()
        graph, store = self.corpus.graph, self.corpus.store
        if farmacy is None or graph is None:
            return

        def run() -> None:
            vocabulary = graph.catalog.vocabulary
            with store.read() as tx:
                pending = constituents_pending(tx.connection, herbs_of(tx.connection), farmacy)
                taxa = {herb: herb_taxa(tx.connection, herb, vocabulary) for herb in pending}
            for herb in pending:
                with store.transaction() as tx:
                    write_herb_constituents(tx.connection, graph.catalog, herb, taxa[herb], farmacy)

        await asyncio.to_thread(run)

    async def read_herb(self, id: str) -> str:
        # Opened first: the MeSH vocabulary that knows a plant by name comes with the corpus's graph, and a
        # read before the server's warm-up had opened it answered NOT_FOUND for 'garlic'.
        await self.corpus.open()
        activities = await asyncio.to_thread(duke_activities, duke_dir_of(self.corpus.settings))
        icd10 = await asyncio.to_thread(lambda: self.icd10)
        farmacy = duke_farmacy_dir_of(self.corpus.settings)
        await asyncio.to_thread(ethnobotany, farmacy)
        await self._write_constituents(lambda connection: [
            found[0] for found in (find_herb(connection, id, self.vocabulary),) if found is not None])
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
            if not record.indications:
                body["indications_note"] = _no_indication(record, safety.coverage)
            return body

        return json.dumps(await self._read(read), ensure_ascii=False, sort_keys=True)

    async def query_kg(self, request: QueryKgRequest) -> QueryKgResponse:
        start = request.start
        if start.type in ("herb", "formulation"):
            herbs, formulations = ([start.id], []) if start.type == "herb" else ([], [start.id])
            await self._write_constituents(lambda connection: _herbs_of(connection, herbs, formulations, self.vocabulary))
        icd10 = await asyncio.to_thread(lambda: self.icd10)
        return await self._read(lambda connection: query_kg(connection, request, icd10, self.vocabulary))

    async def find_contraindications(self, request: FindContraindicationsRequest) -> FindContraindicationsResponse:
        await self._write_constituents(
            lambda connection: _herbs_of(connection, request.herb_ids, request.formulation_ids, self.vocabulary))
        return await self._read(lambda connection: find_contraindications(connection, request, self.vocabulary))


def _herbs_of(
    connection: Connection, herb_values: list[str], formulation_values: list[str], vocabulary: Vocabulary | None
) -> list[str]:
    """The herbs named, and the ingredients of the formulations named (unknown ones are left to the
    request's own validation)."""
    herbs = [found[0] for value in herb_values if (found := find_herb(connection, value, vocabulary))]
    formulations = [found for value in formulation_values if (found := find_formulation(connection, value, vocabulary))]
    if formulations:
        herbs += [edge.dst for edge in relation_edges(connection, formulations, (HAS_INGREDIENT,))]
    return herbs


class HerbResource(HerbRecord):
    """kg://herb/{id}: the herb record, what a contraindication search covered and said, and why no
    indication is shown when none is stated. The GraphQL and gRPC surfaces are checked against it."""

    coverage: Coverage | None = None
    safety: str | None = None
    indications_note: str | None = None


# How many traditional uses the note names; the record lists them all.
_USES_NAMED = 8


def _no_indication(record: HerbRecord, coverage: Coverage | None) -> str:
    searched = f" ({coverage.documents_searched} documents searched)" if coverage is not None else ""
    head = f"No indication is stated in the synced literature{searched}."
    # Uses that name a coded disease first: they say the most to a reader.
    ordered = sorted(record.traditional_uses, key=lambda use: not use.icdCode)
    uses = list(dict.fromkeys(f"{use.description or use.use}" + (f" ({use.icdCode})" if use.icdCode else "")
                              for use in ordered))
    if not uses:
        return head
    more = f" and {len(uses) - _USES_NAMED} more" if len(uses) > _USES_NAMED else ""
    return (f"{head} Traditional uses (Dr. Duke's ethnobotany, not evidence that the herb works): "
            f"{', '.join(uses[:_USES_NAMED])}{more}.")
