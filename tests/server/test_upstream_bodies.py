"""Upstream answers are bounded and checked: size-capped, cut to the records asked for, and no work
goes on for a caller that has gone."""

from __future__ import annotations

import asyncio
import time

import anyio
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.features.pubmed.details import fetch_article_details
from bio_mcp.features.pubmed.models import DetailsRequest
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.sources.ncbi.parsers import ParseAbandoned, parse_requested
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop
from bio_mcp.testing import eutils_responses
from bio_mcp.testing.faults import CLIENT_CLOSED_REQUEST

pytestmark = pytest.mark.anyio

SEMAGLUTIDE = "29915538"


def runtime_for(fakes, **env) -> Runtime:
    return Runtime(load_settings(NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, **env))


@pytest.mark.parametrize("level", ["abstract_plus", "citation_data", "full_xml", "medline_text"])
async def test_records_that_were_not_requested_are_dropped_with_a_warning(fakes, bio_home, level) -> None:
    fakes.eutils.inject(fakes.eutils.extra_records(40), path="efetch.fcgi")
    async with runtime_for(fakes) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE], "detailLevel": level})
    body = result.structured_content
    assert not result.is_error, body
    assert [article["pmid"] for article in body["articles"]] == [SEMAGLUTIDE]
    assert body["notFoundPmids"] == []
    assert len(body["warnings"]) == 1 and "40 records that were not requested" in body["warnings"][0]
    assert "90000000" in body["warnings"][0]
    assert "Warning: NCBI returned 40 records" in result.content[0].text


async def test_an_ordinary_answer_has_no_warnings(fakes, bio_home) -> None:
    async with runtime_for(fakes) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    assert not result.is_error and "warnings" not in result.structured_content


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_an_answer_past_the_size_cap_is_refused_and_not_retried(fakes, bio_home, chunked) -> None:
    # 300 records nobody asked for: several megabytes against a one-megabyte cap.
    fakes.eutils.inject(fakes.eutils.extra_records(300, chunked=chunked), path="efetch.fcgi", times=None)
    async with runtime_for(fakes, NCBI_MAX_BODY_BYTES=1024 * 1024) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": [SEMAGLUTIDE]})
    error = result.meta["error"]
    assert result.is_error and error["code"] == "UPSTREAM"
    assert error["details"]["limitBytes"] == 1024 * 1024
    if chunked:
        assert 1024 * 1024 < error["details"]["receivedBytes"] < 2 * 1024 * 1024
        assert error["details"]["declaredBytes"] is None
    else:
        assert error["details"]["declaredBytes"] > 1024 * 1024
    assert len(fakes.eutils.faults.log.to("efetch.fcgi")) == 1


async def test_the_default_cap_admits_a_full_200_record_efetch(fakes, bio_home) -> None:
    pmids = fakes.eutils.pmids[:200]
    async with runtime_for(fakes) as runtime:
        response = await runtime.eutils.efetch(pmids)
    assert len(pmids) == 200 and response.status == 200
    assert len(response.body) < runtime.settings.ncbi_max_body_bytes


async def test_a_cancelled_call_hangs_up_on_the_upstream(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.slow(5.0), path="efetch.fcgi")
    async with runtime_for(fakes) as runtime:
        task = asyncio.create_task(fetch_article_details(DetailsRequest(pmids=[SEMAGLUTIDE]), runtime.eutils))
        await anyio.sleep(0.5)
        task.cancel()
        started = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - started < 5.0  # hung up, not waiting for the slow answer
        # The fake sees the connection close while it is still delaying its answer.
        with anyio.fail_after(2):
            while not fakes.eutils.faults.log.to("efetch.fcgi"):
                await anyio.sleep(0.05)
    [arrival] = fakes.eutils.faults.log.to("efetch.fcgi")
    assert arrival.status == CLIENT_CLOSED_REQUEST


async def test_a_cancelled_parse_stops_between_records(fakes) -> None:
    records = [fakes.eutils.record(pmid) for pmid in fakes.eutils.pmids] * 4
    body = eutils_responses.efetch_xml(records)
    asked: list[int] = []
    finished: list[BaseException | None] = []

    def counting_parse(data, wanted, stop):
        try:
            result = parse_requested(data, wanted, lambda: asked.append(1) or stop())
        except BaseException as exc:
            finished.append(exc)
            raise
        finished.append(None)
        return result

    task = asyncio.create_task(parse_off_loop(counting_parse, body, None))
    with anyio.fail_after(30):
        while not asked:
            await anyio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with anyio.fail_after(10):
        while not finished:
            await anyio.sleep(0.01)
    assert isinstance(finished[0], ParseAbandoned)
    assert len(asked) < len(records)


async def test_citation_formats_use_the_requested_record_only(fakes, bio_home) -> None:
    fakes.eutils.inject(fakes.eutils.extra_records(30), path="efetch.fcgi")
    async with runtime_for(fakes) as runtime:
        async with Client(build_server(build_toolsets(runtime, ["pubmed"]))) as client:
            result = await client.call_tool("getArticleRelationships", {
                "sourcePmid": SEMAGLUTIDE, "relationshipType": "citation_formats", "citationStyles": ["ris"]})
    assert not result.is_error, result.structured_content
    ris = result.structured_content["citations"]["ris"]
    assert SEMAGLUTIDE in ris and "90000000" not in ris
