"""The graph a sync writes (fake E-utilities over the real records, real MeSH linker), and a rebuild
from the store reproducing its node and edge ids; SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from bio_mcp.features.kb.rebuild import rebuild_graph
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.traverse import TraversalSpec, traverse
from bio_mcp.store.schema import chunks, documents, kg_edges, kg_mentions, kg_nodes
from tests.graph.graph_sync_fixtures import synced

pytestmark = pytest.mark.anyio

ACETAMINOPHEN = "mesh:D000082"


def corpus_ids(connection) -> tuple[set[str], set[str]]:
    """Document and section node ids the corpus's documents and chunks call for."""
    docs = {document_node_id(pubmed_source_uri(pmid)) for pmid in connection.execute(sa.select(documents.c.pmid)).scalars()}
    sections = {
        section_node_id(pubmed_source_uri(row.pmid), row.chunk_id)
        for row in connection.execute(sa.select(chunks.c.pmid, chunks.c.chunk_id))
    }
    return docs, sections


def graph_ids(connection, label: str) -> set[str]:
    return set(connection.execute(sa.select(kg_nodes.c.id).where(kg_nodes.c.label == label)).scalars())


async def test_a_sync_writes_documents_sections_mentions_and_topics(make_graph_service, database_url) -> None:
    service = await synced(make_graph_service, database_url)
    with service.store.read() as tx:
        docs, sections = corpus_ids(tx.connection)
        assert graph_ids(tx.connection, "Document") == docs
        assert graph_ids(tx.connection, "Section") == sections
        # Every section points at its corpus chunk (text and vector live there).
        orphans = tx.connection.execute(
            sa.select(sa.func.count()).select_from(kg_nodes.outerjoin(chunks, chunks.c.uuid == kg_nodes.c.chunk_uuid))
            .where(kg_nodes.c.label == "Section", chunks.c.uuid.is_(None))
        ).scalar_one()
        assert orphans == 0
        store = SqlGraphStore(tx.connection)
        counts = store.counts()
        mentions = store.mention_counts([ACETAMINOPHEN])
        node = store.nodes([ACETAMINOPHEN])[ACETAMINOPHEN]
        major = tx.connection.execute(
            sa.select(sa.func.count()).where(kg_edges.c.type == "HAS_TOPIC", kg_edges.c.weight == 1.0)
        ).scalar_one()
        nct = store.nodes(["nct:NCT02149199"])
    assert counts.edges["HAS_SECTION"] == len(sections)
    assert counts.edges["MENTIONS"] > len(sections)
    assert counts.edges["HAS_TOPIC"] > len(docs) and major > 0
    assert counts.edges["BROADER"] > 0 and counts.edges["HAS_PHARM_ACTION"] > 0
    assert node.title == "Acetaminophen" and node.type == "Chemical"
    assert mentions[ACETAMINOPHEN] >= 1
    assert nct["nct:NCT02149199"].type == "Trial"


async def test_traversing_from_acetaminophen_reaches_the_documents_that_mention_it(make_graph_service, database_url) -> None:
    service = await synced(make_graph_service, database_url)
    with service.store.read() as tx:
        mentioning = {
            row[0]
            for row in tx.connection.execute(
                sa.select(kg_mentions.c.document_id).where(kg_mentions.c.dst == ACETAMINOPHEN)
            )
        }
        walk = traverse(SqlGraphStore(tx.connection), TraversalSpec(seeds=[ACETAMINOPHEN], direction="in", max_depth=2))
    reached = {node.id for node in walk.nodes if node.label == "Document"}
    assert mentioning and reached == mentioning
    assert {edge.type for edge in walk.edges} == {"MENTIONS", "HAS_SECTION"}
    assert all(0.0 <= node.score <= 1.0 for node in walk.nodes)


async def test_a_rebuild_from_the_store_reproduces_every_node_and_edge_id(make_graph_service, database_url) -> None:
    service = await synced(make_graph_service, database_url)
    with service.store.read() as tx:
        before = SqlGraphStore(tx.connection).ids()
    seen: list[tuple[int, int]] = []
    report = rebuild_graph(service.store, service.graph, page_size=50, progress=lambda done, total: seen.append((done, total)))
    with service.store.read() as tx:
        nodes, edges = SqlGraphStore(tx.connection).ids()
    related = {edge for edge in edges if edge[1] == "RELATED_TO"}
    assert nodes == before[0]
    assert edges - related == before[1]
    with service.store.read() as tx:
        stored = tx.documents.count()
    assert report.documents == seen[-1][0] == seen[-1][1] == stored
    assert report.nodes == len(nodes) and report.edges == len(edges)
