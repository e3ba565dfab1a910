"""Relation evidence through a real sync (fake E-utilities over the real records, real linker and
extractor) and a rebuild reproducing its evidence and edge ids; SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from bio_mcp.features.kb.rebuild import rebuild_graph
from bio_mcp.graph.adverse_effects import AdverseEffectExtractor
from bio_mcp.graph.adverse_priors import load_adverse_priors
from bio_mcp.graph.elements import EVIDENCE_RELATIONS
from bio_mcp.graph.ids import pubmed_source_uri, section_node_id
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store.schema import chunks, kg_edges, kg_relation_evidence
from tests.graph.graph_sync_fixtures import synced

pytestmark = pytest.mark.anyio


def _evidence(connection) -> dict[str, tuple]:
    rows = connection.execute(sa.select(kg_relation_evidence))
    return {row.id: (row.src, row.type, row.dst, row.document_id, row.section_id, row.source, row.sentence,
                     row.start, row.end, row.extractor, row.confidence) for row in rows}


def _relation_edges(connection) -> dict[tuple[str, str, str], tuple]:
    rows = connection.execute(sa.select(kg_edges).where(kg_edges.c.type.in_(EVIDENCE_RELATIONS)))
    return {(row.src, row.type, row.dst): (row.weight, row.document_id) for row in rows}


async def test_a_sync_writes_the_relations_its_sections_state_and_a_rebuild_reproduces_them(
    make_graph_service, database_url, indexer, data_dir
) -> None:
    # The plant extractor finds nothing quotable in these records (only pieces of a meeting's
    # abstract book, no sentences: `is_quotable`); the adverse-effect extractor a sync runs beside it
    # states the DEHP records' harms.
    priors = load_adverse_priors(data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt")
    indexer = GraphIndexer(indexer.catalog, indexer.linker,
                           [*indexer.extractors, AdverseEffectExtractor(indexer.catalog.broader, priors)])
    service = await synced(lambda url: make_graph_service(url, graph=indexer), database_url)
    with service.store.read() as tx:
        evidence = _evidence(tx.connection)
        edges = _relation_edges(tx.connection)
        texts = {
            section_node_id(pubmed_source_uri(row.pmid), row.chunk_id): (row.pmid, row.text)
            for row in tx.connection.execute(sa.select(chunks.c.pmid, chunks.c.chunk_id, chunks.c.text))
        }
        before = SqlGraphStore(tx.connection).ids()
    # What the extractor states of each stored section, and nothing else, is in the store.
    expected = set()
    for section_id, (pmid, text) in texts.items():
        for relation in indexer.extract_text(text, indexer.link_text(text)):
            expected.add((relation.src, relation.type, relation.dst, section_id, relation.start, relation.end))
    assert expected, "the real records state no relation the extractor finds"
    assert {(r[0], r[1], r[2], r[4], r[7], r[8]) for r in evidence.values()} == expected
    for src, edge_type, dst, _, section_id, source, sentence, start, end, _, _ in evidence.values():
        assert source == f"pubmed:{texts[section_id][0]}" and sentence == texts[section_id][1][start:end]
    assert set(edges) == {(r[0], r[1], r[2]) for r in evidence.values()}
    assert all(0.0 < weight <= 1.0 and document_id for weight, document_id in edges.values())

    rebuild_graph(service.store, indexer, page_size=50)
    with service.store.read() as tx:
        assert _evidence(tx.connection) == evidence
        assert _relation_edges(tx.connection) == edges
        nodes, all_edges = SqlGraphStore(tx.connection).ids()
    assert nodes == before[0]
    assert {e for e in all_edges if e[1] != "RELATED_TO"} == before[1]
