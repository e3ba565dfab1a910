"""The graph's bulk write path: what `SqlGraphStore` writes reads back as exactly the nodes and edges
given (SQLite and PostgreSQL), a new version replaces exactly its document's rows (relation edges
the document wrote included), and a failed write leaves nothing behind."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.records import corpus_document
from bio_mcp.features.corpus.sync import graph_sources
from bio_mcp.graph.build import document_graph
from bio_mcp.graph.elements import (
    HAS_SECTION,
    HAS_TOPIC,
    MENTIONS,
    RELATED_TO,
    TREATS,
    DocumentGraph,
    Edge,
    Node,
)
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.store import SqlGraphStore, _neighbour_sql
from bio_mcp.sources.ncbi.parsers import parse_efetch
from bio_mcp.store import SCHEMA_VERSION, MetadataStore
from bio_mcp.store.schema import (
    KG_DOCUMENT_OWN_EDGE_TYPES,
    KG_EDGES_NOT_DOCUMENT_OWN,
    kg_edges,
    kg_mentions,
    kg_nodes,
    schema_version,
)


@pytest.fixture(scope="module")
def real_graphs(data_dir: Path, graph_indexer: GraphIndexer) -> list[DocumentGraph]:
    """The graphs of the first 60 real records (by PMID), linked by the shipped MeSH linker."""
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        articles = sorted(parse_efetch(handle.read()), key=lambda article: int(article.pmid))[:60]
    documents = {}
    for article in articles:
        document = corpus_document(article, date(2025, 1, 15))
        documents[article.pmid] = replace(document, mentions=graph_indexer.link(document.chunks))
    sources = graph_sources(documents, dict.fromkeys(documents, 1), list(documents))
    return [document_graph(source) for source in sources]


@pytest.fixture
def store(store_url: str, tmp_path: Path):
    opened = MetadataStore.open(store_url, lock_dir=tmp_path / "locks")
    yield opened
    opened.close()


def stored_edges(connection: sa.Connection) -> dict[tuple[str, str, str], Edge]:
    edges = {
        (row.src, row.type, row.dst): Edge(row.src, row.type, row.dst, row.weight, row.document_id, row.props)
        for row in connection.execute(sa.select(kg_edges))
    }
    edges.update(
        ((row.src, MENTIONS, row.dst), Edge(row.src, MENTIONS, row.dst, row.weight, row.document_id, row.props))
        for row in connection.execute(sa.select(kg_mentions))
    )
    return edges


def keyed(edges: Iterable[Edge]) -> dict[tuple[str, str, str], Edge]:
    """Edges by key as they read back: MENTIONS properties come as the JSON text linking made of
    them, and read back decoded."""
    return {
        (edge.src, edge.type, edge.dst): edge._replace(props=json.loads(edge.props)) if isinstance(edge.props, str) else edge
        for edge in edges
    }


def test_rows_read_back_as_written(store: MetadataStore, real_graphs: list[DocumentGraph]) -> None:
    with store.transaction() as tx:
        SqlGraphStore(tx.connection).write_documents(real_graphs)
    nodes = [graph.document for graph in real_graphs] + [section for graph in real_graphs for section in graph.sections]
    edges = keyed(edge for graph in real_graphs for edge in graph.edges)
    assert {edge.type for edge in edges.values()} == {HAS_SECTION, HAS_TOPIC, MENTIONS}
    assert any(edge.props and edge.props.get("spans") for edge in edges.values())
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        assert graph.nodes(node.id for node in nodes) == {node.id: node for node in nodes}
        assert stored_edges(tx.connection) == edges
        stamps = tx.connection.execute(sa.select(kg_nodes.c.created_at, kg_nodes.c.updated_at)).all()
    assert all(created is not None and created.tzinfo is not None and created == updated for created, updated in stamps)


def test_missing_reads_back_only_the_ids_not_stored(store: MetadataStore, real_graphs: list[DocumentGraph]) -> None:
    with store.transaction() as tx:
        SqlGraphStore(tx.connection).write_documents(real_graphs)
    stored = [graph.document.id for graph in real_graphs] + [section.id for graph in real_graphs for section in graph.sections]
    absent = [f"mesh:D{number:06d}" for number in range(700)]
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        # More ids than one statement takes (500), stored and not, in no particular order.
        assert graph.missing([*absent, *stored, *absent[:5]]) == set(absent)
        assert graph.missing(stored) == set()
        assert graph.missing([]) == set()
        assert graph.existing([*absent, *stored]) == set(stored)


def test_a_new_version_replaces_exactly_its_rows(store: MetadataStore, real_graphs: list[DocumentGraph]) -> None:
    first, second = real_graphs[0], real_graphs[1]
    doc_id = first.document.id
    # A relation edge this document's sentences back (its own row: not one of the document's own
    # types, so found through `document_id`), and one another document backs.
    relation = Edge("mesh:D030024", TREATS, "mesh:D003924", 0.5, doc_id, {"evidence": 1})
    kept = Edge("mesh:D030024", TREATS, "mesh:D006973", 0.5, second.document.id, {"evidence": 1})
    with store.transaction() as tx:
        graph = SqlGraphStore(tx.connection)
        graph.write_documents([first, second])
        graph.insert([], [relation, kept])
    with store.read() as tx:
        created = tx.connection.execute(sa.select(kg_nodes.c.created_at).where(kg_nodes.c.id == doc_id)).scalar_one()
    revised = DocumentGraph(
        document=replace(first.document, version="2", title="Revised"),
        sections=first.sections[:1],
        edges=[edge for edge in first.edges if edge.src == doc_id or edge.src == first.sections[0].id][:5],
    )
    with store.transaction() as tx:
        SqlGraphStore(tx.connection).write_documents([revised])
    with store.read() as tx:
        edges = stored_edges(tx.connection)
        rows = tx.connection.execute(
            sa.select(kg_nodes.c.id, kg_nodes.c.created_at, kg_nodes.c.updated_at).where(kg_nodes.c.id == doc_id)
        ).one()
        sections = set(
            tx.connection.execute(
                sa.select(kg_nodes.c.id).where(kg_nodes.c.label == "Section", kg_nodes.c.document_id == doc_id)
            ).scalars()
        )
        node = SqlGraphStore(tx.connection).nodes([doc_id])[doc_id]
    mine = {key: edge for key, edge in edges.items() if edge.document_id == doc_id}
    assert mine == keyed(revised.edges)
    assert sections == {first.sections[0].id}
    assert node == revised.document and rows.created_at == created and rows.updated_at >= created
    # The other document, and the relation edge it backs, are untouched.
    assert {key: e for key, e in edges.items() if e.document_id == second.document.id} == keyed([*second.edges, kept])


def test_document_delete_searches_by_source_and_by_the_partial_index(tmp_path: Path) -> None:
    # EXPLAIN QUERY PLAN is SQLite's (PostgreSQL plans by table statistics), so this runs on SQLite.
    store = MetadataStore.open(f"sqlite:///{tmp_path / 'plan.db'}", lock_dir=tmp_path / "locks")
    try:
        with store.read() as tx:
            own = ", ".join(f"'{edge_type}'" for edge_type in KG_DOCUMENT_OWN_EDGE_TYPES)
            by_source = tx.connection.exec_driver_sql(
                f"EXPLAIN QUERY PLAN DELETE FROM kg_edges WHERE src IN (?, ?) AND type IN ({own})", ("a", "b")
            ).all()
            by_document = tx.connection.exec_driver_sql(
                f"EXPLAIN QUERY PLAN DELETE FROM kg_edges WHERE document_id IN (?) AND {KG_EDGES_NOT_DOCUMENT_OWN}",
                ("a",),
            ).all()
    finally:
        store.close()
    assert any("SEARCH kg_edges" in str(row[-1]) and "(src=? AND type=?)" in str(row[-1]) for row in by_source)
    assert any("kg_edges_document" in str(row[-1]) for row in by_document)


def test_hops_read_entities_through_the_partial_index_and_documents_by_primary_key(tmp_path: Path) -> None:
    """Only entities' out-edges are indexed best first (hubs); a document's own edges, a few dozen
    each, are read by primary key and sorted. MENTIONS are read by section from `kg_mentions_out`
    and by entity from `kg_mentions_in`, best first without a sort, so LIMIT stops a hub's scan."""
    store = MetadataStore.open(f"sqlite:///{tmp_path / 'plan.db'}", lock_dir=tmp_path / "locks")
    try:
        with store.read() as tx:
            def plan(edge_type: str, side: str) -> str:
                sql = _neighbour_sql("?", (edge_type,), (side,), 1, 10)
                params = ("a",) if edge_type == MENTIONS else ("a", edge_type)
                rows = tx.connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params).all()
                return " | ".join(str(row[-1]) for row in rows)

            assert "INDEX kg_edges_entity_out (src=? AND type=?)" in plan(RELATED_TO, "out")
            assert "USING PRIMARY KEY (src=? AND type=?)" in plan(HAS_SECTION, "out")
            assert "INDEX kg_edges_in (dst=? AND type=?)" in plan(HAS_SECTION, "in")
            assert "INDEX kg_mentions_out (src=?)" in plan(MENTIONS, "out")
            by_entity = plan(MENTIONS, "in")
            assert "INDEX kg_mentions_in (dst=?)" in by_entity and "TEMP B-TREE" not in by_entity
    finally:
        store.close()


@pytest.mark.parametrize(
    ("table", "retired", "columns", "kept"),
    [
        ("kg_edges", "kg_edges_out", "src, type, weight DESC, dst", "kg_edges_entity_out"),
        ("kg_relation_evidence", "kg_relation_evidence_dst", "dst, type", "kg_relation_evidence_edge"),
    ],
)
def test_an_older_stores_unused_index_is_dropped_on_open(
    store_url: str, tmp_path: Path, table: str, retired: str, columns: str, kept: str
) -> None:
    MetadataStore.open(store_url, lock_dir=tmp_path / "locks").close()
    engine = sa.create_engine(store_url)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(f"CREATE INDEX {retired} ON {table} ({columns})")
        assert retired in {index["name"] for index in sa.inspect(engine).get_indexes(table)}
        MetadataStore.open(store_url, lock_dir=tmp_path / "locks").close()
        indexes = {index["name"] for index in sa.inspect(engine).get_indexes(table)}
    finally:
        engine.dispose()
    assert retired not in indexes and kept in indexes


def test_a_failed_write_leaves_nothing(store: MetadataStore, real_graphs: list[DocumentGraph]) -> None:
    first = real_graphs[0]
    # The same section twice: the second insert of its key fails the statement.
    broken = replace(first, sections=[*first.sections, first.sections[0]])
    with pytest.raises(BioMcpError) as raised, store.transaction() as tx:
        SqlGraphStore(tx.connection).write_documents([real_graphs[1], broken])
    assert raised.value.code == ErrorCode.STORE
    with store.read() as tx:
        assert tx.connection.execute(sa.select(sa.func.count()).select_from(kg_nodes)).scalar_one() == 0
        assert tx.connection.execute(sa.select(sa.func.count()).select_from(kg_edges)).scalar_one() == 0
        assert tx.connection.execute(sa.select(sa.func.count()).select_from(kg_mentions)).scalar_one() == 0


def test_a_version_1_store_moves_its_mentions_to_their_table_on_open(
    store_url: str, tmp_path: Path, real_graphs: list[DocumentGraph]
) -> None:
    """Schema 1 kept MENTIONS in kg_edges: opening such a store moves them to kg_mentions, once,
    and the graph reads back the same, neighbours and mention counts included."""
    store = MetadataStore.open(store_url, lock_dir=tmp_path / "locks")
    entity = "mesh:D000082"
    try:
        with store.transaction() as tx:
            SqlGraphStore(tx.connection).write_documents(real_graphs)
        with store.read() as tx:
            written = stored_edges(tx.connection)
            graph = SqlGraphStore(tx.connection)
            sections = graph.neighbours([entity], "in", [MENTIONS], 100)
            counts = graph.mention_counts([entity])
        assert sections and counts[entity] > 0
        # The store as schema 1 left it.
        with store.transaction() as tx:
            tx.connection.exec_driver_sql(
                "INSERT INTO kg_edges (src, type, dst, weight, document_id, props) "
                "SELECT src, 'MENTIONS', dst, weight, document_id, props FROM kg_mentions"
            )
            tx.connection.execute(sa.delete(kg_mentions))
            tx.connection.execute(sa.update(schema_version).values(version=1))
    finally:
        store.close()
    reopened = MetadataStore.open(store_url, lock_dir=tmp_path / "locks")
    try:
        with reopened.read() as tx:
            assert tx.connection.execute(sa.select(schema_version.c.version)).scalar_one() == SCHEMA_VERSION == 2
            assert tx.connection.execute(
                sa.select(sa.func.count()).select_from(kg_edges).where(kg_edges.c.type == MENTIONS)
            ).scalar_one() == 0
            assert stored_edges(tx.connection) == written
            graph = SqlGraphStore(tx.connection)
            assert graph.neighbours([entity], "in", [MENTIONS], 100) == sections
            assert graph.mention_counts([entity]) == counts
        assert reopened.create_schema() == SCHEMA_VERSION
    finally:
        reopened.close()


def test_inserted_mentions_go_to_their_table_once(store: MetadataStore) -> None:
    """A bulk insert (benchmarks build graphs so) stores MENTIONS where reads find them, and leaves
    one already stored as it is; replacing every MENTIONS edge at once is refused."""
    section = Node("section-1", "Section", title="Abstract", document_id="document-1")
    entity = Node("mesh:D000082", "Entity", type="Chemical", title="Acetaminophen")
    mention = Edge(section.id, MENTIONS, entity.id, 0.9, "document-1", {"spans": [[0, 7, "Tylenol"]]})
    with store.transaction() as tx:
        graph = SqlGraphStore(tx.connection)
        graph.insert([section, entity], [mention])
        graph.insert([], [mention._replace(weight=0.5)])
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        assert stored_edges(tx.connection) == {(section.id, MENTIONS, entity.id): mention}
        [found] = graph.neighbours([entity.id], "in", [MENTIONS], 10)
        assert (found.other, found.weight, found.node_document_id) == (section.id, 0.9, "document-1")
        assert graph.mention_counts([entity.id]) == {entity.id: 1}
        assert graph.counts().edges == {MENTIONS: 1}
    with pytest.raises(ValueError, match="write_documents"), store.transaction() as tx:
        SqlGraphStore(tx.connection).replace_edges_of_type(MENTIONS, [])


def test_a_hubs_equally_weighted_sections_come_newest_first(store: MetadataStore) -> None:
    """A hop reads a hub's MENTIONS best first within its budget: by weight, then the section
    stored last, whatever its id."""
    entity = Node("mesh:D006801", "Entity", type="Organism", title="Humans")
    sections = [Node(f"section-{name}", "Section", title="Abstract", document_id=f"document-{name}") for name in "zab"]
    with store.transaction() as tx:
        graph = SqlGraphStore(tx.connection)
        graph.insert([entity], [])
        for section, weight in zip(sections, (0.95, 0.9, 0.9), strict=True):
            graph.insert([section], [Edge(section.id, MENTIONS, entity.id, weight, section.document_id)])
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        assert [n.other for n in graph.neighbours([entity.id], "in", [MENTIONS], 2)] == ["section-z", "section-b"]
        assert [n.other for n in graph.neighbours([entity.id], "in", [MENTIONS], 3)] == [
            "section-z", "section-b", "section-a"
        ]
