"""searchPubMedArticles says what it did to a query, pages with retStart, refuses impossible dates and
offers NCBI ESpell's correction when nothing matched; against the fake E-utilities over real records."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
async def gateway(fakes, bio_home):
    settings = load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url)
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        yield client


async def search(client: Client, arguments: dict) -> tuple[dict, str]:
    result = await client.call_tool("searchPubMedArticles", arguments)
    assert not result.is_error, result.content
    return result.structured_content, result.content[0].text


async def error_of(client: Client, arguments: dict) -> dict:
    result = await client.call_tool("searchPubMedArticles", arguments)
    assert result.is_error
    envelope = (result.structured_content or {}).get("error") or json.loads(result.content[0].text)["error"]
    return envelope


async def test_a_repaired_query_says_what_was_changed(gateway) -> None:
    out, text = await search(gateway, {"queryTerm": "cancer))) OR (("})
    assert out["effectiveESearchTerm"] == "cancer"
    repair = out["queryRepair"]
    assert repair["original"] == "cancer))) OR ((" and repair["repaired"] == "cancer"
    assert "3 unmatched ')'" in repair["note"] and "OR" in repair["note"]
    assert "Query repaired" in text and "cancer))) OR ((" in text


async def test_a_query_that_parses_carries_no_repair_note(gateway) -> None:
    out, text = await search(gateway, {"queryTerm": "(asthma OR copd)  AND  children"})
    assert "queryRepair" not in out and "repaired" not in text


@pytest.mark.parametrize(
    ("dates", "words"),
    [
        ({"minDate": "2020", "maxDate": "2019"}, "after"),
        ({"minDate": "2020/13"}, "month 13"),
        ({"maxDate": "2021/02/30"}, "day 30"),
        ({"minDate": "2019/04/32"}, "day 32"),
        ({"minDate": "2020/06/15", "maxDate": "2020/06/14", "dateType": "edat"}, "after"),
    ],
)
async def test_an_impossible_date_range_is_a_validation_error(gateway, dates, words) -> None:
    error = await error_of(gateway, {"queryTerm": "asthma", "dateRange": dates})
    assert error["code"] == "VALIDATION"
    assert words in json.dumps(error)


async def test_possible_partial_date_ranges_are_accepted(gateway) -> None:
    out, _ = await search(gateway, {"queryTerm": "asthma", "dateRange": {"minDate": "2020/02", "maxDate": "2020"}})
    assert out["effectiveESearchTerm"].startswith("(asthma) AND (")
    leap, _ = await search(gateway, {"queryTerm": "asthma", "dateRange": {"maxDate": "2020/02/29"}})
    assert leap["effectiveESearchTerm"].endswith('"2020/02/29"[pdat])')


async def test_retstart_pages_through_the_whole_result_without_gaps_or_repeats(gateway, fakes) -> None:
    first, text = await search(gateway, {"queryTerm": "cancer", "maxResults": 7})
    total = first["totalFound"]
    assert total > 14 and first["nextRetStart"] == 7 and "retStart=7" in text
    pages = [first["pmids"]]
    start = first["nextRetStart"]
    while start is not None:
        page, _ = await search(gateway, {"queryTerm": "cancer", "maxResults": 7, "retStart": start})
        assert page["searchParameters"]["retStart"] == start
        pages.append(page["pmids"])
        start = page.get("nextRetStart")
    paged = [pmid for page in pages for pmid in page]
    everything, _ = await search(gateway, {"queryTerm": "cancer", "maxResults": 1000})
    assert paged == everything["pmids"] and len(paged) == total
    assert "nextRetStart" not in everything
    sent = [request.param("retstart") for request in fakes.eutils.faults.log.to("esearch.fcgi")]
    assert sent[:3] == ["0", "7", "14"]


async def test_brief_summaries_follow_the_page(gateway) -> None:
    page, _ = await search(gateway, {"queryTerm": "cancer", "maxResults": 3, "retStart": 3, "fetchBriefSummaries": 3})
    assert [brief["pmid"] for brief in page["briefSummaries"]] == page["pmids"]


async def test_retstart_is_bounded_by_pubmeds_result_window(gateway) -> None:
    error = await error_of(gateway, {"queryTerm": "cancer", "retStart": 9999})
    assert error["code"] == "VALIDATION"


async def test_nothing_found_offers_espells_correction(gateway, fakes) -> None:
    out, text = await search(gateway, {"queryTerm": "semaglutde"})
    assert out["totalFound"] == 0 and out["pmids"] == []
    assert out["spellingSuggestion"] == "semaglutide"
    assert "Did you mean" in text and "espell.fcgi" in out["eSpellUrl"]
    again, _ = await search(gateway, {"queryTerm": out["spellingSuggestion"]})
    assert again["totalFound"] > 0
    spelled = fakes.eutils.faults.log.to("espell.fcgi")
    assert len(spelled) == 1 and spelled[0].param("tool")


async def test_a_search_that_finds_something_does_not_ask_espell(gateway, fakes) -> None:
    out, _ = await search(gateway, {"queryTerm": "asthma"})
    assert out["totalFound"] > 0 and "spellingSuggestion" not in out
    assert fakes.eutils.faults.log.to("espell.fcgi") == []


async def test_no_suggestion_when_espell_has_none(gateway) -> None:
    out, _ = await search(gateway, {"queryTerm": "asthma AND zzzzzzzzzzzzqqq"})
    assert out["totalFound"] == 0 and "spellingSuggestion" not in out


@pytest.fixture
async def fragile_gateway(fakes, bio_home):
    settings = load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, NCBI_MAX_RETRIES=0)
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        yield client


async def test_a_failed_esummary_keeps_the_pmids_and_says_what_failed(fragile_gateway, fakes) -> None:
    fakes.eutils.inject(fakes.eutils.server_error(503), times=None, path="esummary.fcgi")
    out, text = await search(fragile_gateway, {"queryTerm": "asthma", "maxResults": 5, "fetchBriefSummaries": 3})
    assert out["pmids"] and out["briefSummaries"] == []
    [warning] = [w for w in out["warnings"] if "ESummary" in w]
    assert warning.startswith("NCBI ESummary failed (UPSTREAM:") and "503" in warning
    assert "brief summaries are missing" in warning and "ESummary failed" in text


async def test_a_failed_espell_does_not_fail_the_search(fragile_gateway, fakes) -> None:
    fakes.eutils.inject(fakes.eutils.server_error(502), times=None, path="espell.fcgi")
    out, _ = await search(fragile_gateway, {"queryTerm": "semaglutde"})
    assert out["totalFound"] == 0 and "spellingSuggestion" not in out
    assert any(w.startswith("NCBI ESpell failed (UPSTREAM:") for w in out["warnings"])


async def test_a_failed_esearch_is_an_upstream_error_not_an_empty_result(fragile_gateway, fakes) -> None:
    fakes.eutils.inject(fakes.eutils.server_error(503), times=None, path="esearch.fcgi")
    error = await error_of(fragile_gateway, {"queryTerm": "asthma"})
    assert error["code"] == "UPSTREAM"


async def test_related_articles_without_titles_say_why(fragile_gateway, fakes) -> None:
    pmid = next(p for p in fakes.eutils.pmids if fakes.eutils.index.cited_by.get(p))
    fakes.eutils.inject(fakes.eutils.server_error(503), times=None, path="esummary.fcgi")
    result = await fragile_gateway.call_tool(
        "getArticleRelationships", {"sourcePmid": pmid, "relationshipType": "pubmed_citedin"}
    )
    assert not result.is_error
    out = result.structured_content
    assert out["relatedArticles"] and all("title" not in article for article in out["relatedArticles"])
    assert out["warnings"][0].startswith("NCBI ESummary failed") and "titles and authors are missing" in out["warnings"][0]
