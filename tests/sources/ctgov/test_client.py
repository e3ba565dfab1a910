"""Request shape, paging, phase filter and error translation of the CT.gov client (mock transport)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.client import CtgovClient, phase_filter
from bio_mcp.sources.ctgov.models import StudyQuery
from bio_mcp.sources.ctgov.parse import parse_study_body, parse_study_page

BASE = "http://ctgov.test/api/v2"


def _client(handler) -> CtgovClient:
    settings = load_settings(CTGOV_BASE_URL=BASE, CTGOV_RPS=50, CTGOV_MAX_RETRIES=1)
    return CtgovClient(settings, transport=httpx2.MockTransport(handler))


def test_phase_filter_uses_filter_advanced() -> None:
    assert phase_filter(["PHASE3"]) == "AREA[Phase]PHASE3"
    assert phase_filter(["PHASE3", "PHASE2", "PHASE3"]) == "(AREA[Phase]PHASE2 OR AREA[Phase]PHASE3)"
    with pytest.raises(BioMcpError) as info:
        phase_filter(["3"])
    assert info.value.code == ErrorCode.VALIDATION


def test_search_params_names() -> None:
    client = _client(lambda request: httpx2.Response(200))
    params = client.search_params(StudyQuery(
        condition="Alzheimer Disease", sponsor="Eli Lilly", statuses=("RECRUITING", "ACTIVE_NOT_RECRUITING"),
        phases=("PHASE3",), page_size=20, page_token="tok", count_total=True, fields=("NCTId",),
    ))
    assert params == {
        "format": "json", "pageSize": 20, "query.cond": "Alzheimer Disease", "query.spons": "Eli Lilly",
        "filter.overallStatus": "ACTIVE_NOT_RECRUITING,RECRUITING", "filter.advanced": "AREA[Phase]PHASE3",
        "pageToken": "tok", "countTotal": "true", "fields": "NCTId",
    }
    with pytest.raises(BioMcpError):
        client.search_params(StudyQuery(statuses=("Recruiting",)))
    with pytest.raises(BioMcpError):
        client.search_params(StudyQuery(page_size=0))


@pytest.mark.anyio
async def test_search_follows_next_page_token(data_dir: Path) -> None:
    first = (data_dir / "ctgov" / "biomcp" / "search_phelan_limit5_20260811.json").read_bytes()
    second = (data_dir / "ctgov" / "biomcp" / "search_phelan_next_20260811.json").read_bytes()
    token = json.loads(first)["nextPageToken"]
    seen: list[dict[str, str]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(dict(request.url.params))
        assert request.url.path == "/api/v2/studies"
        return httpx2.Response(200, content=second if request.url.params.get("pageToken") == token else first)

    client = _client(handler)
    page1 = parse_study_page((await client.search(StudyQuery(condition="Phelan-McDermid", page_size=5))).body)
    page2 = parse_study_page((await client.search(StudyQuery(condition="Phelan-McDermid", page_size=5,
                                                             page_token=page1.next_page_token))).body)
    await client.aclose()
    assert page1.next_page_token == token
    assert {s.nct_id for s in page1.studies}.isdisjoint({s.nct_id for s in page2.studies})
    assert seen[0]["query.cond"] == "Phelan-McDermid" and "pageToken" not in seen[0]
    assert seen[1]["pageToken"] == token


@pytest.mark.anyio
async def test_get_study_and_not_found(data_dir: Path) -> None:
    body = (data_dir / "ctgov" / "biomcp" / "get_nct06382129_20260811.json").read_bytes()

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/NCT06382129"):
            return httpx2.Response(200, content=body)
        return httpx2.Response(404, text="Study not found")

    client = _client(handler)
    study = parse_study_body((await client.get_study("nct06382129")).body)
    assert study.nct_id == "NCT06382129"
    with pytest.raises(BioMcpError) as info:
        await client.get_study("NCT00000000")
    assert info.value.code == ErrorCode.NOT_FOUND
    with pytest.raises(BioMcpError) as bad:
        await client.get_study("12345")
    assert bad.value.code == ErrorCode.VALIDATION
    # The same 404 from the search endpoint is no study's absence: the endpoint is not there.
    with pytest.raises(BioMcpError) as missing:
        await client.search(StudyQuery(term="aspirin"))
    assert missing.value.code == ErrorCode.UPSTREAM and f"{BASE}/studies" in missing.value.message
    await client.aclose()


@pytest.mark.anyio
async def test_bad_request_is_validation_and_5xx_is_retried() -> None:
    calls = {"n": 0}

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls["n"] += 1
        if request.url.params.get("query.term") == "bad":
            return httpx2.Response(400, text="unknown field")
        return httpx2.Response(503 if calls["n"] == 2 else 200, content=b'{"studies": []}')

    client = _client(handler)
    with pytest.raises(BioMcpError) as info:
        await client.search(StudyQuery(term="bad"))
    assert info.value.code == ErrorCode.VALIDATION
    response = await client.search(StudyQuery(term="ok"))
    assert response.status == 200 and response.attempts == 2
    await client.aclose()
