"""fetchFullText: PubMed Central JATS full text in sections, by PMCID or by PMID (ELink pubmed_pmc),
through the rate-limited NCBI client against the fake E-utilities serving the recorded PMC records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.sources.ncbi.parsers.jats import parse_pmc_articles
from tests.server.test_europepmc_tools import literature_settings

pytestmark = pytest.mark.anyio

BRCA1 = ("PMC3040717", "20516115")  # Cancer Research 2010, NIHPA manuscript
PTEN = ("PMC6329583", "30311380")


@pytest.fixture
async def gateway(fakes, bio_home):
    # Every route fetchFullText may take (Europe PMC, the ID Converter) goes to the fakes too.
    settings = literature_settings(fakes)
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        yield client


async def full_text(client: Client, arguments: dict) -> tuple[dict, str]:
    result = await client.call_tool("fetchFullText", arguments)
    assert not result.is_error, result.content
    return result.structured_content, result.content[0].text


def envelope(result) -> dict:
    return (result.structured_content or {}).get("error") or json.loads(result.content[0].text)["error"]


def test_the_jats_parser_reads_every_recorded_pmc_article(data_dir: Path) -> None:
    body = (data_dir / "ncbi/biomcp/ncbi_efetch_pmc/pmc6329583.xml").read_bytes()
    [article] = parse_pmc_articles(body)
    assert (article.pmcid, article.pmid, article.doi) == ("PMC6329583", "30311380", "10.1002/humu.23636")
    assert article.title.startswith("Gene-Specific Criteria for PTEN Variant Curation")
    paths = [section.path for section in article.sections]
    assert ("Introduction",) in paths and ("Results", "Evidence assessment and modification", "C. Functional Data (BS3, PS3)") in paths
    population = next(s for s in article.sections if s.title.startswith("A. Population Data"))
    assert population.level == 3 and len(population.paragraphs) == 4 and "<italic>" not in population.text
    assert article.reference_count == 54 and article.abstract


async def test_by_pmcid_all_sections_in_order(gateway, fakes) -> None:
    out, text = await full_text(gateway, {"pmcid": BRCA1[0]})
    assert (out["pmcid"], out["pmid"]) == BRCA1
    assert out["title"].startswith("Comprehensive Analysis of Missense Variations in the BRCT Domain of BRCA1")
    titles = [s["title"] for s in out["sections"] if s["level"] == 1]
    assert titles[:3] == ["Introduction", "Materials and Methods", "Results"] and "Discussion" in titles
    assert out["sectionCount"] == len(out["sections"]) and out["referenceCount"] == 53
    assert text.startswith("# Comprehensive Analysis") and "## Abstract" in text
    [request] = fakes.eutils.faults.log.to("efetch.fcgi")
    assert request.param("db") == "pmc" and request.param("id") == "3040717" and request.param("tool")
    assert "eLinkUrl" not in out


async def test_by_pmid_resolves_the_pmcid_with_elink(gateway, fakes) -> None:
    out, _ = await full_text(gateway, {"pmid": PTEN[1], "sectionTitles": ["methods", "Functional"]})
    assert out["pmcid"] == PTEN[0] and "linkname=pubmed_pmc" in out["eLinkUrl"]
    assert {tuple(s["path"])[-1] for s in out["sections"]} == {"Methods", "C. Functional Data (BS3, PS3)"}
    assert out["sectionCount"] > len(out["sections"])
    [link] = fakes.eutils.faults.log.to("elink.fcgi")
    assert link.param("db") == "pmc" and link.param("dbfrom") == "pubmed"


async def test_a_pmid_without_pmc_full_text_is_not_found(gateway, fakes) -> None:
    pmid = fakes.eutils.pmids[0]
    result = await gateway.call_tool("fetchFullText", {"pmid": pmid})
    assert result.is_error
    error = envelope(result)
    assert error["code"] == "NOT_FOUND" and "fetchArticleDetails" in error["message"]


async def test_an_unknown_pmcid_is_not_found(gateway) -> None:
    result = await gateway.call_tool("fetchFullText", {"pmcid": "PMC1"})
    assert result.is_error and envelope(result)["code"] == "NOT_FOUND"


@pytest.mark.parametrize("arguments", [{}, {"pmid": "20516115", "pmcid": "PMC3040717"}, {"pmcid": "X12"}])
async def test_exactly_one_valid_id_is_required(gateway, arguments) -> None:
    result = await gateway.call_tool("fetchFullText", arguments)
    assert result.is_error and envelope(result)["code"] == "VALIDATION"
