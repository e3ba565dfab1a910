"""The pubmed toolset's schemas are seed 001's contracts, and bad input becomes the VALIDATION envelope."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio

ERROR_ENVELOPE = {  # seed 000, "Error Envelope (all tools/resources)"
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "enum": ["RATE_LIMIT", "UPSTREAM", "VALIDATION", "NOT_FOUND",
                                                   "INVARIANT_FAILURE", "STORE", "EMBEDDINGS", "WEAVIATE",
                                                   "ENTREZ", "UNKNOWN"]},
                "message": {"type": "string"},
                "details": {"type": ["object", "array", "string", "null"]},
            },
            "additionalProperties": False,
        }
    },
    "additionalProperties": False,
}
AUDIT = {
    "type": "object",
    "required": ["in_hash", "out_hash", "latency_ms", "seed", "status"],
    "properties": {"in_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                   "out_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                   "latency_ms": {"type": "integer", "minimum": 0}, "seed": {"type": "integer"},
                   "status": {"enum": ["ok", "error"]}},
}


@pytest.fixture
async def client(bio_home):
    settings = load_settings(NCBI_EUTILS_BASE_URL="http://127.0.0.1:9/entrez/eutils", NCBI_MAX_RETRIES=0,
                             NCBI_TIMEOUT_S=2)
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as c:
        yield c


def prop(schema: dict[str, Any], name: str) -> dict[str, Any]:
    value = schema["properties"][name]
    if "anyOf" in value:  # optional fields: the non-null branch carries the constraints
        merged = {k: v for k, v in value.items() if k != "anyOf"}
        for branch in value["anyOf"]:
            if branch.get("type") != "null":
                merged.update(branch)
        return merged
    return value


async def test_tool_and_resource_names(client: Client) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    # formatCitations, fetchFullText, lookupMeshTerms, the Europe PMC tools and PubTator3's are additive.
    assert tools == {
        "searchPubMedArticles", "fetchArticleDetails", "getArticleRelationships", "formatCitations", "fetchFullText",
        "lookupMeshTerms", "europepmc_search", "europepmc_citations", "pubtator_annotations",
    }
    resources = {str(r.uri) for r in (await client.list_resources()).resources}
    assert resources == {"pubmed-connect://info", "pubmed-connect://stats/pubmed"}


async def test_search_input_schema_matches_seed(client: Client) -> None:
    schema = next(t for t in (await client.list_tools()).tools if t.name == "searchPubMedArticles").input_schema
    assert schema["required"] == ["queryTerm"]
    assert prop(schema, "queryTerm")["minLength"] == 3
    assert prop(schema, "maxResults")["default"] == 20 and prop(schema, "maxResults")["maximum"] == 1000
    assert prop(schema, "sortBy")["enum"] == ["relevance", "pub_date", "author", "journal_name"]
    assert prop(schema, "sortBy")["default"] == "relevance"
    assert prop(schema, "fetchBriefSummaries")["maximum"] == 100
    assert prop(schema, "fetchBriefSummaries")["default"] == 0
    # retStart is the one additive optional parameter (paging), allowed by the seed's versioning policy.
    assert set(schema["properties"]) == {"queryTerm", "maxResults", "sortBy", "dateRange",
                                         "filterByPublicationTypes", "fetchBriefSummaries", "retStart"}
    assert prop(schema, "retStart")["default"] == 0 and prop(schema, "retStart")["maximum"] == 9998


async def test_details_and_relationships_input_schemas_match_seed(client: Client) -> None:
    tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    details = tools["fetchArticleDetails"]
    assert details["required"] == ["pmids"]
    assert prop(details, "pmids")["minItems"] == 1 and prop(details, "pmids")["maxItems"] == 200
    assert prop(details, "detailLevel")["enum"] == ["abstract_plus", "full_xml", "medline_text", "citation_data"]
    assert prop(details, "includeMeshTerms")["default"] is True
    assert prop(details, "includeGrantInfo")["default"] is False
    rel = tools["getArticleRelationships"]
    assert rel["required"] == ["sourcePmid"]
    assert prop(rel, "relationshipType")["enum"] == [
        "pubmed_similar_articles", "pubmed_citedin", "pubmed_references", "citation_formats"]
    assert prop(rel, "maxRelatedResults")["default"] == 5 and prop(rel, "maxRelatedResults")["maximum"] == 50
    assert prop(rel, "citationStyles")["default"] == ["ris"]
    assert set(prop(rel, "citationStyles")["items"]["enum"]) == {"ris", "bibtex", "apa_string", "mla_string", "vancouver"}


@pytest.mark.parametrize(
    ("tool", "arguments", "bad_field"),
    [
        ("searchPubMedArticles", {"queryTerm": "ab"}, "queryTerm"),
        ("searchPubMedArticles", {"queryTerm": "cancer", "maxResults": 1001}, "maxResults"),
        ("searchPubMedArticles", {"queryTerm": "cancer", "sortBy": "title"}, "sortBy"),
        ("searchPubMedArticles", {"queryTerm": "cancer", "dateRange": {"minDate": "2020-01-01"}}, "dateRange.minDate"),
        ("fetchArticleDetails", {"pmids": []}, "pmids"),
        ("fetchArticleDetails", {"pmids": ["12a"]}, "pmids.0"),
        ("fetchArticleDetails", {"pmids": [str(i) for i in range(1, 202)]}, "pmids"),
        ("getArticleRelationships", {"sourcePmid": "123", "maxRelatedResults": 0}, "maxRelatedResults"),
        ("getArticleRelationships", {"sourcePmid": "x"}, "sourcePmid"),
    ],
)
async def test_bad_input_gives_validation_envelope(client: Client, tool: str, arguments: dict, bad_field: str) -> None:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert result.structured_content is None
    jsonschema.validate(json.loads(result.content[0].text), ERROR_ENVELOPE)
    assert result.meta["error"]["code"] == "VALIDATION"
    assert bad_field in {d["loc"] for d in result.meta["error"]["details"]}
    jsonschema.validate(result.meta["audit"], AUDIT)
    assert result.meta["audit"]["status"] == "error"
    assert "Traceback" not in result.content[0].text


async def test_unreachable_ncbi_gives_upstream_envelope_not_a_trace(client: Client) -> None:
    result = await client.call_tool("searchPubMedArticles", {"queryTerm": "asthma", "sortBy": "", "maxResults": ""})
    assert result.is_error
    assert result.structured_content is None
    jsonschema.validate(json.loads(result.content[0].text), ERROR_ENVELOPE)
    assert result.meta["error"]["code"] == "UPSTREAM"
    assert "Traceback" not in result.content[0].text
