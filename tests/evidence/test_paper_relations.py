"""A paper fetched into the corpus (paper://pmid/{id} -> CorpusService.add_articles, from the fake
E-utilities over the real records) states the relations its sections state in a sync, in the
transaction that writes it; tool.query_kg quotes them (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from mcp import Client

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.evidence.papers import PaperLibrary
from bio_mcp.graph.annotation_worker import Section
from bio_mcp.graph.elements import CAUSES
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.server.app import build_server
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import herb_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.store.schema import chunks, documents, kg_relation_evidence
from tests.evidence.evidence_fixtures import evidence_settings
from tests.evidence.refused_writes import allow_inserts, refuse_inserts

pytestmark = pytest.mark.anyio

# A real record the fake E-utilities serves: "Different mechanisms of DEHP-induced hepatocellular
# adenoma tumorigenesis in wild-type and Ppar alpha-null mice."
PMID = "18403868"

Factory = Callable[[str | None], CorpusService]


@pytest.fixture
async def make_corpus(tmp_path: Path, corpus_fakes, sync_graph: GraphIndexer) -> AsyncIterator[Factory]:
    opened: list[tuple[CorpusService, EutilsClient]] = []

    def make(database_url: str | None) -> CorpusService:
        extra = {"DATABASE_URL": database_url} if database_url else {}
        settings = evidence_settings(
            tmp_path / f"home-{len(opened)}", NCBI_EUTILS_BASE_URL=corpus_fakes.eutils_base_url, NCBI_API_KEY="test-key",
            NCBI_MAX_RETRIES=1, BIO_MCP_PAPER_FETCH=True, **extra,
        )
        eutils = EutilsClient(settings)
        service = CorpusService(settings, eutils, embed_in_background=False, graph=sync_graph)
        opened.append((service, eutils))
        return service

    yield make
    for service, eutils in opened:
        await service.aclose()
        await eutils.aclose()


def _evidence(service: CorpusService) -> tuple[set[tuple[str, str, str, str, int, int]], dict[str, str]]:
    """The paper's evidence rows (src, type, dst, section, start, end) and its sections' stored texts."""
    uri = pubmed_source_uri(PMID)
    with service.store.read() as tx:
        rows = tx.connection.execute(
            sa.select(kg_relation_evidence).where(kg_relation_evidence.c.document_id == document_node_id(uri))
        ).all()
        texts = {
            row.chunk_id: row.text
            for row in tx.connection.execute(sa.select(chunks.c.chunk_id, chunks.c.text).where(chunks.c.pmid == PMID))
        }
    by_section = {section_node_id(uri, chunk_id): text for chunk_id, text in texts.items()}
    for row in rows:
        assert row.source == uri and row.sentence == by_section[row.section_id][row.start : row.end]
    return {(r.src, r.type, r.dst, r.section_id, r.start, r.end) for r in rows}, texts


async def test_a_fetched_paper_states_what_a_sync_states_and_query_kg_quotes_it(
    make_corpus: Factory, database_url: str | None
) -> None:
    service = make_corpus(database_url)

    await PaperLibrary(service).read(PMID)

    stored, texts = _evidence(service)
    assert service.graph is not None
    uri = pubmed_source_uri(PMID)
    expected = {
        (r.src, r.type, r.dst, section_node_id(uri, chunk_id), r.start, r.end)
        for chunk_id, found in service.graph.annotate(
            [Section(chunk_id, text) for chunk_id, text in texts.items()]
        ).relations.items()
        for r in found
    }
    assert stored == expected and any(row[1] == CAUSES for row in stored)

    src, _, dst, *_ = min(row for row in stored if row[1] == CAUSES)
    tools, resources = herb_tools(HerbKnowledge(service))
    async with Client(build_server([Toolset(name="evidence", tools=tools, resources=resources)])) as client:
        await client.list_tools()
        result = await client.call_tool("tool.query_kg", {"start": {"type": "indication", "id": dst}, "max_depth": 1})
    assert not result.is_error, result.content[0].text
    body = result.structured_content
    [index] = [i for i, path in enumerate(body["paths"]) if [node["id"] for node in path] == [dst, src]]
    [edge] = body["edges"][index]
    assert edge["type"] == CAUSES and {evidence["pmid"] for evidence in edge["evidence"]} == {PMID}


async def test_a_failing_fetch_write_leaves_neither_the_paper_nor_its_relations(
    make_corpus: Factory, database_url: str | None
) -> None:
    service = make_corpus(database_url)
    await service.open()
    # The graph's last write, after the document, its chunks, nodes, edges and evidence, fails.
    refuse_inserts(service.store, "kg_document_facts")

    with pytest.raises(BioMcpError) as failed:
        await PaperLibrary(service).read(PMID)

    assert failed.value.code == ErrorCode.STORE
    with service.store.read() as tx:
        assert tx.connection.execute(sa.select(documents.c.pmid)).scalars().all() == []
        assert tx.connection.execute(sa.select(sa.func.count()).select_from(kg_relation_evidence)).scalar_one() == 0

    allow_inserts(service.store, "kg_document_facts")
    await PaperLibrary(service).read(PMID)
    stored, _ = _evidence(service)
    assert stored
    with service.store.read() as tx:
        assert tx.connection.execute(sa.select(documents.c.pmid)).scalars().all() == [PMID]

