"""Interactions stated with their quotes, and silence labelled as silence, through MCP (every structured
result validated against the tool's output schema): a real published abstract saying garlic has a
major interaction with warfarin (records/pmid_24790635.xml, open access) is added through the
corpus's add-articles path with the real MeSH linker and the interaction extractor, beside the Thai
tables and relations from real sentences (herb_fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client

from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.interactions import InteractionExtractor
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.server.app import build_server
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import herb_tools
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch

pytestmark = pytest.mark.anyio

RECORD = Path(__file__).parent / "records" / "pmid_24790635.xml"
GARLIC_SENTENCE = ("Among thirty-eight herbs, Cannabis, Chamomile, Cranberry, Garlic, Ginkgo, Grapefruit, Lycium, "
                   "Red clover, and St. John's wort were evaluated to have major severity interaction with warfarin.")
WARFARIN = "mesh:D014859"
SILENCE = "No interaction or contraindication evidence was found in the {n} documents searched; this is not evidence of safety."


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    tool = next(t for t in (await client.list_tools()).tools if t.name == name.replace(".", "_"))
    jsonschema.validate(result.structured_content, tool.output_schema)
    return result.structured_content, result.content[0].text


@pytest.fixture
async def garlic_corpus(herb_graph, mesh_catalog, data_dir, linker_cache):
    """The herb graph with the real abstract written as a sync writes it: linked, its relations extracted."""
    linker = load_linker_from(data_dir / "mesh" / "mesh_descriptors_2024.jsonl", None, linker_cache)
    herb_graph.service.graph = GraphIndexer(mesh_catalog, linker, [InteractionExtractor(mesh_catalog.broader, mesh_catalog.pharm_actions)])
    await herb_graph.service.add_articles(parse_efetch(RECORD.read_bytes()))
    return herb_graph


def server(graph) -> Any:
    tools, resources = herb_tools(HerbKnowledge(graph.service))
    return build_server([Toolset(name="evidence", tools=tools, resources=resources)])


async def test_garlic_interacts_with_warfarin_quoting_the_real_abstract(garlic_corpus) -> None:
    assert GARLIC_SENTENCE in RECORD.read_text(encoding="utf-8")
    async with Client(server(garlic_corpus)) as client:
        body, text = await call(client, "tool.find_contraindications", {"herb_ids": ["garlic"]})
    [warfarin] = [r for r in body["results"] if r["target_id"] == WARFARIN]
    assert warfarin["entity_id"] == "mesh:D005737" and warfarin["relation"] == "interaction"
    assert warfarin["contraindication"] == "Interaction with Warfarin"
    assert warfarin["evidence"] == GARLIC_SENTENCE
    assert (warfarin["pmid"], warfarin["source"]) == ("24790635", "pubmed:24790635")
    assert warfarin["quote_checked"] is True
    # The record is a journal article NLM has not indexed (no MeSH headings): not a trial, not known to be in humans.
    assert (warfarin["strength"], warfarin["study"]) == ("low", "study (population not indexed)")
    # The span is the sentence's place in the stored chunk (title, then the abstract).
    with garlic_corpus.store.read() as tx:
        [chunk] = [row.text for row in tx.connection.exec_driver_sql(
            "SELECT text FROM chunks WHERE pmid = '24790635'") if GARLIC_SENTENCE in row.text]
    assert chunk[warfarin["span"]["start"]:warfarin["span"]["end"]] == GARLIC_SENTENCE
    assert "Interaction with Warfarin" in text and GARLIC_SENTENCE in text
    assert not text.startswith("No interaction")
    assert body["coverage"]["documents_searched"] == 1


async def test_silence_is_labelled_with_what_was_searched(garlic_corpus) -> None:
    async with Client(server(garlic_corpus)) as client:
        body, text = await call(client, "tool.find_contraindications", {"herb_ids": ["turmeric"]})
        assert body["results"] == []
        assert text.startswith(SILENCE.format(n=1))
        coverage = body["coverage"]
        assert coverage["documents_searched"] == 1
        # The herb's imported names (Thai, English, scientific), its MeSH heading and its constituent.
        assert {"ขมิ้นชัน", "Turmeric", "Curcuma longa", "Curcuma", "Curcumin"} <= set(coverage["names_searched"])
        assert "pubmed: 1 document(s)" in coverage["sources"]
        assert any(source.startswith("imported facts") for source in coverage["sources"])
        # The herb's own names come first (in the text too), its constituents' after them.
        assert coverage["names_searched"].index("Turmeric") < coverage["names_searched"].index("Curcumin")
        searched = next(line for line in text.splitlines() if line.startswith("Searched for:"))
        assert "ขมิ้นชัน" in searched and "Turmeric" in searched and "more names" in searched

        # tool.query_kg with no path, and the herb resource with nothing recorded, say the same first.
        body, text = await call(client, "tool.query_kg", {"start": {"type": "herb", "id": "herb:zingiber-montanum"}})
        assert body["paths"] == [] and body["coverage"]["documents_searched"] == 1
        assert text.startswith(SILENCE.format(n=1)) and "ไพล" in text
        plain = json.loads((await client.read_resource("kg://herb/herb:zingiber-montanum")).contents[0].text)
        assert plain["safety"].startswith(SILENCE.format(n=1))
        assert "ไพล" in plain["coverage"]["names_searched"]
        garlic = json.loads((await client.read_resource("kg://herb/garlic")).contents[0].text)
        assert not garlic["safety"].startswith("No interaction") and "finding(s)" in garlic["safety"]


async def test_a_formulation_is_checked_through_each_of_its_herbs(garlic_corpus) -> None:
    async with Client(server(garlic_corpus)) as client:
        body, text = await call(client, "tool.find_contraindications", {"formulation_ids": ["triphala"]})
    assert body["results"] == [] and text.startswith(SILENCE.format(n=1))
    # Triphala's three herbs, as the imported recipe names them (Terminalia chebula and T. bellirica
    # share MeSH's Terminalia), each checked and listed with the formulation it was checked for.
    assert [(c["entity_id"], c["type"], c.get("formulation")) for c in body["checked"]] == [
        ("formulation:triphala", "formulation", None),
        ("mesh:D029766", "herb", "formulation:triphala"),
        ("mesh:D029842", "herb", "formulation:triphala"),
    ]
    # One entity stands for both Terminalia species: it says so, so neither reads as left unchecked.
    assert [c["recipe_names"] for c in body["checked"]] == [
        [], ["Terminalia bellirica", "Terminalia chebula"], ["Phyllanthus emblica"]]
    assert "the recipe's Terminalia bellirica, Terminalia chebula" in text
    assert {"Triphala", "ตรีผลา", "Phyllanthus emblica", "Terminalia chebula", "Terminalia bellirica"} <= set(
        body["coverage"]["names_searched"])
    assert "in `formulation:triphala`" in text


async def test_findings_for_one_herb_leave_the_others_silence_labelled(garlic_corpus) -> None:
    async with Client(server(garlic_corpus)) as client:
        body, text = await call(client, "tool.find_contraindications",
                                {"herb_ids": ["garlic", "turmeric"], "formulation_ids": ["triphala"]})
    assert any(r["target_id"] == WARFARIN for r in body["results"])
    # Garlic's interaction must not make turmeric's or Triphala's "0 finding(s)" read as an all-clear.
    assert text.startswith("No interaction or contraindication evidence was found for Turmeric, Triphala, ")
    first = text.splitlines()[0]
    assert first.endswith("in the 1 documents searched; this is not evidence of safety.")
    assert "Garlic" not in first
    assert GARLIC_SENTENCE in text


async def test_a_quote_the_stored_text_no_longer_reads_is_not_stated(garlic_corpus) -> None:
    # The stored chunk changes under the evidence row (as a re-synced version that a graph write has
    # not yet caught up with would): the sentence no longer reads so at its span, and is not quoted.
    with garlic_corpus.store.transaction() as tx:
        tx.connection.exec_driver_sql(
            "UPDATE chunks SET text = replace(text, 'interaction with warfarin.', 'interaction with heparin.') "
            "WHERE pmid = '24790635'")
    async with Client(server(garlic_corpus)) as client:
        body, text = await call(client, "tool.find_contraindications", {"herb_ids": ["garlic"]})
    assert not [r for r in body["results"] if r["target_id"] == WARFARIN]
    assert GARLIC_SENTENCE not in text
