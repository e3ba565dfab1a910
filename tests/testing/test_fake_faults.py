"""Fault injection, latency, rate limits and the arrival log, on both fakes."""

from __future__ import annotations

import json
import time

import anyio
import httpx2
import pytest
from lxml import etree

from bio_mcp.testing import Fault
from bio_mcp.testing.faults import Arrival, busiest_window, window_violations

pytestmark = pytest.mark.anyio

SEARCH = {"db": "pubmed", "term": "melanoma"}


async def test_rate_limited_serves_a_real_ncbi_429_body_once(eutils, fakes, data_dir) -> None:
    fakes.eutils.inject(fakes.eutils.rate_limited())
    refused = await eutils.get("/esearch.fcgi", params=SEARCH)
    assert refused.status_code == 429
    assert (
        refused.content
        == (data_dir / "ncbi/biomcp/esearch_json_and_429/http429_rate_limit_exceeded.json")
        .read_bytes()
        .strip()
    )
    assert refused.json()["error"] == "API rate limit exceeded"
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert (await eutils.get("/esearch.fcgi", params=SEARCH)).status_code == 200
    quoted = fakes.eutils.rate_limited(body_index=1)
    fakes.eutils.inject(quoted)
    assert (await eutils.get("/esearch.fcgi", params=SEARCH)).json()["api-key"] == "157.131.198.215"


async def test_server_errors_for_the_next_n_requests(eutils, fakes) -> None:
    fakes.eutils.inject(fakes.eutils.server_error(502), times=2)
    statuses = [(await eutils.get("/esearch.fcgi", params=SEARCH)).status_code for _ in range(3)]
    assert statuses == [502, 502, 200]


async def test_slow_responses_and_client_timeouts(fakes, eutils) -> None:
    fakes.eutils.inject(fakes.eutils.slow(0.3))
    started = time.monotonic()
    assert (await eutils.get("/einfo.fcgi")).status_code == 200
    assert time.monotonic() - started >= 0.3
    fakes.eutils.inject(fakes.eutils.slow(1.0))
    async with httpx2.AsyncClient(base_url=fakes.eutils_base_url, timeout=0.2) as impatient:
        with pytest.raises(httpx2.TimeoutException):
            await impatient.get("/einfo.fcgi")


async def test_global_latency_slows_every_request(fakes, eutils) -> None:
    fakes.eutils.latency_s = 0.15
    started = time.monotonic()
    for _ in range(2):
        await eutils.get("/einfo.fcgi")
    assert time.monotonic() - started >= 0.3


async def test_truncated_xml_is_a_prefix_that_does_not_parse(eutils, fakes) -> None:
    whole = (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011"})).content
    fakes.eutils.inject(fakes.eutils.truncated(0.5), path="efetch.fcgi")
    cut = await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011"})
    assert cut.status_code == 200
    assert len(cut.content) == len(whole) // 2 and whole.startswith(cut.content)
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring(cut.content)


async def test_ncbi_error_bodies_are_the_recorded_ones(eutils, fakes, data_dir) -> None:
    fakes.eutils.inject(fakes.eutils.ncbi_error(), times=None)
    search = await eutils.get("/esearch.fcgi", params=SEARCH)
    assert search.status_code == 200
    assert search.content == (data_dir / "ncbi/klortho/esearch.baderror.xml").read_bytes()
    summary = await eutils.get("/esummary.fcgi", params={"db": "pubmed", "id": "22663011"})
    assert summary.content == (data_dir / "ncbi/biopython/entrez_current/esummary8.xml").read_bytes()
    fetched = etree.fromstring(
        (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011"})).content
    )
    assert fetched.tag == "eFetchResult" and fetched.findtext("ERROR") == "Neither query_key nor id specified"
    fakes.eutils.faults.clear()
    fakes.eutils.inject(fakes.eutils.ncbi_error("Search Backend failed: timeout"))
    assert etree.fromstring((await eutils.get("/esearch.fcgi", params=SEARCH)).content).findtext("ERROR") == (
        "Search Backend failed: timeout"
    )


async def test_rules_match_by_path_and_by_predicate(eutils, fakes) -> None:
    fakes.eutils.inject(Fault.http_status(500), path="efetch.fcgi")
    fakes.eutils.inject(Fault.http_status(503), when=lambda request: request.param("term") == "survival")
    assert (await eutils.get("/esearch.fcgi", params=SEARCH)).status_code == 200
    assert (await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": "survival"})).status_code == 503
    assert (await eutils.get("/efetch.fcgi", params={"db": "pubmed", "id": "22663011"})).status_code == 500
    assert fakes.eutils.faults.pending == []


async def test_the_arrival_log_records_every_request(eutils, fakes) -> None:
    fakes.eutils.inject(fakes.eutils.rate_limited())
    identity = {"api_key": "k3y", "tool": "bio-mcp", "email": "dev@example.org"}
    await eutils.get("/esearch.fcgi", params={**SEARCH, **identity})
    await eutils.post("/esummary.fcgi", data={"db": "pubmed", "id": "22663011", "version": "2.0", **identity})
    first, second = fakes.eutils.requests
    assert (first.method, first.path, first.status, first.fault) == (
        "GET",
        "/entrez/eutils/esearch.fcgi",
        429,
        "rate_limited",
    )
    assert (second.method, second.path, second.status, second.fault) == (
        "POST",
        "/entrez/eutils/esummary.fcgi",
        200,
        None,
    )
    assert all(
        arrival.param(name) == value for arrival in (first, second) for name, value in identity.items()
    )
    assert first.monotonic <= second.monotonic and first.wall <= second.wall
    assert fakes.eutils.faults.log.to("esummary.fcgi") == [second]


async def test_bursts_show_up_as_rate_limit_violations(eutils, fakes) -> None:
    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(eutils.get, "/einfo.fcgi")
    log = fakes.eutils.faults.log
    assert log.busiest_window(1.0) == 5
    assert len(log.violations(limit=3)) == 2
    assert sum(arrival.rate_limited for arrival in fakes.eutils.requests) == 0


async def test_enforced_rate_limit_answers_excess_with_429(eutils, fakes) -> None:
    fakes.eutils.limit_rate(enforce=True)
    statuses = []
    for _ in range(5):
        statuses.append((await eutils.get("/einfo.fcgi")).status_code)
    assert statuses == [200, 200, 200, 429, 429]
    refused = [arrival for arrival in fakes.eutils.requests if arrival.status == 429]
    assert all(arrival.rate_limited for arrival in refused)
    body = json.loads((await eutils.get("/einfo.fcgi")).content)
    assert body["error"] == "API rate limit exceeded" and body["limit"] == "3"
    keyed = [(await eutils.get("/einfo.fcgi", params={"api_key": "k"})).status_code for _ in range(10)]
    assert keyed == [200] * 10


async def test_required_identity_parameters(eutils, fakes) -> None:
    fakes.eutils.required_params = ("api_key", "tool", "email")
    missing = await eutils.get("/esearch.fcgi", params=SEARCH)
    assert missing.status_code == 400 and "api_key" in etree.fromstring(missing.content).findtext("ERROR")
    complete = await eutils.get(
        "/esearch.fcgi", params={**SEARCH, "api_key": "k", "tool": "t", "email": "e@x.org"}
    )
    assert complete.status_code == 200


async def test_ctgov_shares_the_fault_machinery(ctgov, fakes) -> None:
    fakes.ctgov.inject(fakes.ctgov.server_error(503))
    fakes.ctgov.inject(fakes.ctgov.rate_limited())
    fakes.ctgov.inject(fakes.ctgov.truncated(0.3))
    assert (await ctgov.get("/studies")).status_code == 503
    assert (await ctgov.get("/studies")).status_code == 429
    cut = await ctgov.get("/studies")
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.content)
    assert (await ctgov.get("/studies")).status_code == 200
    assert [arrival.fault for arrival in fakes.ctgov.requests] == [
        "http_503",
        "rate_limited",
        "truncated",
        None,
    ]
    assert fakes.eutils.requests == []


def test_window_arithmetic() -> None:
    def at(moment: float) -> Arrival:
        return Arrival(monotonic=moment, wall=None, method="GET", path="/", params=(), status=200)  # type: ignore[arg-type]

    arrivals = [at(0.0), at(0.1), at(0.2), at(0.3), at(1.25), at(1.3)]
    assert busiest_window(arrivals, 1.0) == 4
    assert [arrival.monotonic for arrival in window_violations(arrivals, 3)] == [0.3]
    assert window_violations(arrivals, 4) == []
