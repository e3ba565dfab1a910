"""The PubMed tools of the cache-then-network clients over the fake E-utilities (real records)."""

from __future__ import annotations

import time

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.ask import Analyst
from bio_mcp.features.analyst.executor import StepContext
from bio_mcp.features.analyst.models import FetchPolicy

TERM = '(semaglutide) AND ("2017/07/01"[EDAT] : "2018/07/01"[EDAT])'


def context(analyst: Analyst, policy: FetchPolicy) -> StepContext:
    return StepContext(time.monotonic() + 10, policy, analyst.limiters["pubmed"])


@pytest.mark.anyio
async def test_pubmed_search_then_get_cold_warm_and_policies(fakes, analyst: Analyst) -> None:
    search, get = analyst.tools["pubmed.search"], analyst.tools["pubmed.get"]
    with pytest.raises(BioMcpError) as missed:
        await search({"query": TERM, "top_k": 5}, context(analyst, "cache_only"))
    assert missed.value.code is ErrorCode.NOT_FOUND and not fakes.eutils.requests

    cold = await search({"query": TERM, "top_k": 5}, context(analyst, "cache_then_network"))
    assert cold.payload == {"results": [{"pmid": "29915538"}], "count": 1} and not cold.cache_hit
    warm = await search({"query": f"  {TERM} ", "top_k": 5}, context(analyst, "cache_only"))
    assert warm.cache_hit and warm.payload == cold.payload
    assert warm.watermarks == cold.watermarks and warm.blob_uris == cold.blob_uris
    assert len(fakes.eutils.requests) == 1

    fetched = await get({"pmids": ["29915538"]}, context(analyst, "cache_then_network"))
    [article] = fetched.payload["results"]
    assert article["pmid"] == "29915538" and article["title"].startswith("Efficacy and Safety of Once-Weekly")
    assert article["journal"] == "Front Pharmacol" and not fetched.cache_hit
    again = await get({"pmids": ["29915538"]}, context(analyst, "cache_only"))
    assert again.cache_hit and again.payload == fetched.payload and again.watermarks == fetched.watermarks
    assert [a.path.rsplit("/", 1)[-1] for a in fakes.eutils.requests] == ["esearch.fcgi", "efetch.fcgi"]

    live = await search({"query": TERM, "top_k": 5}, context(analyst, "network_only"))
    assert not live.cache_hit and live.watermarks == cold.watermarks and len(fakes.eutils.requests) == 3


@pytest.mark.anyio
async def test_pubmed_get_of_nothing_asks_nobody(fakes, analyst: Analyst) -> None:
    result = await analyst.tools["pubmed.get"]({"pmids": []}, context(analyst, "network_only"))
    assert result.payload == {"results": []} and not fakes.eutils.requests


@pytest.mark.anyio
async def test_pubmed_get_keeps_only_the_records_it_asked_for(fakes, analyst: Analyst) -> None:
    fakes.eutils.inject(fakes.eutils.extra_records(30, first_pmid=90_000_000), path="efetch.fcgi")
    get = analyst.tools["pubmed.get"]
    fetched = await get({"pmids": ["29915538"]}, context(analyst, "network_only"))
    assert [row["pmid"] for row in fetched.payload["results"]] == ["29915538"] and fetched.rows == 1
    [warning] = fetched.warnings
    assert "30 records that were not requested" in warning and "90000000" in warning
    # Nothing unrequested was stored: not in the cached row, not in the blob it points at.
    clients = get.__self__
    with clients.store.read() as tx:
        row = tx.upstream.get_pubmed_search("efetch", {"ids": ["29915538"]})
    assert row.pmids == ["29915538"] and row.count == 1
    blob = clients.blobs.get(row.blob_uri)
    assert b"<PMID Version=\"1\">29915538</PMID>" in blob and b"90000000" not in blob
    again = await get({"pmids": ["29915538"]}, context(analyst, "cache_only"))
    assert again.cache_hit and again.payload == fetched.payload and again.watermarks == fetched.watermarks
    assert again.warnings == [] and len(fakes.eutils.requests) == 1


@pytest.mark.anyio
async def test_an_answer_built_on_dropped_records_says_so_without_being_partial(fakes, analyst: Analyst) -> None:
    from bio_mcp.features.analyst.executor import Executor
    from bio_mcp.features.analyst.models import Plan, PlanStep

    fakes.eutils.inject(fakes.eutils.extra_records(5, first_pmid=90_000_000), path="efetch.fcgi")
    plan = Plan(steps=[PlanStep(id="get", tool="pubmed.get", args={"pmids": ["29915538"]})], budget_ms=10_000)
    executor = Executor(analyst.tools, analyst.registry, analyst.limiters, analyst.telemetry)
    execution = await executor.run(plan, "network_only")
    assert not execution.partial
    assert any("5 records that were not requested" in note for note in execution.notes)
