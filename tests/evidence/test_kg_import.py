"""`bio-mcp kg import`: the two Thai tables load as they are, re-imports add nothing, bad lines are
listed as FILE:LINE and write nothing, every fact keeps its source, and a graph rebuild keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.kb.rebuild import rebuild_graph
from bio_mcp.graph.elements import HAS_INGREDIENT, TREATS
from bio_mcp.graph.herb_catalog import write_herb_catalog
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.kg_import import import_file
from bio_mcp.graph.names import entities_named, names_of
from bio_mcp.store import MetadataStore
from bio_mcp.store.schema import kg_edges, kg_names, kg_nodes, kg_relation_evidence
from tests.evidence.herb_fixtures import EXAMPLES, load_herb_graph, relation_rows


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> MetadataStore:
    url = f"sqlite:///{tmp_path / 'kg.db'}" if request.param == "sqlite" else request.getfixturevalue("postgres_schema_url")
    store = MetadataStore(url)
    store.create_schema()
    return store


def counts(store: MetadataStore) -> dict[str, int]:
    with store.read() as tx:
        return {table.name: tx.connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for table in (kg_nodes, kg_edges, kg_names, kg_relation_evidence)}


def test_the_example_tables_are_the_shared_thai_tables(data_dir: Path) -> None:
    for name in ("thai_herb_names.tsv", "thai_formulations.tsv"):
        assert (EXAMPLES / name).read_bytes() == (data_dir / "herbs" / name).read_bytes()


def test_thai_tables_load_as_they_are_and_again_add_nothing(store: MetadataStore, mesh_catalog, data_dir: Path) -> None:
    with store.transaction() as tx:
        herbs = import_file(tx.connection, EXAMPLES / "thai_herb_names.tsv", mesh_catalog)
    with store.transaction() as tx:
        formulas = import_file(tx.connection, EXAMPLES / "thai_formulations.tsv", mesh_catalog)
    table_rows = len((data_dir / "herbs" / "thai_herb_names.tsv").read_text(encoding="utf-8").splitlines()) - 1
    assert herbs.lines == {"herb": table_rows} and formulas.lines == {"formulation": 1}
    assert herbs.names_added == 3 * table_rows  # th, en and scientific name of every row, none shared
    before = counts(store)
    for name in ("thai_herb_names.tsv", "thai_formulations.tsv"):
        with store.transaction() as tx:
            again = import_file(tx.connection, EXAMPLES / name, mesh_catalog)
        assert (again.nodes, again.names_added, again.edges_added, again.evidence_added) == (0, 0, 0, 0)
    assert counts(store) == before
    with store.read() as tx:
        connection = tx.connection
        turmeric = names_of(connection, ["mesh:D030024"])["mesh:D030024"]
        preferred = {(n.lang, n.name) for n in turmeric if n.kind == "preferred"}
        assert preferred == {("th", "ขมิ้นชัน"), ("en", "Turmeric")}  # the first row of mesh:D030024
        assert {n.name for n in turmeric if n.kind == "common"} == {"ขมิ้นอ้อย", "Zedoary"}
        assert all(n.source == "thai_herb_names.tsv" for n in turmeric)
        # A plant MeSH does not cover gets a herb: id and a node of its own.
        assert entities_named(connection, "ไพล", "th") == ["herb:zingiber-montanum"]
        node = connection.execute(sa.select(kg_nodes).where(kg_nodes.c.id == "herb:zingiber-montanum")).one()
        assert (node.type, node.title) == ("Organism", "Zingiber montanum")
        recipe = connection.execute(sa.select(kg_edges).where(kg_edges.c.type == HAS_INGREDIENT)).all()
        assert sorted(row.dst for row in recipe) == ["mesh:D029766", "mesh:D029842"]
        terminalia = next(row for row in recipe if row.dst == "mesh:D029766")
        assert terminalia.props["names"] == ["Terminalia bellirica", "Terminalia chebula"]
        sources = {row.source for row in connection.execute(sa.select(kg_relation_evidence))}
        assert sources == {"thai_formulations.tsv"}


def test_relations_keep_their_sentence_and_source(store: MetadataStore, mesh_catalog, data_dir: Path, tmp_path: Path) -> None:
    relations = load_herb_graph(store, mesh_catalog, data_dir, tmp_path)
    rows = relation_rows(data_dir)
    with store.read() as tx:
        stored = tx.connection.execute(
            sa.select(kg_relation_evidence).where(kg_relation_evidence.c.type != HAS_INGREDIENT)
        ).all()
    assert len(stored) == len(rows)
    assert {(row.source, row.sentence) for row in stored} == {(row["source"], row["evidence"]) for row in rows}
    assert all(row.extractor == "import" and row.confidence == 1.0 for row in stored)
    pancreatitis = next(row for row in stored if row.dst == "mesh:D010195")
    assert (pancreatitis.src, pancreatitis.type, pancreatitis.source) == ("mesh:D030024", TREATS, "pmid:21069254")
    # Imported facts are never tied to a Document node: a re-sync of 21069254 must not take them away.
    assert pancreatitis.document_id is None
    before = counts(store)
    with store.transaction() as tx:
        again = import_file(tx.connection, relations, mesh_catalog)
    assert (again.edges_added, again.evidence_added) == (0, 0) and counts(store) == before


def test_broken_lines_are_listed_by_file_and_line_and_nothing_is_written(
    store: MetadataStore, mesh_catalog, tmp_path: Path
) -> None:
    with store.transaction() as tx:
        import_file(tx.connection, EXAMPLES / "thai_herb_names.tsv", mesh_catalog)
    before = counts(store)
    broken = tmp_path / "broken.tsv"
    broken.write_text(
        "subject\trelation\tobject\tevidence\tsource\n"
        "Allium sativum\tindication\tHypertension\tgarlic has the potential to treat mild hypertension\tpmid:27748188\n"
        "Allium sativum\tindication\tHypertension\tgarlic lowers blood pressure\t\n"
        "Allium satvum\tindication\tHypertension\tx\tpmid:27748188\n"
        "Allium sativum\tindication\tWarfarin\tx\tpmid:27748188\n"
        "Allium sativum\tcures\tHypertension\tx\tpmid:27748188\n"
        "Allium sativum\tindication\tNo such disease\tx\tpmid:27748188\n",
        encoding="utf-8",
    )
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        import_file(tx.connection, broken, mesh_catalog)
    assert caught.value.code == ErrorCode.VALIDATION
    errors = caught.value.details["errors"]
    assert [error.split(": ", 1)[0] for error in errors] == [f"{broken}:{line}" for line in (3, 4, 5, 6, 7)]
    assert "source is empty" in errors[0] and "'Allium satvum'" in errors[1]
    assert "a Chemical; an indication needs a Disease" in errors[2] and "'cures' is not one of" in errors[3]
    assert "not a MeSH descriptor" in errors[4]
    assert counts(store) == before  # the good line 2 was not written either

    header = tmp_path / "header.tsv"
    header.write_text("plant\tthai\nCurcuma longa\tขมิ้นชัน\n", encoding="utf-8")
    with store.transaction() as tx, pytest.raises(BioMcpError, match=r"header.tsv:1: the header's first column 'plant'"):
        import_file(tx.connection, header, mesh_catalog)

    herbs = tmp_path / "herbs.tsv"
    herbs.write_text("scientific_name\tthai_name\tmesh_ui\tmesh_name\n"
                     "Curcuma longa\tขมิ้นชัน\tD030024\tGinger\n"
                     "Curcuma longa\tขมิ้นชัน\tD003474\t\n"
                     "Curcuma longa\tขมิ้นชัน\tX1\t\n", encoding="utf-8")
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        import_file(tx.connection, herbs, mesh_catalog)
    errors = caught.value.details["errors"]
    assert "is not the name of D030024 ('Curcuma')" in errors[0]
    assert "'Curcumin', a Chemical, not a plant" in errors[1] and "not a MeSH descriptor id" in errors[2]


def test_jsonl_mixes_kinds_and_reports_bad_json(store: MetadataStore, mesh_catalog, tmp_path: Path) -> None:
    good = tmp_path / "facts.jsonl"
    good.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in [
        {"kind": "herb", "scientific_name": "Curcuma longa", "thai_name": "ขมิ้นชัน", "english_name": "Turmeric",
         "mesh_ui": "D030024", "source": "thai_herb_names.tsv"},
        {"kind": "formulation", "formulation_id": "turmeric-only", "english_name": "Turmeric powder",
         "herbs": ["Curcuma longa"], "source": "format test"},
        {"kind": "relation", "subject": "ขมิ้นชัน", "relation": "indication", "object": "Pancreatitis",
         "evidence": "Protective effects of Curcuma longa against cerulein-induced acute pancreatitis and "
                     "pancreatitis-associated lung injury.", "source": "PMID:21069254", "part": ["rhizome"]},
    ]) + "\n", encoding="utf-8")
    with store.transaction() as tx:
        report = import_file(tx.connection, good, mesh_catalog)
    assert report.lines == {"herb": 1, "formulation": 1, "relation": 1} and report.evidence_added == 2
    with store.read() as tx:
        edge = tx.connection.execute(sa.select(kg_edges).where(kg_edges.c.type == TREATS)).one()
        evidence = tx.connection.execute(sa.select(kg_relation_evidence).where(kg_relation_evidence.c.type == TREATS)).one()
    assert (edge.src, edge.dst, edge.props["parts"]) == ("mesh:D030024", "mesh:D010195", ["rhizome"])
    assert evidence.source == "pmid:21069254"  # PMID:, pmid: and "PMID 123" are one source

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "herb", "scientific_name": "Curcuma longa"}\n{"kind": "herb", \n'
                   '{"kind": "plant", "scientific_name": "x"}\n{"kind": "herb", "scientific_name": "y", "color": "red"}\n',
                   encoding="utf-8")
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        import_file(tx.connection, bad, mesh_catalog)
    errors = caught.value.details["errors"]
    assert [e.split(": ", 1)[0].rsplit(":", 1)[1] for e in errors] == ["2", "3", "4"]
    assert "not JSON" in errors[0] and "kind 'plant'" in errors[1] and "unknown field 'color'" in errors[2]


def test_herb_catalog_joins_duke_taxa_to_imported_and_mesh_herbs(store: MetadataStore, mesh_catalog, data_dir: Path) -> None:
    with store.transaction() as tx:
        import_file(tx.connection, EXAMPLES / "thai_herb_names.tsv", mesh_catalog)
    with store.transaction() as tx:
        first = write_herb_catalog(tx.connection, mesh_catalog, data_dir / "herbs" / "duke")
    with store.transaction() as tx:
        again = write_herb_catalog(tx.connection, mesh_catalog, data_dir / "herbs" / "duke")
    assert first.names_added > 0 and again.names_added == 0
    assert first.mesh_plants > 1000 and first.duke_on_imported > 0 and first.duke_on_mesh > 0
    with store.read() as tx:
        connection = tx.connection
        # Duke's Curcuma longa joins the herb the Thai table named so; its common names come along.
        assert "mesh:D030024" in entities_named(connection, "Curcuma longa", "la")
        assert "mesh:D030024" in entities_named(connection, "Indian Saffron", "en")
        # "Allium sativum var. sativum" is MeSH's Garlic (entry term Allium sativum).
        assert entities_named(connection, "Allium sativum var. sativum", "la") == ["mesh:D005737"]
        # A taxon MeSH lacks is a herb: node under its MeSH genus.
        broader = connection.execute(sa.select(kg_edges).where(
            kg_edges.c.src == "herb:curcuma-xanthorrhiza", kg_edges.c.type == "BROADER")).one()
        assert broader.dst == "mesh:D030024"


def test_imported_facts_survive_a_graph_rebuild(mesh_catalog, data_dir: Path, tmp_path: Path) -> None:
    store = MetadataStore(f"sqlite:///{tmp_path / 'rebuild.db'}")
    store.create_schema()
    load_herb_graph(store, mesh_catalog, data_dir, tmp_path)
    with store.read() as tx:
        wanted = {(r.src, r.type, r.dst, json.dumps(r.props, sort_keys=True))
                  for r in tx.connection.execute(sa.select(kg_edges).where(kg_edges.c.type.in_([TREATS, HAS_INGREDIENT])))}
    rebuild_graph(store, GraphIndexer(mesh_catalog, None))
    with store.read() as tx:
        kept = {(r.src, r.type, r.dst, json.dumps(r.props, sort_keys=True))
                for r in tx.connection.execute(sa.select(kg_edges).where(kg_edges.c.type.in_([TREATS, HAS_INGREDIENT])))}
        nodes = {row.id for row in tx.connection.execute(sa.select(kg_nodes.c.id))}
    assert kept == wanted and len(wanted) > 5
    assert {"herb:zingiber-montanum", "formulation:triphala", "mesh:D030024", "mesh:D010195"} <= nodes
