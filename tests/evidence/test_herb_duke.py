"""Dr. Duke's constituent and ethnobotany tables (../shared/data/herbs/duke_farmacy) in the herb knowledge:
the README's steps (`bio-mcp kg import`, `bio-mcp kg herbs`) give garlic and turmeric their constituents
and their traditional uses, labelled as such and never as indications; literature on a constituent
becomes its herb's indication, with its ICD-10-CM code, except through a chemical found in most plants."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.herb_catalog import write_herb_catalog
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.kg_import import import_file
from bio_mcp.server.app import build_server
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import herb_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.herb_fixtures import EXAMPLES, real_articles, write_relations_tsv
from tests.evidence.test_kg_cli import _run

pytestmark = pytest.mark.anyio

TRADITIONAL = "traditional use (Dr. Duke's ethnobotany), not evidence"


def _settings(home: Path, data_dir: Path, database_url: str | None = None) -> Any:
    return load_settings(
        **({"DATABASE_URL": database_url} if database_url else {}),
        BIO_MCP_HOME=str(home), BIO_MCP_EMBEDDINGS_PROVIDER="hash",
        BIO_MCP_MESH_PATH=str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"),
        BIO_MCP_DUKE_DIR=str(data_dir / "herbs" / "duke"),
        BIO_MCP_DUKE_FARMACY_DIR=str(data_dir / "herbs" / "duke_farmacy"),
        BIO_MCP_DO_XREFS_PATH=str(data_dir / "ontology" / "do_xrefs.tsv"),
    )


async def _open(
    home: Path, data_dir: Path, catalog: MeshCatalog, database_url: str | None = None
) -> tuple[CorpusService, EutilsClient]:
    settings = _settings(home, data_dir, database_url)
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, graph=GraphIndexer(catalog, None), embed_in_background=False)
    await service.open()
    return service, eutils


async def _herb(client: Client, name: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(f"kg://herb/{name}")).contents[0].text)


async def test_readme_steps_give_garlic_and_turmeric_constituents_and_traditional_uses(
    bio_home: Path, data_dir: Path, mesh_catalog: MeshCatalog,
) -> None:
    done = _run(bio_home, data_dir, "kg", "import", str(EXAMPLES / "thai_herb_names.tsv"), str(EXAMPLES / "thai_formulations.tsv"))
    assert done.returncode == 0, done.stderr[-2000:]
    done = _run(bio_home, data_dir, "kg", "herbs")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["constituent_rows"] == 99029 and report["constituent_edges"] > 50000
    garlic, turmeric = await _read_herbs(bio_home, data_dir, mesh_catalog, "garlic", "turmeric")

    assert garlic["id"] == "mesh:D005737"
    by_name = {c["name"]: c for c in garlic["constituents"]}
    assert {"Allicin", "Alliin", "Ajoene"} <= set(by_name)
    # MeSH 2024 has no descriptor for allicin (a supplementary concept): Duke's name is its node's.
    assert by_name["Allicin"]["id"] == "chemical:allicin" and by_name["Allicin"]["sources"] == ["duke:FARMACY_NEW"]
    assert "bulb" in by_name["Allicin"]["parts"] and not by_name["Allicin"]["widespread"]
    # Linked to the MeSH chemical where Duke's name is one of its terms; water is in most plants.
    assert by_name["Water"]["id"] == "mesh:D014867" and by_name["Water"]["widespread"]
    assert {"duke:FARMACY_NEW", "duke:ETHNOBOT"} <= set(garlic["sources"])
    # Traditional uses: labelled, with the disease and its ICD-10-CM code where Duke's term names one;
    # none became an indication (no literature was synced).
    uses = {u["use"]: u for u in garlic["traditional_uses"]}
    assert all(u["kind"] == TRADITIONAL and u["source"] == "duke:ETHNOBOT" for u in uses.values())
    asthma = uses["Asthma"]
    assert (asthma["id"], asthma["description"], asthma["taxon"]) == ("mesh:D001249", "Asthma", "Allium sativum var. sativum")
    assert asthma["icdCode"].startswith("J45")
    assert uses["Ache(Tooth)"]["id"] == "mesh:D014098"  # Toothache
    assert uses["Carminative"]["id"] is None and uses["Carminative"]["icdCode"] == ""
    assert garlic["indications"] == []

    assert turmeric["id"] == "mesh:D030024"
    curcumin = next(c for c in turmeric["constituents"] if c["name"] == "Curcumin")
    assert curcumin["id"] == "mesh:D003474" and {"Antiinflammatory", "Antioxidant"} <= set(curcumin["activities"])
    assert "rhizome" in curcumin["parts"]
    assert any(u["use"] == "Jaundice" and u["kind"] == TRADITIONAL for u in turmeric["traditional_uses"])
    assert turmeric["indications"] == []

    # What `kg herbs` wrote outlives a graph rebuild, Duke's own chemicals with their names.
    done = _run(bio_home, data_dir, "graph", "rebuild")
    assert done.returncode == 0, done.stderr[-2000:]
    [rebuilt] = await _read_herbs(bio_home, data_dir, mesh_catalog, "garlic")
    assert rebuilt["constituents"] == garlic["constituents"]


async def _read_herbs(home: Path, data_dir: Path, catalog: MeshCatalog, *names: str) -> list[dict[str, Any]]:
    service, eutils = await _open(home, data_dir, catalog)
    try:
        tools, resources = herb_tools(HerbKnowledge(service))
        async with Client(build_server([Toolset(name="evidence", tools=tools, resources=resources)])) as client:
            return [await _herb(client, name) for name in names]
    finally:
        await service.aclose()
        await eutils.aclose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    return None if request.param == "sqlite" else str(request.getfixturevalue("postgres_schema_url"))


@pytest.fixture
async def duke_graph(
    bio_home: Path, data_dir: Path, mesh_catalog: MeshCatalog, tmp_path: Path, database_url: str | None,
) -> AsyncIterator[CorpusService]:
    """Thai tables, the herb catalog with Duke's constituents (written twice: the second run adds
    nothing), and two facts about chemicals from real titles: curcumin against hepatocellular
    carcinoma, magnesium causing myasthenia gravis (BC5CDR)."""
    service, eutils = await _open(bio_home, data_dir, mesh_catalog, database_url)
    store = service.store
    for table in ("thai_herb_names.tsv", "thai_formulations.tsv"):
        with store.transaction() as tx:
            import_file(tx.connection, EXAMPLES / table, mesh_catalog)
    for run in range(2):
        with store.transaction() as tx:
            report = write_herb_catalog(tx.connection, mesh_catalog, data_dir / "herbs" / "duke",
                                        data_dir / "herbs" / "duke_farmacy")
        assert report.constituent_edges == 82347 and report.constituent_evidence_added == (84824 if run == 0 else 0)
        if database_url is not None:
            # PostgreSQL's statistics were refreshed after the bulk write: a plan prepared while the
            # tables were empty scanned every row, 2.4 s for each batch of 500 keys of the second run.
            with store.transaction() as tx:
                assert tx.connection.exec_driver_sql(
                    "SELECT reltuples FROM pg_class WHERE oid = 'kg_relation_evidence'::regclass").scalar() > 80000
    magnesium = next(line.split("|t|", 1)[1].strip() for line in
                     (data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt").open(encoding="utf-8")
                     if line.startswith("2385256|t|"))
    rows = [
        {"subject": "Curcumin", "relation": "indication", "object": "Carcinoma, Hepatocellular",
         "evidence": real_articles(data_dir)["26585812"].title, "source": "pmid:26585812", "part": ""},  # type: ignore[attr-defined]
        {"subject": "Magnesium", "relation": "adverse_effect", "object": "Myasthenia Gravis", "evidence": magnesium,
         "source": "pmid:2385256", "part": ""},
    ]
    with store.transaction() as tx:
        import_file(tx.connection, write_relations_tsv(tmp_path / "chemicals.tsv", rows), mesh_catalog)
    yield service
    await service.aclose()
    await eutils.aclose()


async def test_a_constituents_literature_is_its_herbs_coded_indication_unless_the_chemical_is_everywhere(
    duke_graph: CorpusService,
) -> None:
    tools, resources = herb_tools(HerbKnowledge(duke_graph))
    async with Client(build_server([Toolset(name="evidence", tools=tools, resources=resources)])) as client:
        turmeric = await _herb(client, "turmeric")
        [hepatocellular] = turmeric["indications"]
        assert hepatocellular["id"] == "mesh:D006528" and hepatocellular["via"] == "mesh:D003474"
        assert hepatocellular["icdCode"] == "C22.0" and hepatocellular["sources"] == ["pmid:26585812"]
        # Turmeric has some 200 constituents: the one with literature is walked, not cut.
        result = await client.call_tool("tool.query_kg", {"start": {"type": "herb", "id": "turmeric"},
                                                          "pattern": "herb>constituent>indication"})
        paths = result.structured_content["paths"]
        assert [[node["id"] for node in path] for path in paths] == [["mesh:D030024", "mesh:D003474", "mesh:D006528"]]
        assert paths[0][2]["icd10cm"] == "C22.0"
        # Without a pattern too: the constituents that lead nowhere come after it.
        result = await client.call_tool("tool.query_kg", {"start": {"type": "herb", "id": "turmeric"}})
        paths = [[node["id"] for node in path] for path in result.structured_content["paths"]]
        assert paths[0] == ["mesh:D030024", "mesh:D003474", "mesh:D006528"] and len(paths) == 50

        # Magnesium is in garlic by Duke's table, and in a third of its plants: its harm is not garlic's.
        garlic = await _herb(client, "garlic")
        magnesium = next(c for c in garlic["constituents"] if c["id"] == "mesh:D008274")
        assert magnesium["widespread"]
        result = await client.call_tool("tool.find_contraindications", {"herb_ids": ["garlic"]})
        assert result.structured_content["results"] == []
        result = await client.call_tool("tool.query_kg", {"start": {"type": "indication", "id": "mesh:D009157"}})
        assert [[node["id"] for node in path] for path in result.structured_content["paths"]] == [
            ["mesh:D009157", "mesh:D008274"]]


def test_a_herbs_binomial_finds_the_traditional_uses_duke_records_under_its_variety() -> None:
    # Duke files garlic's uses under "Allium sativum var. sativum"; the Thai table, imported with no
    # `kg herbs` run, names it "Allium sativum": its traditional uses were empty.
    from bio_mcp.config import load_settings
    from bio_mcp.graph.duke_farmacy import duke_farmacy_dir_of, traditional_uses

    uses = [use.use for use in traditional_uses(duke_farmacy_dir_of(load_settings()), ["Allium sativum"], None)]
    assert len(uses) == 98 and "Ache(Tooth)" in uses


async def test_on_a_fresh_home_a_herb_says_no_indication_is_stated_and_names_its_traditional_uses_apart(
    bio_home: Path, data_dir: Path, mesh_catalog: MeshCatalog,
) -> None:
    # Nothing imported, nothing synced: no curated source states an indication, and none is faked.
    garlic, turmeric = await _read_herbs(bio_home, data_dir, mesh_catalog, "garlic", "turmeric")
    for herb in (garlic, turmeric):
        assert herb["indications"] == [] and herb["traditional_uses"], json.dumps({k: v for k, v in herb.items() if k != "coverage"})
        note = herb["indications_note"]
        assert note.startswith("No indication is stated in the synced literature (0 documents searched).")
        assert "Traditional uses (Dr. Duke's ethnobotany, not evidence that the herb works): " in note
        # Coded uses first, with their ICD-10-CM code; the record lists every use as a traditional use.
        assert re.search(r": [^(]+ \([A-Z]\d\d", note) and all(u["kind"] == TRADITIONAL for u in herb["traditional_uses"])
    asthma = next(u for u in garlic["traditional_uses"] if u["use"] == "Asthma")
    assert asthma["icdCode"].startswith("J45") and asthma["taxon"].startswith("Allium sativum")
    assert any(u["use"] == "Jaundice" for u in turmeric["traditional_uses"])
