"""fetchFullText by the best route: PubMed Central first, then Europe PMC's fullTextXML, then
Unpaywall's open-access location; a typed reason when there is no text; an outage as an outage.
All on the fakes serving the recorded PMC, Europe PMC, ID Converter and Unpaywall answers."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.testing.faults import Fault
from tests.server.test_europepmc_tools import literature_settings

pytestmark = pytest.mark.anyio


@pytest.fixture
async def gateway(fakes, bio_home):
    settings = literature_settings(fakes, NCBI_ADMIN_EMAIL="tests@example.org")
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        yield client


def error_of(result) -> dict:
    assert result.is_error
    return (result.structured_content or {}).get("error") or json.loads(result.content[0].text)["error"]


def routes(fakes) -> list[str]:
    """The upstream paths asked, in order, across the fakes."""
    arrivals = [*fakes.eutils.faults.log.arrivals, *fakes.literature.faults.log.arrivals]
    return [a.path.rsplit("/", 2)[-2] + "/" + a.path.rsplit("/", 1)[-1] for a in sorted(arrivals, key=lambda a: a.monotonic)]


async def test_pmc_answers_first_and_nothing_else_is_asked(gateway, fakes) -> None:
    result = await gateway.call_tool("fetchFullText", {"pmcid": "PMC3040717"})
    out = result.structured_content
    assert out["textSource"] == "pmc" and out["tried"] == [] and "efetch.fcgi" in out["eFetchUrl"]
    assert fakes.literature.faults.log.arrivals == []


async def test_europepmc_answers_what_pmc_does_not_serve(gateway, fakes) -> None:
    result = await gateway.call_tool("fetchFullText", {"pmcid": "PMC8118396"})
    assert not result.is_error, result.content
    out, text = result.structured_content, result.content[0].text
    assert (out["textSource"], out["pmcid"], out["doi"]) == ("europepmc", "PMC8118396", "10.1080/23802359.2021.1911705")
    assert out["tried"] == ["PubMed Central: EFetch has no text for PMC8118396"]
    assert out["eFetchUrl"].endswith("/PMC8118396/fullTextXML") and len(out["sections"]) == 3
    assert "text from Europe PMC" in text and "## Abstract" in text
    # The record gives no PMID: the line leaves it out rather than print "PMID ?".
    assert out.get("pmid") is None and "PMID" not in text.splitlines()[1]
    assert routes(fakes) == ["eutils/efetch.fcgi", "PMC8118396/fullTextXML"]


async def test_a_doi_is_mapped_by_the_id_converter_then_every_route_is_tried(gateway, fakes) -> None:
    error = error_of(await gateway.call_tool("fetchFullText", {"doi": "10.1038/ng.590"}))
    details = error["details"]
    assert error["code"] == "NOT_FOUND" and details["reason"] == "not_open_access"
    assert (details["pmid"], details["pmcid"]) == ("20495566", "PMC2883744")
    assert [line.split(":")[0] for line in details["tried"]] == ["PubMed Central", "Europe PMC fullTextXML", "Unpaywall"]
    assert "fetchArticleDetails" in error["message"]
    assert routes(fakes) == ["v1.0/", "eutils/efetch.fcgi", "PMC2883744/fullTextXML", "10.1038/ng.590"]
    [idconv] = fakes.literature.faults.log.to("v1.0/")
    assert idconv.param("ids") == "10.1038/ng.590" and idconv.param("format") == "json" and idconv.param("tool")


async def test_an_open_access_copy_elsewhere_is_named_with_unpaywalls_location(gateway, fakes) -> None:
    error = error_of(await gateway.call_tool("fetchFullText", {"doi": "https://doi.org/10.1016/j.xgen.2025.100814"}))
    details = error["details"]
    assert error["code"] == "NOT_FOUND" and details["reason"] == "open_access_elsewhere"
    location = details["openAccessLocation"]
    assert (location["url"], location["license"], location["version"]) == (
        "https://doi.org/10.1016/j.xgen.2025.100814", "cc-by", "publishedVersion")
    assert "https://doi.org/10.1016/j.xgen.2025.100814" in error["message"]
    [lookup] = fakes.literature.faults.log.to("j.xgen.2025.100814")
    assert lookup.param("email") == "tests@example.org"


async def test_a_closed_article_says_not_open_access(gateway) -> None:
    error = error_of(await gateway.call_tool("fetchFullText", {"doi": "10.1007/s40278-023-41815-2"}))
    assert error["details"]["reason"] == "not_open_access" and "Unpaywall: closed" in error["message"]


async def test_an_unknown_doi_is_not_found(gateway) -> None:
    error = error_of(await gateway.call_tool("fetchFullText", {"doi": "10.9999/no.such.paper"}))
    assert (error["code"], error["details"]["reason"]) == ("NOT_FOUND", "not_found")


async def test_a_pmid_outside_pmc_looks_up_its_doi_in_europepmc(gateway, fakes) -> None:
    pmid = fakes.eutils.pmids[0]
    error = error_of(await gateway.call_tool("fetchFullText", {"pmid": pmid}))
    assert error["code"] == "NOT_FOUND" and "fetchArticleDetails" in error["message"]
    assert error["details"]["reason"] == "no_pmc_record"
    [lookup] = fakes.literature.faults.log.to("/search")
    assert lookup.param("query") == f"EXT_ID:{pmid} AND SRC:MED"


async def test_without_an_email_unpaywall_is_not_asked(fakes, bio_home) -> None:
    async with Runtime(literature_settings(fakes)) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        error = error_of(await client.call_tool("fetchFullText", {"doi": "10.1016/j.xgen.2025.100814"}))
    assert error["details"]["reason"] == "no_pmc_record"
    assert any("UNPAYWALL_EMAIL" in line for line in error["details"]["tried"])
    assert fakes.literature.faults.log.to("j.xgen.2025.100814") == []


async def test_a_europepmc_outage_is_an_outage_not_no_text(fakes, bio_home) -> None:
    settings = literature_settings(fakes, NCBI_ADMIN_EMAIL="tests@example.org", EUROPEPMC_MAX_RETRIES=1)
    fakes.literature.inject(Fault.http_status(503), times=None, path="/fullTextXML")
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        error = error_of(await client.call_tool("fetchFullText", {"pmcid": "PMC8118396"}))
    assert error["code"] == "UPSTREAM" and "503" in error["message"]
    assert any(line.startswith("Europe PMC fullTextXML: UPSTREAM") for line in error["details"]["tried"])


async def test_exactly_one_id(gateway) -> None:
    for arguments in ({}, {"pmid": "20516115", "doi": "10.1038/ng.590"}, {"doi": "not-a-doi"}):
        assert error_of(await gateway.call_tool("fetchFullText", arguments))["code"] == "VALIDATION"


async def test_an_unpaywall_outage_keeps_the_verdict_of_the_text_routes(fakes, bio_home) -> None:
    # Unpaywall only names copies elsewhere: PMC and Europe PMC answered, so "no text there" stands.
    settings = literature_settings(fakes, NCBI_ADMIN_EMAIL="tests@example.org")
    fakes.literature.inject(Fault.http_status(503), times=None, path="ng.590")
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        error = error_of(await client.call_tool("fetchFullText", {"doi": "10.1038/ng.590"}))
    assert error["code"] == "NOT_FOUND" and error["details"]["reason"] == "not_open_access"
    assert error["details"]["tried"][-1].startswith("Unpaywall: UPSTREAM")
