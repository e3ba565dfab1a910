"""kg://herb/{id}, tool.query_kg and tool.find_contraindications through MCP, against seed 003's shapes,
on the Thai tables, the herb catalog and relations from real sentences (herb_fixtures)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from bio_mcp.canonical import canonical_sha256
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.evidence.herbs import herb_named
from bio_mcp.graph.build import entity_graph
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.server.app import build_server
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import herb_tools
from tests.evidence.herb_fixtures import CORPUS_PMIDS, store_corpus_records

pytestmark = pytest.mark.anyio

AUDIT = {
    "type": "object", "required": ["in_hash", "out_hash", "latency_ms", "seed", "status"],
    "properties": {"in_hash": {"type": "string"}, "out_hash": {"type": "string"}, "latency_ms": {"type": "integer"},
                   "seed": {"type": "integer"}, "status": {"enum": ["ok", "error"]}},
}
HERB_RESOURCE = {
    "type": "object", "required": ["id", "names", "parts", "constituents", "indications", "sources"],
    "properties": {
        "id": {"type": "string"},
        "names": {"type": "object", "required": ["th", "en"],
                  "properties": {"th": {"type": "string"}, "en": {"type": "string"}}},
        "parts": {"type": "array", "items": {"type": "string"}},
        "constituents": {"type": "array", "items": {"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "string"}, "name": {"type": "string"}}}},
        "indications": {"type": "array", "items": {"type": "object", "required": ["icdCode", "description"],
                                                   "properties": {"icdCode": {"type": "string"},
                                                                  "description": {"type": "string"}}}},
        "sources": {"type": "array", "items": {"type": "string"}},
    },
}
QUERY_KG_RESPONSE = {
    "type": "object", "required": ["paths", "audit"],
    "properties": {
        "paths": {"type": "array", "items": {"type": "array", "items": {
            "type": "object", "required": ["id", "type", "label"],
            "properties": {"id": {"type": "string"}, "type": {"type": "string"}, "label": {"type": "string"}}}}},
        "audit": AUDIT,
    },
}
CONTRAINDICATIONS_RESPONSE = {
    "type": "object", "required": ["results", "audit"],
    "properties": {
        "results": {"type": "array", "items": {
            "type": "object", "required": ["entity_id", "type", "contraindication", "evidence", "strength"],
            "properties": {"entity_id": {"type": "string"}, "type": {"enum": ["herb", "formulation"]},
                           "contraindication": {"type": "string"}, "evidence": {"type": "string"},
                           "strength": {"enum": ["low", "moderate", "high"]}}}},
        "audit": AUDIT,
    },
}


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    if result.is_error:
        assert result.structured_content is None
        return True, json.loads(result.content[0].text), result.content[0].text
    return False, result.structured_content, result.content[0].text


def server(graph) -> Any:
    tools, resources = herb_tools(HerbKnowledge(graph.service))
    return build_server([Toolset(name="evidence", tools=tools, resources=resources)])


async def test_turmeric_resource_has_names_parts_constituents_and_coded_indications(herb_graph, mesh_catalog) -> None:
    with herb_graph.store.transaction() as tx:
        SqlGraphStore(tx.connection).insert(*entity_graph(["mesh:D004926"], mesh_catalog, {}))  # E. coli, an Organism
    async with Client(server(herb_graph)) as client:
        body = json.loads((await client.read_resource("kg://herb/mesh:D030024")).contents[0].text)
        jsonschema.validate(body, HERB_RESOURCE)
        assert body["id"] == "mesh:D030024"
        assert body["names"]["th"] == "ขมิ้นชัน" and body["names"]["en"] == "Turmeric"
        assert {"Curcuma longa", "Curcuma zedoaria"} <= set(body["names"]["scientific"])
        assert body["parts"] == ["rhizome"]
        [curcumin] = body["constituents"]
        assert (curcumin["id"], curcumin["name"]) == ("mesh:D003474", "Curcumin")
        assert {"Antiinflammatory", "Antioxidant"} <= set(curcumin["activities"])  # Dr. Duke's AGGREGAC
        by_id = {indication["id"]: indication for indication in body["indications"]}
        assert by_id["mesh:D010195"]["icdCode"] == "K85.9"  # DO: pancreatitis
        assert by_id["mesh:D001168"]["icdCode"] == "M19.90" and by_id["mesh:D001168"]["description"] == "Arthritis"
        assert by_id["mesh:D007249"]["icdCode"] == ""  # DO has no ICD-10-CM code for inflammation
        hepatocellular = by_id["mesh:D006528"]
        assert hepatocellular["via"] == "mesh:D003474" and hepatocellular["icdCode"] == "C22.0"
        assert {"pmid:21069254", "pmid:27034601", "scifact:343052", "thai_herb_names.tsv"} <= set(body["sources"])
        formulations = json.loads((await client.read_resource("kg://herb/mesh:D029842")).contents[0].text)["formulations"]
        assert formulations == ["formulation:triphala"]
        plain = json.loads((await client.read_resource("kg://herb/herb:zingiber-montanum")).contents[0].text)
        assert plain["names"]["th"] == "ไพล" and plain["constituents"] == [] and plain["indications"] == []
        # A MeSH plant with no node in the graph yet is known, with nothing recorded, by id or name.
        for uri in ("kg://herb/mesh:D017360", "kg://herb/arabidopsis"):
            arabidopsis = json.loads((await client.read_resource(uri)).contents[0].text)
            assert arabidopsis["id"] == "mesh:D017360" and arabidopsis["names"] == {"th": "", "en": "Arabidopsis", "scientific": []}
            assert arabidopsis["constituents"] == arabidopsis["indications"] == arabidopsis["sources"] == []
        # Not in MeSH; a chemical; a bacterium (an Organism, not under Plants); no such herb.
        for missing in ("kg://herb/mesh:D999999", "kg://herb/mesh:D003474", "kg://herb/mesh:D004926",
                        "kg://herb/herb:no-such-plant"):
            with pytest.raises(MCPError, match="is neither a herb of the knowledge graph, a MeSH plant nor a herb's name"):
                await client.read_resource(missing)


async def test_query_kg_walks_herb_constituent_indication_with_evidence(herb_graph) -> None:
    arguments = {"start": {"type": "herb", "id": "mesh:D030024"}, "max_depth": 3}
    async with Client(server(herb_graph)) as client:
        error, body, text = await call(client, "tool.query_kg", arguments)
        assert not error
        jsonschema.validate(body, QUERY_KG_RESPONSE)
        assert body["audit"]["in_hash"] == canonical_sha256(arguments) and body["audit"]["status"] == "ok"
        assert body["audit"]["out_hash"] == canonical_sha256({k: v for k, v in body.items() if k != "audit"})
        chains = [[node["type"] for node in path] for path in body["paths"]]
        assert ["herb", "constituent", "indication"] in chains and ["herb", "indication"] in chains
        path = body["paths"][chains.index(["herb", "constituent", "indication"])]
        edges = body["edges"][chains.index(["herb", "constituent", "indication"])]
        assert [node["id"] for node in path] == ["mesh:D030024", "mesh:D003474", "mesh:D006528"]
        assert path[0]["label"] == "Turmeric" and path[2]["icd10cm"] == "C22.0"
        assert [edge["type"] for edge in edges] == ["HAS_CONSTITUENT", "TREATS"]
        assert edges[0]["evidence"][0]["source"] == "scifact:343052"
        assert "Curcumin, a major component of turmeric" in edges[0]["evidence"][0]["sentence"]
        assert edges[1]["evidence"][0]["pmid"] == "26585812"
        assert "Turmeric (herb) → Curcumin (constituent) → Carcinoma, Hepatocellular (indication, C22.0)" in text

        again = await call(client, "tool_query_kg", arguments)  # the portable name, same answer
        assert again[1]["paths"] == body["paths"] and again[1]["audit"]["out_hash"] == body["audit"]["out_hash"]

        error, only, _ = await call(client, "tool.query_kg", {**arguments, "pattern": "herb > constituent > indication"})
        assert not error and [[n["type"] for n in p] for p in only["paths"]] == [["herb", "constituent", "indication"]]

        # From an indication backwards: the herbs and constituents that treat it.
        error, back, back_text = await call(client, "tool.query_kg", {"start": {"type": "indication", "id": "mesh:D006528"}})
        assert not error and [[n["id"] for n in p] for p in back["paths"]] == [["mesh:D006528", "mesh:D003474", "mesh:D030024"]]
        # The arrows point the way the edges do: curcumin treats it, turmeric contains curcumin.
        assert "Carcinoma, Hepatocellular (indication, C22.0) ← Curcumin (constituent) ← Turmeric (herb)" in back_text
        error, wrong, _ = await call(client, "tool.query_kg", {"start": {"type": "indication", "id": "mesh:D030024"}})
        assert error and wrong["error"]["message"] == "start.id mesh:D030024 is a herb, not an indication"

        error, formula, _ = await call(client, "tool.query_kg", {"start": {"type": "formulation", "id": "formulation:triphala"},
                                                                 "max_depth": 1})
        assert not error and sorted(p[1]["id"] for p in formula["paths"]) == ["mesh:D029766", "mesh:D029842"]

        error, few, _ = await call(client, "tool.query_kg", {**arguments, "max_paths": 1})
        assert not error and len(few["paths"]) == 1 and few["truncated"] is True

        error, strong, text = await call(client, "tool.query_kg", {**arguments, "filters": {"min_strength": "moderate"}})
        assert not error and strong["paths"] == [] and "No path" in text

        for bad, field in (
            ({"start": {"type": "herb", "id": "mesh:D030024"}, "max_depth": 9}, "max_depth"),
            ({"start": {"type": "plant", "id": "mesh:D030024"}}, "type"),
            ({"start": {"type": "herb", "id": "mesh:D030024"}, "pattern": "herb>gene"}, "pattern"),
            ({"start": {"type": "herb", "id": "mesh:D030024"}, "filters": {"relations": ["CITES"]}}, "relations"),
            ({"start": {"type": "herb"}}, "id"),
        ):
            error, body, text = await call(client, "tool.query_kg", bad)
            assert error and body["error"]["code"] == "VALIDATION" and field in text
            assert body["audit"]["status"] == "error"
        error, body, _ = await call(client, "tool.query_kg", {"start": {"type": "constituent", "id": "mesh:D030024"}})
        assert error and body["error"]["code"] == "VALIDATION" and "is a herb, not a constituent" in body["error"]["message"]
        error, body, _ = await call(client, "tool.query_kg", {"start": {"type": "herb", "id": "herb:no-such-plant"}})
        assert error and body["error"]["code"] == "NOT_FOUND"


async def test_query_kg_takes_a_formulation_by_name_as_find_contraindications_does(herb_graph) -> None:
    # 'triphala' and its Thai name ตรีผลา were NOT_FOUND as a query_kg start, though
    # tool.find_contraindications takes both.
    async with Client(server(herb_graph)) as client:
        error, by_id, _ = await call(client, "tool.query_kg", {"start": {"type": "formulation", "id": "formulation:triphala"},
                                                               "max_depth": 1})
        assert not error and by_id["paths"]
        for name in ("triphala", "ตรีผลา"):
            error, by_name, _ = await call(client, "tool.query_kg", {"start": {"type": "formulation", "id": name},
                                                                     "max_depth": 1})
            assert not error, by_name
            assert by_name["paths"] == by_id["paths"]
        error, body, _ = await call(client, "tool.query_kg", {"start": {"type": "formulation", "id": "no such recipe"}})
        assert error and body["error"]["code"] == "NOT_FOUND" and body["error"]["details"]["field"] == "start.id"


async def test_strength_reads_the_quality_of_corpus_records(herb_graph, data_dir) -> None:
    arguments = {"start": {"type": "constituent", "id": "mesh:D001241"}, "max_depth": 1}
    async with Client(server(herb_graph)) as client:
        _, before, _ = await call(client, "tool.query_kg", arguments)
        store_corpus_records(herb_graph.store, data_dir)
        _, after, _ = await call(client, "tool.query_kg", arguments)
    # Aspirin -> venous thromboembolism, from the title of an RCT: unknown design until the corpus holds it.
    assert [e[0]["strength"] for e in before["edges"]] == ["low"]
    assert [e[0]["strength"] for e in after["edges"]] == ["moderate"] and "23121403" in CORPUS_PMIDS


async def test_find_contraindications_of_herbs_and_formulations(herb_graph) -> None:
    async with Client(server(herb_graph)) as client:
        error, body, text = await call(client, "tool.find_contraindications", {"herb_ids": ["mesh:D005737"], "formulation_ids": []})
        assert not error
        jsonschema.validate(body, CONTRAINDICATIONS_RESPONSE)
        [garlic] = body["results"]
        assert garlic["entity_id"] == "mesh:D005737" and garlic["type"] == "herb" and garlic["relation"] == "interaction"
        assert garlic["contraindication"] == "Interaction with Cytochrome P-450 Enzyme System"
        assert garlic["evidence"].startswith("Garlic can detoxify carcinogens by stimulation of cytochrome P(450)")
        assert (garlic["source"], garlic["pmid"], garlic["strength"]) == ("pmid:11238818", "11238818", "low")
        assert "Interaction with Cytochrome P-450" in text and "pmid:11238818" in text

        # Tea by its Thai name: its own adverse effects and, via caffeine, its constituent's.
        error, body, _ = await call(client, "tool.find_contraindications", {"herb_ids": ["ชา"]})
        assert not error
        found = {(r["target_id"], r["via"]) for r in body["results"]}
        assert found == {("mesh:D012206", None), ("mesh:D003693", None), ("mesh:D012206", "mesh:D002110")}
        assert all(r["entity_id"] == "mesh:D028241" and r["source"] == "pmid:10592946" for r in body["results"])

        error, body, text = await call(client, "tool.find_contraindications", {"formulation_ids": ["triphala"]})
        assert not error and body["results"] == []
        assert body["checked"][0] == {"entity_id": "formulation:triphala", "type": "formulation", "label": "Triphala",
                                      "findings": 0, "formulation": None, "recipe_names": []}
        assert text.startswith("No interaction or contraindication evidence was found in the 0 documents searched; "
                               "this is not evidence of safety.")

        error, body, _ = await call(client, "tool.find_contraindications", {"herb_ids": ["mesh:D005737", "no such herb"]})
        assert error and body["error"]["code"] == "VALIDATION"
        assert body["error"]["details"] == {"field": "herb_ids", "unknown": ["no such herb"]}
        error, body, _ = await call(client, "tool.find_contraindications", {"herb_ids": [], "formulation_ids": []})
        assert error and body["error"]["code"] == "VALIDATION" and body["audit"]["status"] == "error"
        error, body, _ = await call(client, "tool.find_contraindications", {"herb_ids": "mesh:D005737"})
        assert error and body["error"]["code"] == "VALIDATION"


async def test_a_herb_by_name_imported_or_mesh(herb_graph, mesh_catalog) -> None:
    vocabulary = mesh_catalog.vocabulary
    with herb_graph.store.read() as tx:
        # Imported names first (Thai, English, scientific), then MeSH plants' headings and entry terms.
        assert herb_named(tx.connection, "กระเทียม", vocabulary) == "mesh:D005737"
        assert herb_named(tx.connection, "St. John's wort", vocabulary) == "mesh:D020902"  # a MeSH entry term of Hypericum
        assert herb_named(tx.connection, "ginkgo", vocabulary) == "mesh:D020441"
        # "Tea" is the imported English name of Camellia sinensis (MeSH's Tea is the beverage);
        # MeSH names no plant "aspirin".
        assert herb_named(tx.connection, "Tea", vocabulary) == "mesh:D028241"
        assert herb_named(tx.connection, "aspirin", vocabulary) is None
        assert herb_named(tx.connection, "no such herb", vocabulary) is None
    async with Client(server(herb_graph)) as client:
        error, body, _ = await call(client, "tool.find_contraindications", {"herb_ids": ["st john's wort"]})
        assert not error and [checked["entity_id"] for checked in body["checked"]] == ["mesh:D020902"]
        error, by_id, _ = await call(client, "tool.query_kg", {"start": {"type": "herb", "id": "mesh:D005737"}})
        assert not error and by_id["paths"]
        for name in ("garlic", "Allium sativum", "กระเทียม"):
            error, by_name, _ = await call(client, "tool.query_kg", {"start": {"type": "herb", "id": name}})
            assert not error and by_name["paths"] == by_id["paths"]
        error, body, _ = await call(client, "tool.query_kg", {"start": {"type": "herb", "id": "aspirin"}})
        assert error and body["error"]["code"] == "NOT_FOUND" and "graph.entities" in body["error"]["message"]
