"""What any MCP client needs, through the SDK's client against the fake E-utilities over real records:
portable tool names, errors valid for spec-following clients, complete Markdown text within the
budget (the rest in scratch), result sizes, citations for many PMIDs, text resources and resource
errors, descriptions on every input field, honest openWorld hints, and two useful prompts."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import TextResourceContents

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime
from tests.server.scratch_reading import read_whole

pytestmark = pytest.mark.anyio

SEMAGLUTIDE = "29915538"
MANY_AUTHORS = "27454254"  # real record with 1,004 authors
PORTABLE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ENVELOPE = {"type": "object", "required": ["error"], "additionalProperties": False,
            "properties": {"error": {"type": "object", "required": ["code", "message", "details"]}}}


def settings_for(fakes, **extra: Any):
    return load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, CTGOV_BASE_URL=fakes.ctgov_base_url, **extra)


@pytest.fixture
async def everything(fakes, bio_home):
    """Every toolset, as `bio-mcp serve` builds it."""
    async with Runtime(settings_for(fakes)) as runtime:
        async with Client(build_server(build_toolsets(runtime), options=server_options(runtime))) as client:
            yield client


@pytest.fixture
async def pubmed(fakes, bio_home):
    async with Runtime(settings_for(fakes)) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]), options=server_options(runtime))) as client:
            yield client


async def ok(client: Client, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    tool = next(t for t in (await client.list_tools()).tools if t.name == name.replace(".", "_"))
    jsonschema.validate(result.structured_content, tool.output_schema)
    text = result.content[0].text
    assert len(text) <= 65_536
    return result.structured_content, text


def envelope_of(result) -> dict[str, Any]:
    assert result.is_error and result.structured_content is None
    body = json.loads(result.content[0].text)
    jsonschema.validate(body, ENVELOPE)
    assert result.meta["error"] == body["error"] and result.meta["audit"]["status"] == "error"
    return body["error"]


# ---- names ---------------------------------------------------------------------------------------

async def test_every_listed_name_is_portable_and_either_spelling_calls_it(everything) -> None:
    names = [tool.name for tool in (await everything.list_tools()).tools]
    assert names and all(PORTABLE.match(name) for name in names), names
    assert {"rag_search", "rag_get", "pubmed_sync_delta", "corpus_checkpoint_get", "analyst_ask",
            "searchPubMedArticles", "formatCitations"} <= set(names)
    assert not any("." in name for name in names)
    for name in ("corpus.checkpoint.get", "corpus_checkpoint_get"):
        body, text = await ok(everything, name, {"query_key": "names"})
        assert body == {"query_key": "names", "last_edat": None} and "never synced" in text


async def test_seed_names_on_request(fakes, bio_home) -> None:
    async with Runtime(settings_for(fakes, BIO_MCP_TOOL_NAMES="seed")) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["corpus"]), options=server_options(runtime))) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"pubmed.sync_delta", "rag.search", "rag.get", "corpus.checkpoint.get", "corpus.checkpoint.set"}
            result = await client.call_tool("corpus_checkpoint_get", {"query_key": "k"})
            assert not result.is_error


# ---- the catalogue --------------------------------------------------------------------------------

def _keywords(schema: Any) -> set[str]:
    """The keywords used anywhere in a schema (field names under `properties` and `$defs` are not)."""
    found: set[str] = set()
    if isinstance(schema, list):
        return found.union(*(_keywords(item) for item in schema))
    if isinstance(schema, dict):
        for key, value in schema.items():
            found.add(key)
            children = value.values() if key in ("properties", "$defs") and isinstance(value, dict) else [value]
            found |= set().union(*(_keywords(child) for child in children))
    return found


CATALOGUE_BUDGET = 60_000  # characters of the whole tools/list reply as the SDK sends it
LEGACY_NAMES = {"traverse_relationships", "search_documentation"}


async def test_the_catalogue_lists_each_tool_once_within_its_budget(everything) -> None:
    listed = await everything.list_tools()
    names = [tool.name for tool in listed.tools]
    assert len(names) == len(set(names)) and not set(names) & LEGACY_NAMES, names
    assert len(listed.model_dump_json(by_alias=True, exclude_none=True)) <= CATALOGUE_BUDGET
    for tool in listed.tools:
        assert "title" not in _keywords(tool.input_schema), tool.name
        assert not {"title", "description", "default"} & _keywords(tool.output_schema), tool.name
        # One type per schema: a type array is lost on one-type dialects (the Inspector's strict check warns).
        assert '"type": [' not in json.dumps(tool.input_schema) + json.dumps(tool.output_schema), tool.name


async def test_listed_output_schemas_stop_at_the_results_own_fields(everything) -> None:
    listed = {tool.name: tool for tool in (await everything.list_tools()).tools}
    output = listed["kb_search"].output_schema
    assert set(output["required"]) == {"evidence", "diagnostics"}
    assert output["properties"]["evidence"] == {"type": "array", "items": {"type": "object"}}
    assert "$defs" not in json.dumps(listed["kb_search"].output_schema)
    full = json.loads((await everything.read_resource("bio-mcp://tools/kb_search/schema")).contents[0].text)
    assert "score" in full["outputSchema"]["$defs"]["EvidenceMetadata"]["properties"]


async def test_full_schemas_with_their_descriptions_are_a_resource(everything) -> None:
    for name in ("kb_search", "kb.search", "search_documentation"):
        contents = (await everything.read_resource(f"bio-mcp://tools/{name}/schema")).contents[0]
        body = json.loads(contents.text)
        assert body["name"] == "kb_search"
        score = body["outputSchema"]["$defs"]["EvidenceMetadata"]["properties"]["score"]
        assert score["minimum"] == 0 and score["maximum"] == 1 and score["description"]
    with pytest.raises(MCPError):
        await everything.read_resource("bio-mcp://tools/no_such_tool/schema")


async def test_legacy_names_are_callable_and_listed_only_on_request(fakes, bio_home) -> None:
    async with Runtime(settings_for(fakes, BIO_MCP_LEGACY_TOOL_NAMES="true")) as runtime, \
            Client(build_server(build_toolsets(runtime, ["kb"]), options=server_options(runtime))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert LEGACY_NAMES <= set(tools) and {"kb_search", "graph_traverse"} <= set(tools)
        assert tools["traverse_relationships"].description.startswith("Legacy name of graph_traverse.")
    async with Runtime(settings_for(fakes)) as runtime, \
            Client(build_server(build_toolsets(runtime, ["kb"]), options=server_options(runtime))) as client:
        assert not {tool.name for tool in (await client.list_tools()).tools} & LEGACY_NAMES
        result = await client.call_tool("traverse_relationships", {"seed_ids": [], "max_depth": 9})
        # Reached the tool, whose own contract refused the arguments: not the unknown-tool answer.
        assert result.is_error and "unknown tool" not in result.content[0].text
        assert envelope_of(result)["details"]


async def test_unknown_tool_is_the_validation_envelope_naming_the_tools(pubmed) -> None:
    result = await pubmed.call_tool("searchPubMed", {"queryTerm": "asthma"})
    assert result.meta["audit"]["latency_ms"] < 1000
    error = envelope_of(result)
    assert error["code"] == "VALIDATION" and "searchPubMedArticles" in error["message"]
    assert "formatCitations" in error["details"]["available"]


# ---- errors ---------------------------------------------------------------------------------------

async def test_errors_are_text_envelopes_without_structured_content(pubmed) -> None:
    bad = envelope_of(await pubmed.call_tool("fetchArticleDetails", {"pmids": ["12a"]}))
    assert bad["code"] == "VALIDATION" and bad["details"][0]["loc"] == "pmids.0"
    missing = envelope_of(await pubmed.call_tool(
        "getArticleRelationships", {"sourcePmid": "99999999", "relationshipType": "citation_formats"}))
    assert missing["code"] == "NOT_FOUND"


# ---- text carries the answer ---------------------------------------------------------------------

async def test_text_is_complete_markdown(pubmed) -> None:
    body, text = await ok(pubmed, "fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    abstract = body["articles"][0]["abstractText"]
    assert abstract in text and body["articles"][0]["title"] in text and "doi:10.3389/fphar.2018.00576" in text
    cites, text = await ok(pubmed, "getArticleRelationships", {
        "sourcePmid": SEMAGLUTIDE, "relationshipType": "citation_formats",
        "citationStyles": ["ris", "bibtex", "apa_string", "mla_string", "vancouver"]})
    assert all(citation.rstrip("\n") in text for citation in cites["citations"].values())
    search, text = await ok(pubmed, "searchPubMedArticles", {"queryTerm": "asthma", "maxResults": 8,
                                                             "fetchBriefSummaries": 3})
    assert all(pmid in text for pmid in search["pmids"])
    assert all(brief["title"].replace("|", "/") in text for brief in search["briefSummaries"])


async def test_text_past_the_budget_is_cut_and_the_whole_text_is_in_scratch(fakes, bio_home) -> None:
    async with Runtime(settings_for(fakes, BIO_MCP_TEXT_BUDGET="5000")) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]), options=server_options(runtime))) as client:
            result = await client.call_tool("searchPubMedArticles", {"queryTerm": "all[sb]", "maxResults": 100,
                                                                     "fetchBriefSummaries": 100})
            assert not result.is_error
            text = result.content[0].text
            assert len(text) <= 5000
            uri = re.search(r"bio-mcp://scratch/[0-9a-f]{64}", text).group(0)
            assert "Cut at the text budget" in text
            first = (await client.read_resource(uri)).contents[0]
            assert isinstance(first, TextResourceContents) and len(first.text) <= 5000
            full, pages = await read_whole(client, uri)
            assert full.startswith(text.split("\n\n---\n")[0]) and len(pages) > 1 and len(full) > len(text)
            assert all(pmid in full for pmid in result.structured_content["pmids"])


# ---- sizes ----------------------------------------------------------------------------------------

async def test_eighty_abstracts_fill_the_text_budget_with_the_rest_in_scratch(pubmed, fakes) -> None:
    pmids = fakes.eutils.pmids[:80]
    body, text = await ok(pubmed, "fetchArticleDetails", {"pmids": pmids})
    # The records kept fill the text (what most clients show the model), not the structured content.
    assert len(text) > 0.8 * 65_536 and len(json.dumps(body, ensure_ascii=False)) <= 4 * 65_536
    # The abstract and the MeSH headings are sent once each.
    assert all("abstractSections" not in article and "meshHeadings" not in article for article in body["articles"])
    kept = [article["pmid"] for article in body["articles"]]
    assert body["overflow"]["pmids"] == pmids[len(kept):] and body["overflow"]["uri"] in text
    whole, pages = await read_whole(pubmed, body["overflow"]["uri"])
    assert len(pages) > 1 and all(len(page) <= 65_536 for page in pages)
    assert kept + [article["pmid"] for article in json.loads(whole)] == pmids


async def test_a_scratch_page_past_the_last_is_a_resource_error(pubmed, fakes) -> None:
    body, _ = await ok(pubmed, "fetchArticleDetails", {"pmids": fakes.eutils.pmids[:80]})
    _, pages = await read_whole(pubmed, body["overflow"]["uri"])
    assert "this is the last page" in pages[-1]
    for page in (len(pages) + 1, 0):
        with pytest.raises(MCPError):
            await pubmed.read_resource(f"{body['overflow']['uri']}/{page}")


async def test_mesh_headings_keep_their_qualifiers_in_the_text(pubmed, fakes) -> None:
    body, text = await ok(pubmed, "fetchArticleDetails", {"pmids": fakes.eutils.pmids[:20]})
    qualified = [(term, article["pmid"]) for article in body["articles"] for term in article.get("meshTerms", [])
                 if term.get("qualifierName")]
    assert qualified
    for term, _ in qualified:
        shown = f"{term['descriptorName']}/{term['qualifierName']}" + ("*" if term["isMajorTopic"] else "")
        assert shown in text, shown


async def test_raw_records_over_the_budget_go_to_scratch(pubmed, fakes) -> None:
    pmids = fakes.eutils.pmids[:120]
    body, text = await ok(pubmed, "fetchArticleDetails", {"pmids": pmids, "detailLevel": "full_xml"})
    assert len(json.dumps(body, ensure_ascii=False)) <= 65_536 and len(text) > 0.8 * 65_536
    overflow = body["overflow"]
    assert overflow["mimeType"] == "application/xml" and overflow["pmids"]
    xml, _ = await read_whole(pubmed, overflow["uri"])
    assert xml.startswith("<PubmedArticleSet>") and xml.count("<PubmedArticle>") + xml.count(
        "<PubmedBookArticle>") == len(overflow["pmids"])


async def test_author_lists_are_capped_as_the_styles_do(pubmed) -> None:
    body, _ = await ok(pubmed, "getArticleRelationships", {
        "sourcePmid": MANY_AUTHORS, "relationshipType": "citation_formats",
        "citationStyles": ["apa_string", "vancouver", "mla_string", "ris"]})
    apa, vancouver, mla = (body["citations"][s] for s in ("apa_string", "vancouver", "mla_string"))
    assert apa.count(". . .") == 1 and len(apa) < 2000
    assert apa.split(", . . . ")[0].count("., ") == 18  # 19 authors, then the ellipsis, then the last
    assert ", et al." in vancouver and vancouver.split(", et al.")[0].count(", ") == 5
    assert ", et al." in mla and len(mla) < 1000
    assert body["citations"]["ris"].count("\nAU  - ") == 1004  # data formats keep every author


async def test_vancouver_style(pubmed) -> None:
    body, _ = await ok(pubmed, "getArticleRelationships", {
        "sourcePmid": SEMAGLUTIDE, "relationshipType": "citation_formats", "citationStyles": ["vancouver"]})
    assert body["citations"]["vancouver"] == (
        "Shi FH, Li H, Cui M, Zhang ZL, Gu ZC, Liu XY. Efficacy and Safety of Once-Weekly Semaglutide for the "
        "Treatment of Type 2 Diabetes: A Systematic Review and Meta-Analysis of Randomized Controlled Trials. "
        "Front Pharmacol. 2018;9:576. doi: 10.3389/fphar.2018.00576. PMID: 29915538.")


# ---- citations for many PMIDs -----------------------------------------------------------------------

async def test_format_citations_for_many_pmids_in_one_efetch(pubmed, fakes) -> None:
    pmids = fakes.eutils.pmids[:150] + ["99999999"]
    before = len(fakes.eutils.faults.log.to("efetch.fcgi"))
    body, text = await ok(pubmed, "formatCitations", {"pmids": pmids, "styles": ["vancouver", "apa_string"]})
    assert len(fakes.eutils.faults.log.to("efetch.fcgi")) == before + 1
    assert body["notFoundPmids"] == ["99999999"] and body["styles"] == ["vancouver", "apa_string"]
    cited = [entry["pmid"] for entry in body["citations"]]
    assert cited == pmids[: len(cited)] and len(json.dumps(body)) <= 65_536
    if "overflow" in body:
        assert cited + body["overflow"]["pmids"] == pmids[:150]
    first = body["citations"][0]["citations"]
    assert f"1. {first['vancouver']}" in text and first["apa_string"] in text
    bad = envelope_of(await pubmed.call_tool("formatCitations", {"pmids": ["1"] * 201}))
    assert bad["code"] == "VALIDATION"
    bad = envelope_of(await pubmed.call_tool("formatCitations", {"pmids": ["1"], "styles": ["harvard"]}))
    assert bad["code"] == "VALIDATION"


# ---- resources ---------------------------------------------------------------------------------------

async def test_resources_are_json_text_and_missing_ones_are_resource_errors(everything) -> None:
    info = (await everything.read_resource("pubmed-connect://info")).contents[0]
    assert isinstance(info, TextResourceContents) and info.mime_type == "application/json"
    body = json.loads(info.text)
    assert body["mcpSpecVersion"] == everything.session.protocol_version  # what this client negotiated
    templates = {t.uri_template for t in (await everything.list_resource_templates()).resource_templates}
    assert "bio-mcp://scratch/{scratch_id}" in templates
    for uri in ("bio-mcp://scratch/" + "0" * 64, "analyst://checkpoint/" + "0" * 64, "resource://pubmed/paper/1"):
        with pytest.raises(MCPError) as raised:
            await everything.read_resource(uri)
        assert raised.value.error.code == -32602  # the SDK's resource-not-found error


async def test_scratch_is_served_whatever_toolsets_are_enabled(pubmed) -> None:
    templates = {t.uri_template for t in (await pubmed.list_resource_templates()).resource_templates}
    assert templates == {"bio-mcp://scratch/{scratch_id}", "bio-mcp://scratch/{scratch_id}/{page}",
                         "bio-mcp://tools/{name}/schema"}


# ---- descriptions, hints, prompts --------------------------------------------------------------------

def _fields_without_description(schema: dict[str, Any]) -> list[str]:
    missing: list[str] = []
    objects = [("", schema)] + [(f"$defs.{name}", d) for name, d in schema.get("$defs", {}).items()]
    for where, obj in objects:
        for name, prop in obj.get("properties", {}).items():
            described = prop.get("description") or (
                "$ref" in prop and schema.get("$defs", {}).get(prop["$ref"].rsplit("/", 1)[-1], {}).get("description"))
            if not described or len(str(described)) < 12:
                missing.append(f"{where}.{name}" if where else name)
    return missing


async def test_every_input_field_has_a_description(everything) -> None:
    for tool in (await everything.list_tools()).tools:
        assert tool.description and len(tool.description) > 40, tool.name
        assert _fields_without_description(tool.input_schema) == [], tool.name


async def test_local_tools_are_not_open_world(everything) -> None:
    hints = {tool.name: tool.annotations.open_world_hint for tool in (await everything.list_tools()).tools}
    assert not any(hints[name] for name in ("rag_search", "rag_get", "corpus_checkpoint_get", "corpus_checkpoint_set"))
    assert all(hints[name] for name in ("searchPubMedArticles", "fetchArticleDetails", "pubmed_sync_delta", "analyst_ask"))


async def test_two_useful_prompts_naming_the_listed_tools(everything) -> None:
    prompts = {p.name: p for p in (await everything.list_prompts()).prompts}
    assert set(prompts) == {"literature_review_plan", "trial_landscape"}
    assert all(arg.description for p in prompts.values() for arg in p.arguments)
    review = await everything.get_prompt("literature_review_plan", {"topic": "semaglutide and heart failure"})
    text = review.messages[0].content.text
    assert "semaglutide and heart failure" in text and "`searchPubMedArticles`" in text
    assert "`formatCitations`" in text and "`rag_search`" in text and "rag.search" not in text
    landscape = await everything.get_prompt("trial_landscape", {"indication": "melanoma", "phases": "3"})
    assert "`analyst_ask`" in landscape.messages[0].content.text and "melanoma" in landscape.messages[0].content.text


async def test_prompts_only_name_tools_that_are_served(pubmed) -> None:
    assert [p.name for p in (await pubmed.list_prompts()).prompts] == ["literature_review_plan"]
    text = (await pubmed.get_prompt("literature_review_plan", {"topic": "asthma"})).messages[0].content.text
    assert "rag_search" not in text and "analyst" not in text


async def test_analyst_text_carries_the_whole_answer(fakes, bio_home) -> None:
    from bio_mcp.server.toolsets.analyst import build_analyst_toolset

    async with Runtime(settings_for(fakes)) as runtime:
        toolset = build_analyst_toolset(runtime.analyst, today=lambda: date(2026, 8, 11))
        async with Client(build_server([toolset], options=server_options(runtime))) as client:
            body, text = await ok(client, "analyst_ask", {"question": "active phase 2/3 trials in non-small cell lung cancer"})
            assert body["answer"].rstrip() in text and body["checkpoint_id"] in text
            assert all(step["id"] in text for step in body["trace"]["steps"])


async def test_a_tool_without_its_own_renderer_gets_every_field_as_markdown(pubmed) -> None:
    from bio_mcp.server.markdown import render_json

    body, _ = await ok(pubmed, "searchPubMedArticles", {"queryTerm": "asthma", "maxResults": 5, "fetchBriefSummaries": 5})
    text = render_json(body, "Search PubMed")
    assert text.startswith("## Search PubMed") and f"**totalFound**: {body['totalFound']}" in text
    assert all(pmid in text for pmid in body["pmids"])
    # A list of flat records is a table with a row per record.
    assert "| pmid | title |" in text and all(f"| {brief['pmid']} |" in text for brief in body["briefSummaries"])
