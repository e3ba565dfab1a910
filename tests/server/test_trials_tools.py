"""`trials_search` and `trials_get` through the SDK's client against the fake ClinicalTrials.gov over
real recorded studies: paging to the last page, filters, results sections, overflow, and faults
reported as outages (never as "no results")."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime
from tests.server.scratch_reading import read_whole

pytestmark = pytest.mark.anyio


async def _client(fakes, **extra: str):
    settings = load_settings(
        NCBI_EUTILS_BASE_URL=fakes.eutils_base_url,
        CTGOV_BASE_URL=fakes.ctgov_base_url,
        CTGOV_RPS="50",
        CTGOV_MAX_RETRIES="1",
        **extra,
    )
    runtime = Runtime(settings)
    return runtime, Client(build_server(build_toolsets(runtime, ["analyst"]), options=server_options(runtime)))


@pytest.fixture
async def trials(fakes, bio_home):
    runtime, client = await _client(fakes)
    async with runtime, client:
        yield client


async def ok(client: Client, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    tool = next(t for t in (await client.list_tools()).tools if t.name == name)
    jsonschema.validate(result.structured_content, tool.output_schema)
    assert result.meta["audit"]["status"] == "ok"
    return result.structured_content, result.content[0].text


async def test_paging_reaches_the_last_page_with_every_study_once(trials, fakes) -> None:
    first, text = await ok(trials, "trials_search", {"page_size": 10})
    total = first["total_count"]
    assert total == len(fakes.ctgov) and f"{total} studies match" in text
    seen, page = [s["nct_id"] for s in first["studies"]], first
    while page["next_page_token"]:
        page, text = await ok(
            trials, "trials_search", {"page_size": 10, "page_token": page["next_page_token"]}
        )
        seen += [s["nct_id"] for s in page["studies"]]
    assert "Last page." in text and page["total_count"] is None
    assert sorted(seen) == fakes.ctgov.nct_ids and all(
        f"[{nct}]" in text for nct in [s["nct_id"] for s in page["studies"]]
    )


async def test_filters_reach_the_api(trials, fakes) -> None:
    body, _ = await ok(trials, "trials_search", {"phases": ["PHASE3"], "statuses": ["COMPLETED"]})
    assert body["studies"] and all(
        "PHASE3" in s["phases"] and s["overall_status"] == "COMPLETED" for s in body["studies"]
    )
    body, _ = await ok(trials, "trials_search", {"start_from": "2020-01-01"})
    assert body["studies"] and all(s["start_date"] >= "2020" for s in body["studies"])
    assert len(body["studies"]) < len(fakes.ctgov)
    body, text = await ok(trials, "trials_search", {"condition": "no such disease zzqx"})
    assert body["total_count"] == 0 and "No study on this page matches." in text
    arrived = fakes.ctgov.requests[-1]
    assert arrived.param("query.cond") == "no such disease zzqx"


async def test_a_study_with_results_carries_outcomes_and_adverse_events(trials) -> None:
    body, text = await ok(trials, "trials_get", {"nct_id": "nct02552212"})
    study = body["study"]
    assert (
        study["nct_id"] == "NCT02552212" and study["results"]["outcomes"] and study["eligibility"]["criteria"]
    )
    assert [a["label"] for a in study["arms"]] == ["Certolizumab Pegol 200 mg Q2W", "Placebo"]
    assert (
        "### Results: outcome measures" in text
        and "### Adverse events" in text
        and "Inclusion Criteria" in text
    )


async def test_a_study_without_results_says_so(trials) -> None:
    body, text = await ok(trials, "trials_get", {"nct_id": "NCT03418623"})
    assert "results" not in body["study"] and "No results are posted for this study." in text


async def test_results_beyond_the_budget_go_to_scratch(fakes, bio_home) -> None:
    runtime, client = await _client(fakes, BIO_MCP_TEXT_BUDGET="20000")
    async with runtime, client:
        body, text = await ok(client, "trials_get", {"nct_id": "NCT02513394"})
        overflow = body["overflow"]
        kept = len(body["study"]["results"]["adverse_events"]["events"]) + len(
            body["study"]["results"]["outcomes"]
        )
        assert kept + overflow["items"] == 2029 + 5 and len(text) <= 20_000 and overflow["uri"] in text
        rest, _ = await read_whole(client, overflow["uri"])
        assert len(rest.splitlines()) == overflow["items"]


async def test_unknown_and_malformed_ids(trials) -> None:
    missing = await trials.call_tool("trials_get", {"nct_id": "NCT00000000"})
    assert missing.is_error and '"NOT_FOUND"' in missing.content[0].text
    malformed = await trials.call_tool("trials_get", {"nct_id": "12345"})
    assert malformed.is_error and '"VALIDATION"' in malformed.content[0].text
    bad_date = await trials.call_tool("trials_search", {"start_from": "last year"})
    assert bad_date.is_error and '"VALIDATION"' in bad_date.content[0].text


async def test_an_outage_is_an_outage(trials, fakes) -> None:
    fakes.ctgov.inject(fakes.ctgov.server_error(503), times=None)
    for name, arguments in (
        ("trials_search", {"condition": "melanoma"}),
        ("trials_get", {"nct_id": "NCT02552212"}),
    ):
        result = await trials.call_tool(name, arguments)
        assert result.is_error and '"UPSTREAM"' in result.content[0].text, result.content[0].text
