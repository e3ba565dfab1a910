"""`pubtator_annotations` through the SDK's client against the fake PubTator3 over real recorded exports:
entities with ids and offsets, PMIDs it lacks named, the cache, faults reported as outages."""

from __future__ import annotations

import jsonschema
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pubmed(fakes, bio_home):
    settings = load_settings(
        NCBI_EUTILS_BASE_URL=fakes.eutils_base_url,
        PUBTATOR3_BASE_URL=fakes.pubtator3_base_url,
        PUBTATOR3_MAX_RETRIES="1",
    )
    runtime = Runtime(settings)
    async with (
        runtime,
        Client(build_server(build_toolsets(runtime, ["pubmed"]), options=server_options(runtime))) as client,
    ):
        yield client


async def _ok(client: Client, arguments: dict) -> tuple[dict, str]:
    result = await client.call_tool("pubtator_annotations", arguments)
    assert not result.is_error, result.content[0].text
    tool = next(t for t in (await client.list_tools()).tools if t.name == "pubtator_annotations")
    jsonschema.validate(result.structured_content, tool.output_schema)
    assert result.meta["audit"]["status"] == "ok"
    return result.structured_content, result.content[0].text


async def test_entities_with_ids_and_offsets_and_missing_pmids_named(pubmed, fakes) -> None:
    body, text = await _ok(pubmed, {"pmids": ["22663011", "20516115", "99999999"]})
    assert [p["pmid"] for p in body["publications"]] == ["22663011", "20516115"]
    assert body["not_found_pmids"] == ["99999999"] and "no annotations for PMID 99999999" in text
    braf = body["publications"][0]["annotations"]
    assert {a["type"] for a in braf} == {"Gene", "Variant", "Species", "Disease", "Chemical"}
    assert any(
        a["type"] == "Variant" and a["identifier"] == "rs113488022" and a["offset"] == 510 for a in braf
    )
    assert "- Gene BRCA1 [672]: 'BRCA1' at 68" in text and "Variant p.V600E [rs113488022]" in text
    requests = fakes.pubtator3.requests
    assert len(requests) == 1 and requests[0].param("pmids") == "22663011,20516115,99999999"


async def test_types_filter_and_the_cache(pubmed, fakes) -> None:
    body, _ = await _ok(pubmed, {"pmids": ["22663011"], "types": ["Variant"]})
    assert body["publications"][0]["annotations"] and {
        a["type"] for a in body["publications"][0]["annotations"]
    } == {"Variant"}
    await _ok(pubmed, {"pmids": ["22663011"]})
    assert len(fakes.pubtator3.requests) == 1  # the second call was answered from the cache


async def test_bad_input_and_outages(pubmed, fakes) -> None:
    bad = await pubmed.call_tool("pubtator_annotations", {"pmids": ["PMC123"]})
    assert bad.is_error and '"VALIDATION"' in bad.content[0].text
    fakes.pubtator3.inject(fakes.pubtator3.server_error(503), times=None)
    down = await pubmed.call_tool("pubtator_annotations", {"pmids": ["33054928"]})
    assert down.is_error and '"UPSTREAM"' in down.content[0].text
    fakes.pubtator3.faults.reset()
    fakes.pubtator3.inject(fakes.pubtator3.truncated(0.5), times=None)
    cut = await pubmed.call_tool("pubtator_annotations", {"pmids": ["33054928"]})
    assert cut.is_error and '"UPSTREAM"' in cut.content[0].text
