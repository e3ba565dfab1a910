"""getArticleRelationships answers an unknown PMID alike for all four relationship types (NOT_FOUND),
and a known PMID without links with an empty list; against the fake E-utilities over real records."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio

TYPES = ["pubmed_similar_articles", "pubmed_citedin", "pubmed_references", "citation_formats"]
UNKNOWN = "99999999"


@pytest.fixture
async def gateway(fakes, bio_home):
    settings = load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url)
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        yield client


def envelope(result) -> dict:
    return (result.structured_content or {}).get("error") or json.loads(result.content[0].text)["error"]


@pytest.mark.parametrize("relationship", TYPES)
async def test_unknown_pmid_is_not_found_for_every_type(gateway, fakes, relationship) -> None:
    assert UNKNOWN not in fakes.eutils.records
    result = await gateway.call_tool(
        "getArticleRelationships", {"sourcePmid": UNKNOWN, "relationshipType": relationship}
    )
    assert result.is_error
    error = envelope(result)
    assert error["code"] == "NOT_FOUND" and error["message"] == f"PMID {UNKNOWN} was not found in PubMed"
    assert error["details"] == {"sourcePmid": UNKNOWN}


@pytest.mark.parametrize("relationship", ["pubmed_citedin", "pubmed_references"])
async def test_known_pmid_without_links_is_an_empty_result(gateway, fakes, relationship) -> None:
    pmid = next(
        p for p in fakes.eutils.pmids
        if not fakes.eutils.index.cited_by.get(p) and not fakes.eutils.record(p).article.references
    )
    result = await gateway.call_tool(
        "getArticleRelationships", {"sourcePmid": pmid, "relationshipType": relationship}
    )
    assert not result.is_error, result.content
    assert result.structured_content["relatedArticles"] == [] and result.structured_content["retrievedCount"] == 0


async def test_a_pmid_with_links_costs_no_existence_check(gateway, fakes) -> None:
    pmid = next(p for p in fakes.eutils.pmids if fakes.eutils.index.cited_by.get(p))
    result = await gateway.call_tool(
        "getArticleRelationships", {"sourcePmid": pmid, "relationshipType": "pubmed_citedin", "maxRelatedResults": 1}
    )
    assert not result.is_error and result.structured_content["retrievedCount"] == 1
    summaries = fakes.eutils.faults.log.to("esummary.fcgi")
    assert [request.param("id") for request in summaries] == [result.structured_content["relatedArticles"][0]["pmid"]]
