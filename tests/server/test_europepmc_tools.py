"""europepmc_search and europepmc_citations through a real MCP client, on the fake Europe PMC
serving the recorded answers: paging to the last page, filters, core abstracts, overflow, faults."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime
from bio_mcp.testing.faults import Fault
from tests.server.scratch_reading import read_whole

pytestmark = pytest.mark.anyio


def literature_settings(fakes, **env):
    return load_settings(
        NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, EUROPEPMC_BASE_URL=fakes.europepmc_base_url,
        NCBI_IDCONV_BASE_URL=fakes.idconv_base_url, UNPAYWALL_BASE_URL=fakes.unpaywall_base_url, **env,
    )


@pytest.fixture
async def gateway(fakes, bio_home):
    async with Runtime(literature_settings(fakes)) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        yield client


async def call(client: Client, tool: str, arguments: dict) -> tuple[dict, str]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.meta and "audit" in result.meta
    return result.structured_content, result.content[0].text


def envelope(result) -> dict:
    return (result.structured_content or {}).get("error") or json.loads(result.content[0].text)["error"]


async def test_the_tools_are_listed_with_schemas(gateway) -> None:
    tools = {tool.name: tool for tool in (await gateway.list_tools()).tools}
    for name in ("europepmc_search", "europepmc_citations"):
        assert tools[name].output_schema and tools[name].input_schema["properties"]
    assert "doi" in tools["fetchFullText"].input_schema["properties"]


async def test_search_lite_with_preprints_in_the_compact_shape(gateway, fakes) -> None:
    out, text = await call(gateway, "europepmc_search", {"query": "machine learning", "pageSize": 5})
    assert out["totalFound"] == 476039 and out["retrievedCount"] == 5 and out["effectiveQuery"] == "machine learning"
    preprints = [a for a in out["articles"] if a["isPreprint"]]
    assert [a["id"] for a in preprints] == ["PPR1048238", "PPR1029580"]
    assert preprints[0]["epmcSource"] == "PPR" and preprints[0]["source"] == "Preprints.org"
    assert {"pmid", "title", "authors", "source", "pubDate"} <= set(out["articles"][1])
    assert "476039 Europe PMC records" in text and "PPR:PPR1048238" in text and "preprint" in text
    [arrival] = fakes.literature.faults.log.to("/search")
    assert (arrival.param("resultType"), arrival.param("cursorMark"), arrival.param("format")) == ("lite", "*", "json")


async def test_preprint_and_open_access_filters_are_anded_to_the_query(gateway, fakes) -> None:
    out, _ = await call(gateway, "europepmc_search", {"query": "machine learning", "pageSize": 5, "preprintsOnly": True})
    assert out["effectiveQuery"] == "(machine learning) AND SRC:PPR"
    assert out["articles"] and all(a["epmcSource"] == "PPR" and a["isPreprint"] for a in out["articles"])
    out, _ = await call(gateway, "europepmc_search", {"query": "cancer", "openAccessOnly": True})
    assert out["effectiveQuery"] == "(cancer) AND OPEN_ACCESS:Y"
    assert out["articles"] and all(a["isOpenAccess"] for a in out["articles"])
    assert [a.param("query") for a in fakes.literature.faults.log.to("/search")] == [
        "(machine learning) AND SRC:PPR", "(cancer) AND OPEN_ACCESS:Y"]


async def test_cursor_paging_to_the_last_page(gateway, fakes) -> None:
    cursor, pages, ids = "*", 0, []
    while cursor is not None:
        out, text = await call(gateway, "europepmc_search", {"query": "cancer", "pageSize": 100, "cursor": cursor})
        pages += 1
        ids += [a["id"] for a in out["articles"]]
        cursor = out.get("nextCursor")
        assert pages <= 10
    assert pages == 10 and len(ids) == 1000 and "This is the last page." in text
    cursors = [a.param("cursorMark") for a in fakes.literature.faults.log.to("/search")]
    assert cursors[0] == "*" and cursors[1] == "AoIIP4T93Cg1MzE0OTUzNA==" and len(set(cursors)) == 10


async def test_core_results_carry_abstracts_and_overflow_past_the_budget(fakes, bio_home) -> None:
    settings = literature_settings(fakes, BIO_MCP_TEXT_BUDGET=20_000)
    async with Runtime(settings) as runtime, Client(
        build_server(build_toolsets(runtime, ["pubmed"]), options=server_options(runtime))
    ) as client:
        out, text = await call(client, "europepmc_search", {"query": "cancer", "resultType": "core"})
        assert out["retrievedCount"] == 25 and any(a.get("abstract") for a in out["articles"])
        overflow = out["overflow"]
        assert len(out["articles"]) + len(overflow["pmids"]) == 25 and overflow["uri"].startswith("bio-mcp://scratch/")
        assert len(text) < 20_000 and "did not fit the result budget" in text
        spilled, _ = await read_whole(client, overflow["uri"])
        assert [a["id"] for a in json.loads(spilled)] == overflow["pmids"]


async def test_citations_and_references_with_paging(gateway) -> None:
    out, text = await call(gateway, "europepmc_citations", {"id": "34308300"})
    assert (out["totalFound"], out["retrievedCount"], out["nextPage"]) == (1741, 25, 2)
    assert any(a["isPreprint"] for a in out["articles"]) and "1741 works citing MED:34308300" in text
    out, _ = await call(gateway, "europepmc_citations", {"id": "34308300", "direction": "references"})
    assert (out["totalFound"], out["retrievedCount"], out["nextPage"]) == (30, 25, 2)
    assert out["articles"][0]["pmid"] == "32150622"
    out, _ = await call(gateway, "europepmc_citations", {"id": "99999999", "direction": "references"})
    assert (out["totalFound"], out["articles"]) == (0, []) and "nextPage" not in out


async def test_an_empty_search_is_zero_not_an_error(gateway) -> None:
    out, text = await call(gateway, "europepmc_search", {"query": "asdkfjhasdkfjhasdfasdasdasdfgsagsd"})
    assert (out["totalFound"], out["articles"]) == (0, []) and "nextCursor" not in out
    assert text.startswith("**0 Europe PMC records**")


async def test_repeated_calls_are_answered_from_the_cache(gateway, fakes) -> None:
    for _ in range(2):
        await call(gateway, "europepmc_citations", {"id": "34308300"})
    assert len(fakes.literature.faults.log.to("/citations")) == 1


async def test_a_503_is_retried_then_answered(gateway, fakes) -> None:
    fakes.literature.inject(Fault.http_status(503), path="/search")
    out, _ = await call(gateway, "europepmc_search", {"query": "machine learning", "pageSize": 5})
    assert out["totalFound"] == 476039
    assert [a.status for a in fakes.literature.faults.log.to("/search")] == [503, 200]


@pytest.mark.parametrize(("fault", "code"), [
    (Fault(name="rate_limited", status=429, body=b"Too Many Requests"), "RATE_LIMIT"),
    (Fault.http_status(502), "UPSTREAM"),
    (Fault.slow(2.0), "UPSTREAM"),
])
async def test_outages_are_reported_as_outages(fakes, bio_home, fault, code) -> None:
    settings = literature_settings(fakes, EUROPEPMC_MAX_RETRIES=1, EUROPEPMC_TIMEOUT_S=1.5,
                                   EUROPEPMC_ATTEMPT_TIMEOUT_S=0.5)
    fakes.literature.inject(fault, times=None, path="/search")
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        result = await client.call_tool("europepmc_search", {"query": "cancer"})
    assert result.is_error
    error = envelope(result)
    assert error["code"] == code and "europepmc" in error["message"]


async def test_bad_input_is_validation(gateway) -> None:
    for tool, arguments in (("europepmc_search", {"query": " "}), ("europepmc_search", {"query": "x", "pageSize": 0}),
                            ("europepmc_citations", {"id": "34308300", "direction": "sideways"})):
        result = await gateway.call_tool(tool, arguments)
        assert result.is_error and envelope(result)["code"] == "VALIDATION"


async def test_a_long_query_goes_by_post_to_search_post(gateway, fakes) -> None:
    query = " OR ".join(f'"term number {n}"' for n in range(90))
    out, _ = await call(gateway, "europepmc_search", {"query": query})
    assert out["totalFound"] == 0 and out["searchUrl"].split("?")[0].endswith("/searchPOST")
    [arrival] = fakes.literature.faults.log.to("/searchPOST")
    assert arrival.method == "POST" and arrival.param("query") == query
