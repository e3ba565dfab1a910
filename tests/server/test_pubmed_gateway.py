"""The PubMed gateway end to end through a real MCP client session, against the fake E-utilities
server that serves real recorded records."""

from __future__ import annotations

import json

import jsonschema
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime
from tests.server.scratch_reading import read_whole

pytestmark = pytest.mark.anyio

SEMAGLUTIDE = "29915538"  # real record: structured abstract, systematic review and meta-analysis


@pytest.fixture
async def gateway(fakes, bio_home):
    settings = load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, NCBI_ADMIN_EMAIL="ops@example.org")
    async with Runtime(settings) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]), options=server_options(runtime))) as client:
            yield client


async def call(client: Client, name: str, arguments: dict) -> dict:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.structured_content
    tool = next(t for t in (await client.list_tools()).tools if t.name == name)
    jsonschema.validate(result.structured_content, tool.output_schema)
    assert len(result.content[0].text) <= 65_536
    assert result.meta["audit"]["status"] == "ok"
    return result.structured_content


async def test_search_with_brief_summaries_uses_the_history_server(gateway, fakes) -> None:
    out = await call(gateway, "searchPubMedArticles", {"queryTerm": "asthma", "maxResults": 5, "fetchBriefSummaries": 2})
    assert out["totalFound"] >= 2 and out["retrievedPmidCount"] == len(out["pmids"]) <= 5
    assert [b["pmid"] for b in out["briefSummaries"]] == out["pmids"][:2]
    assert all(b["title"] and b["source"] for b in out["briefSummaries"])
    assert "usehistory=y" in out["eSearchUrl"] and "WebEnv=" in out["eSummaryUrl"]
    summary_request = fakes.eutils.faults.log.to("esummary.fcgi")[-1]
    assert summary_request.param("WebEnv") and summary_request.param("query_key")
    sent = fakes.eutils.faults.log.to("esearch.fcgi")[-1]
    assert sent.param("tool").startswith("bio-mcp/") and sent.param("email") == "ops@example.org"


async def test_search_filters_become_entrez_syntax_and_empty_optionals_are_absent(gateway) -> None:
    out = await call(gateway, "searchPubMedArticles", {
        "queryTerm": "semaglutide", "sortBy": "", "maxResults": "", "filterByPublicationTypes": ["Journal Article"],
        "dateRange": {"minDate": "2018", "maxDate": "2018/12/31", "dateType": "pdat"},
    })
    assert out["effectiveESearchTerm"] == (
        '(semaglutide) AND ("2018"[pdat] : "2018/12/31"[pdat]) AND ("Journal Article"[Publication Type])'
    )
    assert SEMAGLUTIDE in out["pmids"]
    assert out["searchParameters"]["maxResults"] == 20 and out["searchParameters"]["sortBy"] == "relevance"
    empty = await call(gateway, "searchPubMedArticles", {"queryTerm": "semaglutide", "dateRange": {"minDate": ""}})
    assert empty["effectiveESearchTerm"] == "semaglutide"


async def test_hostile_query_cannot_break_the_expression(gateway) -> None:
    out = await call(gateway, "searchPubMedArticles", {
        "queryTerm": 'semaglutide) OR ("', "filterByPublicationTypes": ['Review"[pt] OR "x'],
    })
    term = out["effectiveESearchTerm"]
    assert term.count("(") == term.count(")") and term.count('"') % 2 == 0
    assert term.startswith("(semaglutide) AND (")


async def test_fetch_details_abstract_plus_fields(gateway) -> None:
    out = await call(gateway, "fetchArticleDetails", {"pmids": [SEMAGLUTIDE, "1"], "includeGrantInfo": True})
    assert out["notFoundPmids"] == [] and out["eFetchDetails"]["requestMethod"] == "GET"
    article = next(a for a in out["articles"] if a["pmid"] == SEMAGLUTIDE)
    assert article["title"].startswith("Efficacy and Safety of Once-Weekly Semaglutide")
    assert article["abstractText"].startswith("Background: Semaglutide")
    assert article["authors"][0]["lastName"] == "Shi" and article["authors"][0]["initials"] == "FH"
    assert article["journalInfo"]["isoAbbreviation"] == "Front Pharmacol"
    assert article["journalInfo"]["publicationDate"]["year"] == 2018
    assert article["publicationTypes"] == ["Journal Article"]
    assert article["doi"] == "10.3389/fphar.2018.00576"


async def test_fetch_details_other_levels_and_not_found(gateway) -> None:
    missing = "99999999"
    medline = await call(gateway, "fetchArticleDetails", {"pmids": [SEMAGLUTIDE, missing], "detailLevel": "medline_text"})
    assert medline["notFoundPmids"] == [missing]
    assert medline["articles"][0]["content"].startswith(f"PMID- {SEMAGLUTIDE}")
    xml = await call(gateway, "fetchArticleDetails", {"pmids": [SEMAGLUTIDE], "detailLevel": "full_xml"})
    assert xml["articles"][0]["content"].startswith("<PubmedArticle")
    cite = await call(gateway, "fetchArticleDetails", {"pmids": [SEMAGLUTIDE], "detailLevel": "citation_data",
                                                       "includeMeshTerms": False})
    assert set(cite["articles"][0]) <= {"pmid", "title", "authors", "journalInfo", "publicationTypes", "doi", "pmcid"}


async def test_long_pmid_lists_go_by_post(gateway, fakes) -> None:
    pmids = fakes.eutils.pmids[:200]
    out = await call(gateway, "fetchArticleDetails", {"pmids": pmids, "detailLevel": "citation_data"})
    assert out["eFetchDetails"]["requestMethod"] == "POST" and out["notFoundPmids"] == []
    assert all(set(author) <= {"lastName", "firstName", "initials", "suffix", "collectiveName", "orcid"}
               for article in out["articles"] for author in article["authors"])
    # What does not fit the budget is in a scratch text, in order, and nothing is lost.
    kept = [a["pmid"] for a in out["articles"]]
    overflow = out.get("overflow")
    rest = json.loads((await read_whole(gateway, overflow["uri"]))[0]) if overflow else []
    assert kept + [a["pmid"] for a in rest] == pmids and (overflow is None or overflow["pmids"] == pmids[len(kept):])


async def test_relationships_similar_citedin_references(gateway, fakes) -> None:
    similar = await call(gateway, "getArticleRelationships", {"sourcePmid": SEMAGLUTIDE, "maxRelatedResults": 3})
    assert 0 < similar["retrievedCount"] <= 3
    scores = [a["score"] for a in similar["relatedArticles"]]
    assert scores == sorted(scores, reverse=True) and scores[0] == 1.0
    assert all(a["linkUrl"] == f"https://pubmed.ncbi.nlm.nih.gov/{a['pmid']}/" for a in similar["relatedArticles"])
    refs = await call(gateway, "getArticleRelationships",
                      {"sourcePmid": SEMAGLUTIDE, "relationshipType": "pubmed_references", "maxRelatedResults": 50})
    assert refs["retrievedCount"] > 0
    cited = await call(gateway, "getArticleRelationships",
                       {"sourcePmid": SEMAGLUTIDE, "relationshipType": "pubmed_citedin"})
    assert cited["relatedArticles"] == [] or all(a["pmid"] != SEMAGLUTIDE for a in cited["relatedArticles"])


async def test_citation_formats(gateway) -> None:
    out = await call(gateway, "getArticleRelationships", {
        "sourcePmid": SEMAGLUTIDE, "relationshipType": "citation_formats",
        "citationStyles": ["ris", "bibtex", "apa_string", "mla_string"],
    })
    c = out["citations"]
    assert c["ris"].startswith("TY  - JOUR\nAU  - Shi, Fang-Hong") and "DO  - 10.3389/fphar.2018.00576" in c["ris"]
    assert c["ris"].rstrip().endswith("ER  -")
    assert c["bibtex"].startswith("@article{Shi2018") and "doi = {10.3389/fphar.2018.00576}" in c["bibtex"]
    assert c["apa_string"].startswith("Shi, F. H.,") and "(2018)" in c["apa_string"] and "*Frontiers in pharmacology*" in c["apa_string"]
    assert c["mla_string"].startswith("Shi, Fang-Hong, et al.")


async def test_citation_formats_for_unknown_pmid_is_not_found(gateway) -> None:
    result = await gateway.call_tool("getArticleRelationships",
                                     {"sourcePmid": "99999999", "relationshipType": "citation_formats"})
    assert result.is_error and result.structured_content is None
    assert json.loads(result.content[0].text)["error"]["code"] == "NOT_FOUND" == result.meta["error"]["code"]


async def test_resources_info_and_stats(gateway) -> None:
    await call(gateway, "searchPubMedArticles", {"queryTerm": "asthma"})
    info = json.loads((await gateway.read_resource("pubmed-connect://info")).contents[0].text)
    assert info["supportedEutilities"] == ["ESearch", "EFetch", "ESummary", "ELink", "EInfo", "ESpell"]
    # With nothing set, the MeSH the package ships is found (tests/test_mesh_files.py covers the other places).
    assert info["mesh"]["source"] == "package" and info["mesh"]["warning"] is None
    assert info["ncbiCompliance"]["toolIdentifier"].startswith("bio-mcp/")
    assert info["operationalStatus"]["ncbiStatus"] == "Nominal"
    stats = json.loads((await gateway.read_resource("pubmed-connect://stats/pubmed")).contents[0].text)
    assert stats["databaseName"] == "pubmed" and stats["totalRecordCount"] > 1_000_000
    names = {f["name"] for f in stats["availableSearchFields"]}
    assert {"ALL", "UID", "EDAT"} <= names
    assert any(link["name"] == "pubmed_pubmed_refs" for link in stats["availableLinkNames"])
