"""MEDLINE's own lists in the graph: ChemicalList substances (MeSH descriptors and supplementary
concepts) and GeneSymbolList symbols, from the real records to the facts a sync keeps, to HAS_TOPIC
edges and Chemical/Gene entities, reproduced by a rebuild (SQLite and PostgreSQL)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.features.corpus.records import document_facts
from bio_mcp.features.kb.rebuild import rebuild_graph
from bio_mcp.graph.build import CHEMICAL_TOPIC_WEIGHT, DocumentSource, document_graph
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers import parse_efetch
from bio_mcp.store.schema import kg_edges
from tests.graph.graph_sync_fixtures import synced

# The real record with a GeneSymbolList, and one listing two supplementary concepts.
GENES_PMID = "7915705"
CONCEPTS_PMID = "8020155"


@pytest.fixture(scope="module")
def real_articles(data_dir: Path) -> dict[str, Article]:
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        return {article.pmid: article for article in parse_efetch(handle.read())}


def topic_edges(connection: sa.Connection, pmid: str) -> dict[str, tuple[float, dict]]:
    doc_id = document_node_id(pubmed_source_uri(pmid))
    rows = connection.execute(
        sa.select(kg_edges.c.dst, kg_edges.c.weight, kg_edges.c.props).where(
            kg_edges.c.src == doc_id, kg_edges.c.type == "HAS_TOPIC"
        )
    )
    return {row.dst: (row.weight, row.props) for row in rows}


def test_the_lists_are_kept_in_the_document_facts(real_articles: dict[str, Article]) -> None:
    genes = document_facts(real_articles[GENES_PMID])
    concepts = document_facts(real_articles[CONCEPTS_PMID])
    assert genes.genes == ("fos", "myc", "ras")
    assert ("D004051", "Diethylhexyl Phthalate") in genes.chemicals and len(genes.chemicals) == 8
    assert ("C034221", "catechol") in concepts.chemicals and ("C012457", "diisopropanolnitrosamine") in concepts.chemicals
    assert DocumentFacts.from_json(concepts.to_json()) == concepts
    # Facts saved before the lists were kept read back without them.
    assert DocumentFacts.from_json({"topics": [["D000818", False]], "trials": []}) == DocumentFacts(
        topics=(("D000818", False),)
    )
    listed = sum(bool(document_facts(article).chemicals) for article in real_articles.values())
    assert listed > 300


def test_a_listed_heading_keeps_its_heading_edge(real_articles: dict[str, Article]) -> None:
    article = real_articles[CONCEPTS_PMID]
    facts = document_facts(article)
    graph = document_graph(DocumentSource(pmid=article.pmid, title=article.title, version=1, last_edited=None,
                                          sections=[], facts=facts))
    edges = {edge.dst: edge for edge in graph.edges}
    headings = {ui for ui, _ in facts.topics}
    # Diethylhexyl Phthalate is a heading (major through its qualifier) and a listed chemical.
    assert "D004051" in headings and edges["mesh:D004051"].weight == 1.0
    assert edges["mesh:D004051"].props == {"major": True, "source": "MeSH"}
    only_listed = {ui for ui, _ in facts.chemicals} - headings
    assert only_listed >= {"C034221", "C012457"}
    for ui in only_listed:
        assert edges[f"mesh:{ui}"].weight == CHEMICAL_TOPIC_WEIGHT
        assert edges[f"mesh:{ui}"].props == {"major": False, "source": "ChemicalList"}


@pytest.mark.anyio
async def test_a_sync_links_listed_chemicals_and_genes_and_a_rebuild_reproduces_them(
    make_graph_service, database_url
) -> None:
    service = await synced(make_graph_service, database_url)

    def observed() -> tuple[dict, dict, dict, tuple]:
        with service.store.read() as tx:
            store = SqlGraphStore(tx.connection)
            genes = topic_edges(tx.connection, GENES_PMID)
            concepts = topic_edges(tx.connection, CONCEPTS_PMID)
            nodes = store.nodes(["gene:fos", "gene:myc", "gene:ras", "mesh:C034221", "mesh:C012457", "mesh:D004967"])
            return genes, concepts, nodes, store.ids()

    genes, concepts, nodes, before = observed()
    for symbol in ("fos", "myc", "ras"):
        assert genes[f"gene:{symbol}"][1] == {"major": False, "source": "GeneSymbolList"}
        assert (nodes[f"gene:{symbol}"].type, nodes[f"gene:{symbol}"].title) == ("Gene", symbol)
    assert concepts["mesh:C034221"][1]["source"] == "ChemicalList"
    assert (nodes["mesh:C034221"].type, nodes["mesh:C034221"].title) == ("Chemical", "catechol")
    assert nodes["mesh:C012457"].title == "diisopropanolnitrosamine"
    # A listed descriptor is described by MeSH itself.
    assert (nodes["mesh:D004967"].type, nodes["mesh:D004967"].title) == ("Chemical", "Estrogens")

    rebuild_graph(service.store, service.graph, page_size=50)
    genes_again, concepts_again, nodes_again, after = observed()
    related = {edge for edge in after[1] if edge[1] == "RELATED_TO"}
    assert (genes_again, concepts_again, nodes_again) == (genes, concepts, nodes)
    assert after[0] == before[0] and after[1] - related == before[1]
