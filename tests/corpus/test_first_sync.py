"""A new user's first sync through MCP, on the server's defaults: it brings records even when none
entered PubMed within the look-back, says how far back it reached, and honours an explicit look-back;
and chunks a stopped server left unembedded are embedded when the next one starts."""

from __future__ import annotations

import logging

import anyio
import pytest
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets, server_options
from bio_mcp.server.runtime import Runtime
from tests.corpus.corpus_fixtures import TERM

pytestmark = pytest.mark.anyio


@pytest.fixture
async def corpus(corpus_fakes, bio_home):
    settings = load_settings(NCBI_EUTILS_BASE_URL=corpus_fakes.eutils_base_url, CTGOV_BASE_URL=corpus_fakes.ctgov_base_url)
    async with Runtime(settings) as runtime, \
            Client(build_server(build_toolsets(runtime, ["corpus"]), options=server_options(runtime))) as client:
        yield client


async def test_a_first_sync_with_nothing_in_its_look_back_reaches_back_and_says_so(corpus) -> None:
    # The real records entered PubMed years before the default 365-day look-back.
    result = await corpus.call_tool("pubmed_sync_delta", {"query_key": "first", "term": "semaglutide"})
    assert not result.is_error, result.content[0].text
    body = result.structured_content
    assert body["inserted"] > 0
    assert "reaches back to PubMed's oldest records" in body["warnings"][0]
    assert "reaches back" in result.content[0].text
    found = await corpus.call_tool("rag_search", {"query": "semaglutide", "top_k": 3})
    assert found.structured_content["results"]


async def test_an_explicit_look_back_is_kept_even_when_empty(corpus) -> None:
    result = await corpus.call_tool("pubmed_sync_delta", {"query_key": "recent", "term": "semaglutide",
                                                          "lookback_days": 30})
    body = result.structured_content
    assert not result.is_error and body["inserted"] == 0
    assert "pass lookback_days" in body["warnings"][0]


async def test_the_look_back_is_described_in_the_schema(corpus) -> None:
    tool = next(t for t in (await corpus.list_tools()).tools if t.name == "pubmed_sync_delta")
    description = tool.input_schema["properties"]["lookback_days"]["description"]
    assert "365" in description and "oldest records" in description


async def test_chunks_left_unembedded_are_embedded_at_the_next_start_which_says_so(make_service, caplog) -> None:
    stopped = make_service(embed_in_background=False)
    await stopped.sync_delta(SyncDeltaRequest(query_key="resume", term=TERM))
    left = stopped.index.pending_embeddings()
    assert left > 0
    await stopped.aclose()

    caplog.set_level(logging.INFO, logger="bio_mcp.corpus")
    restarted = make_service(embed_in_background=True)
    await restarted.open()
    assert f"{left} chunks were left unembedded by an earlier run; embedding them now" in caplog.text
    for _ in range(300):
        if restarted.index.pending_embeddings() == 0:
            break
        await anyio.sleep(0.1)
    assert restarted.index.pending_embeddings() == 0
