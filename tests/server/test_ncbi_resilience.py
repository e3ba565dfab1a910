"""Rate limits, retries and faults, measured at the fake E-utilities server's arrival log."""

from __future__ import annotations

import time

import anyio
import httpx2
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.testing.fakes_app import ARRIVALS_PATH
from tests.server.fakes_process import receiving_end

pytestmark = pytest.mark.anyio

SEMAGLUTIDE = "29915538"


async def gateway_for(fakes, **env) -> Runtime:
    settings = load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, **env)
    return Runtime(settings)


def busiest_window(times: list[float], window: float = 1.0) -> int:
    times = sorted(times)
    best, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - window:
            j += 1
        best = max(best, i - j + 1)
    return best


async def test_fifty_concurrent_calls_never_exceed_the_keyed_limit(fakes_process, bio_home) -> None:
    outcomes: list[str] = []
    settings = load_settings(NCBI_EUTILS_BASE_URL=fakes_process + "/entrez/eutils", NCBI_API_KEY="test-key-123",
                             NCBI_TIMEOUT_S=30)
    with receiving_end(fakes_process) as arrival_times:
        async with Runtime(settings) as runtime:
            async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:

                async def one(i: int) -> None:
                    arguments = {"queryTerm": "asthma", "fetchBriefSummaries": 1 if i % 2 else 0}
                    result = await client.call_tool("searchPubMedArticles", arguments)
                    outcomes.append("ok" if not result.is_error else result.meta["error"]["code"])

                started = time.monotonic()
                async with anyio.create_task_group() as tg:
                    for i in range(50):
                        tg.start_soon(one, i)
                elapsed = time.monotonic() - started
    arrivals = httpx2.get(fakes_process + ARRIVALS_PATH, timeout=10).json()["eutils"]
    assert len(outcomes) == 50 and set(outcomes) == {"ok"}
    assert len(arrivals) == 75  # 50 searches + 25 summaries
    times = arrival_times(arrivals)
    assert len(times) == 75
    assert busiest_window(times) <= 10
    assert all(dict(a["params"]).get("api_key") == "***" for a in arrivals)
    assert elapsed > 6.5  # 75 requests at 10 per second cannot finish sooner


async def test_without_a_key_the_limit_is_three_per_second(fakes, bio_home) -> None:
    fakes.eutils.limit_rate(enforce=True)
    with receiving_end(fakes.base_url) as arrival_times:
        async with await gateway_for(fakes) as runtime, anyio.create_task_group() as tg:
            for _ in range(9):
                tg.start_soon(runtime.eutils.einfo)
    times = arrival_times([{"monotonic": a.monotonic} for a in fakes.eutils.requests])
    assert len(times) == 9 and busiest_window(times) <= 3
    # The fake counts by its own stamps, which share this test's process: it refused nothing either.
    assert not any(a.rate_limited for a in fakes.eutils.requests)


async def test_deadline_includes_queue_time_so_callers_fail_fast(fakes, bio_home) -> None:
    codes: list[str] = []
    async with await gateway_for(fakes, NCBI_TIMEOUT_S=1) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:

            async def one() -> None:
                result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
                codes.append("ok" if not result.is_error else result.meta["error"]["code"])

            async with anyio.create_task_group() as tg:
                for _ in range(12):
                    tg.start_soon(one)
    # 3 per second with a 1 s deadline: the first few succeed, the rest fail instead of queueing, and
    # never reach NCBI (the clock is not asked: a loaded machine stretches any bound).
    assert codes.count("ok") >= 3 and set(codes) <= {"ok", "RATE_LIMIT"} and "RATE_LIMIT" in codes
    assert len(fakes.eutils.requests) == codes.count("ok")


@pytest.mark.parametrize("fault_name", ["rate_limited", "server_error"])
async def test_transient_failures_are_retried_then_succeed(fakes, bio_home, fault_name) -> None:
    fault = fakes.eutils.rate_limited() if fault_name == "rate_limited" else fakes.eutils.server_error(502)
    fakes.eutils.inject(fault, times=2, path="efetch.fcgi")
    async with await gateway_for(fakes, NCBI_MAX_RETRIES=3) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    assert not result.is_error
    statuses = [a.status for a in fakes.eutils.requests if a.path.endswith("efetch.fcgi")]
    assert statuses[-1] == 200 and len(statuses) == 3


@pytest.mark.parametrize(("fault_name", "code"), [("rate_limited", "RATE_LIMIT"), ("server_error", "UPSTREAM")])
async def test_exhausted_retries_give_typed_errors(fakes, bio_home, fault_name, code) -> None:
    fault = fakes.eutils.rate_limited() if fault_name == "rate_limited" else fakes.eutils.server_error(503)
    fakes.eutils.inject(fault, times=None)
    async with await gateway_for(fakes, NCBI_MAX_RETRIES=2) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("searchPubMedArticles", {"queryTerm": "asthma"})
    assert result.is_error
    error = result.meta["error"]
    assert error["code"] == code and error["details"]["attempts"] == 3
    if code == "RATE_LIMIT":
        assert "API rate limit exceeded" in error["details"]["ncbiMessages"][0]
        assert "api-key" not in str(error["details"])
    assert len(fakes.eutils.requests) == 3


async def test_truncated_xml_is_fetched_again(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.truncated(0.5), path="efetch.fcgi")
    async with await gateway_for(fakes) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    assert not result.is_error and [a["pmid"] for a in result.structured_content["articles"]] == [SEMAGLUTIDE]
    assert [a.fault for a in fakes.eutils.requests] == ["truncated", None]


async def test_xml_truncated_on_every_attempt_is_an_entrez_error(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.truncated(0.5), path="efetch.fcgi", times=None)
    async with await gateway_for(fakes, NCBI_MAX_RETRIES=2) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    error = result.meta["error"]
    assert result.is_error and error["code"] == "ENTREZ" and error["details"]["attempts"] == 3
    assert "truncated" in error["message"] and len(fakes.eutils.requests) == 3


async def test_one_slow_answer_leaves_time_for_a_retry(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.slow(5.0), path="efetch.fcgi")
    async with await gateway_for(fakes, NCBI_TIMEOUT_S=4, NCBI_ATTEMPT_TIMEOUT_S=1.5) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    assert not result.is_error, result.structured_content
    # The answer came from the retry; the first attempt hung up on the slow request (the fake's 499)
    # at its own timeout, before the slow answer.
    arrivals = fakes.eutils.faults.log.to("efetch.fcgi")
    assert [(a.fault, a.status) for a in arrivals] == [("slow", 499), (None, 200)]


async def test_ncbi_error_body_keeps_ncbi_message(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.ncbi_error("Invalid uid 0 at position=0"), path="esearch.fcgi")
    async with await gateway_for(fakes) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("searchPubMedArticles", {"queryTerm": "asthma"})
    error = result.meta["error"]
    assert result.is_error and error["code"] == "ENTREZ"
    assert "Invalid uid 0" in error["details"]["ncbiMessages"][0]


async def test_a_wrong_eutils_address_is_an_upstream_error_not_a_missing_record(fakes, bio_home) -> None:
    runtime = Runtime(load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url + "/moved", NCBI_MAX_RETRIES=0))
    async with runtime, Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
        result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    error = result.meta["error"]
    assert result.is_error and error["code"] == "UPSTREAM" and "NCBI_EUTILS_BASE_URL" in error["message"]
    assert error["details"]["status"] == 404 and "/moved/efetch.fcgi" in error["details"]["url"]


async def test_slow_upstream_times_out_with_upstream_error(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.slow(3.0), times=None)
    async with await gateway_for(fakes, NCBI_TIMEOUT_S=1, NCBI_MAX_RETRIES=3) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("searchPubMedArticles", {"queryTerm": "asthma"})
    assert result.is_error and result.meta["error"]["code"] in {"UPSTREAM", "RATE_LIMIT"}
    # The 1 s deadline ended it: every request was hung up on (the fake's 499, logged once the fake
    # sees the connection close), none waited for the 3 s answer.
    with anyio.fail_after(10):
        while not (arrivals := fakes.eutils.faults.log.to("esearch.fcgi")):
            await anyio.sleep(0.05)
    assert all(a.status == 499 for a in arrivals)
