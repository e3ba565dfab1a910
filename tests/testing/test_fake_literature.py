"""The fake Europe PMC, PMC ID Converter and Unpaywall: the recorded answers at the real paths on the
fakes' one port, what they answer for what was not recorded, and their rate limit and faults."""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest

from bio_mcp.config import load_settings
from bio_mcp.sources.europepmc.client import EuropePmcClient
from bio_mcp.testing.faults import window_violations


def test_the_three_services_at_their_real_paths(fakes, data_dir) -> None:
    with httpx2.Client(timeout=10) as client:
        page = client.get(f"{fakes.europepmc_base_url}/search",
                          params={"query": "cancer", "pageSize": 5, "format": "json", "cursorMark": "*"})
        recorded = json.loads((data_dir / "europepmc/search_lite_cancer_pagesize5.json").read_bytes())
        assert page.json()["resultList"] == recorded["resultList"]
        # Its next cursor leads to no recorded page: the fake does not hand it out.
        assert "nextCursorMark" not in page.json() and "nextCursorMark" in recorded
        xml = client.get(f"{fakes.europepmc_base_url}/PMC8164761/fullTextXML")
        assert xml.status_code == 200 and xml.content == (data_dir / "europepmc/fullTextXML_PMC8164761.xml").read_bytes()
        closed = client.get(f"{fakes.europepmc_base_url}/PMC3040717/fullTextXML")
        assert closed.status_code == 404 and b"is not open access one" in closed.content
        by_pmcid = client.get(f"{fakes.idconv_base_url}/", params={"ids": "PMC2883744", "format": "json"}).json()
        assert by_pmcid["records"][0]["doi"] == "10.1038/ng.590"
        unknown = client.get(f"{fakes.idconv_base_url}/", params={"ids": "10.1/x", "format": "json"}).json()
        assert unknown["records"][0]["status"] == "error"
        mismatch = client.get(f"{fakes.idconv_base_url}/", params={"ids": "28371833", "idtype": "doi"})
        assert mismatch.status_code == 404 and mismatch.json()["status"] == "error"
        assert client.get(f"{fakes.unpaywall_base_url}/10.1073/pnas.1414271111").status_code == 422
        record = client.get(f"{fakes.unpaywall_base_url}/10.1073/pnas.1414271111", params={"email": "a@b.org"})
        assert record.json()["doi"] == "10.1073/pnas.1414271111"
        assert client.get(f"{fakes.unpaywall_base_url}/10.1/none", params={"email": "a@b.org"}).status_code == 404
    assert [a.status for a in fakes.literature.requests] == [200, 200, 404, 200, 200, 404, 422, 200, 404]
    assert fakes.eutils.requests == [] and fakes.ctgov.requests == []


@pytest.mark.anyio
async def test_the_client_keeps_europepmcs_rate(fakes, bio_home) -> None:
    fakes.literature.limit_rate(per_second=10, enforce=True)
    client = EuropePmcClient(load_settings(EUROPEPMC_BASE_URL=fakes.europepmc_base_url, EUROPEPMC_RPS=8))
    try:
        async with anyio.create_task_group() as group:
            for n in range(24):  # distinct queries: none is answered from the cache
                group.start_soon(client.search, f"query {n}")
    finally:
        await client.aclose()
    arrivals = fakes.literature.requests
    assert len(arrivals) == 24 and not window_violations(arrivals, 10)
    assert all(a.status == 200 for a in arrivals)
