"""graph.entities on the real records' graph: names, synonyms and ids, best first, with mention counts
from the graph; SQLite and PostgreSQL."""

from __future__ import annotations

import sqlalchemy as sa

from bio_mcp.features.kb.entities import find_entities
from bio_mcp.features.kb.models import EntitiesRequest
from bio_mcp.graph.kg_import import import_file
from bio_mcp.store.schema import kg_mentions


def documents_mentioning(store, entity_id: str) -> int:
    with store.read() as tx:
        return int(
            tx.connection.execute(
                sa.select(sa.func.count(sa.distinct(kg_mentions.c.document_id))).where(kg_mentions.c.dst == entity_id)
            ).scalar_one()
        )


def test_a_brand_name_finds_the_descriptor_with_its_mentions(graph_store, graph_indexer) -> None:
    response = find_entities(EntitiesRequest(query="tylenol"), graph_store, graph_indexer.catalog)
    best = response.entities[0]
    assert (best.id, best.name, best.type, best.match) == ("mesh:D000082", "Acetaminophen", "Chemical", "synonym")
    assert best.tree_numbers and all(tree.startswith("D") for tree in best.tree_numbers)
    assert best.mentions == documents_mentioning(graph_store, "mesh:D000082") > 0


def test_names_ids_and_unmentioned_entities(graph_store, graph_indexer) -> None:
    by_name = find_entities(EntitiesRequest(query="Acetaminophen", limit=3), graph_store, graph_indexer.catalog)
    by_id = find_entities(EntitiesRequest(query="D000082"), graph_store, graph_indexer.catalog)
    assert by_name.entities[0].id == by_id.entities[0].id == "mesh:D000082"
    assert by_name.entities[0].match == "name" and by_id.entities[0].match == "id"
    assert len(by_name.entities) <= 3
    # An obscure descriptor: found by name all the same, with the graph's own count (zero or more).
    rare = find_entities(EntitiesRequest(query="Temefos"), graph_store, graph_indexer.catalog).entities[0]
    assert rare.id == "mesh:D000002" and rare.mentions == documents_mentioning(graph_store, "mesh:D000002")
    scores = [entity.score for entity in find_entities(EntitiesRequest(query="hepatitis"), graph_store, graph_indexer.catalog).entities]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)


def test_imported_herb_names_and_ids_find_their_entities(graph_store, graph_indexer, data_dir) -> None:
    # The Thai herb table's names (Thai, English, scientific) and herb:/formulation: ids are what the
    # herb tools take and graph.traverse starts from; graph.entities found none of them.
    catalog = graph_indexer.catalog
    with graph_store.transaction() as tx:
        for table in ("thai_herb_names.tsv", "thai_formulations.tsv"):
            import_file(tx.connection, data_dir / "herbs" / table, catalog)

    def best(query: str):
        return find_entities(EntitiesRequest(query=query), graph_store, catalog).entities[0]

    turmeric = best("ขมิ้นชัน")
    assert (turmeric.id, turmeric.name, turmeric.match) == ("mesh:D030024", "Curcuma", "name")
    assert "ขมิ้นชัน" in turmeric.synonyms and turmeric.tree_numbers
    # A plant MeSH does not hold: by its scientific name, its Thai name and its id.
    senna = best("Senna alata")
    assert (senna.id, senna.match) == ("herb:senna-alata", "name") and senna.type == "Organism"
    assert best("ชุมเห็ดเทศ").id == best("herb:senna-alata").id == "herb:senna-alata"
    assert best("herb:senna-alata").match == "id"
    assert best("formulation:triphala").id == best("ตรีผลา").id == "formulation:triphala"


def test_a_drug_name_spelt_in_thai_finds_its_descriptor(graph_store, graph_indexer) -> None:
    # พาราเซตามอล (paracetamol), as Thai pharmacies spell it, and as "the drug ..." run together.
    for query in ("พาราเซตามอล", "ยาพาราเซตามอล"):
        best = find_entities(EntitiesRequest(query=query), graph_store, graph_indexer.catalog).entities[0]
        assert (best.id, best.name, best.match) == ("mesh:D000082", "Acetaminophen", "thai")
        assert best.mentions == documents_mentioning(graph_store, "mesh:D000082") > 0
    assert find_entities(EntitiesRequest(query="เด็กวัยเรียน"), graph_store, graph_indexer.catalog).entities == []


def test_a_page_reads_its_mentions_in_one_statement(graph_store, graph_indexer) -> None:
    statements: list[str] = []

    def record(_conn, _cursor, statement: str, *_args) -> None:
        statements.append(statement)

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", record)
    try:
        response = find_entities(EntitiesRequest(query="liver", limit=20), graph_store, graph_indexer.catalog)
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", record)
    mentioned = [entity for entity in response.entities if entity.mentions]
    assert len(mentioned) >= 3
    # The mention counts, then the sections of every entity of the page: two statements, not one per entity.
    assert len([s for s in statements if "kg_mentions" in s]) == 2, statements
    for entity in mentioned:
        assert 1 <= len(entity.mentioned_in) <= 3
        shown = [(mention.document_id, mention.section_id) for mention in entity.mentioned_in]
        assert shown == sorted_best_first(graph_store, entity.id)[:3]


def sorted_best_first(store, entity_id: str) -> list:
    """The entity's MENTIONS edges as a traversal reads them (weight, then newest first), as documents and sections."""
    with store.read() as tx:
        rows = tx.connection.execute(
            sa.select(kg_mentions.c.document_id, kg_mentions.c.src).where(kg_mentions.c.dst == entity_id)
            .order_by(kg_mentions.c.weight.desc(), kg_mentions.c.id.desc())
        ).all()
    return [(row.document_id, row.src) for row in rows]
