"""Scores that mean what they say, on the real records synced from the fake E-utilities (with the
graph's MeSH linker, as a server syncs): every score of rag.search, kb.search and
tool.hybrid_search is in [0, 1], and each lists in `unmatched_terms` the query's terms that no
returned document names by any synonym, said first in its text."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client

from bio_mcp.features.corpus.models import RagSearchRequest, SyncDeltaRequest
from bio_mcp.features.corpus.search import summarize as summarize_rag
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest
from bio_mcp.features.evidence.hybrid_search import summarize as summarize_hybrid
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.features.kb.search import summarize as summarize_kb
from bio_mcp.server.app import build_server
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.corpus import build_corpus_toolset
from bio_mcp.server.toolsets.evidence import search_tools
from bio_mcp.server.toolsets.kb import build_kb_toolset
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import FakesApp, run_fakes
from tests.corpus.corpus_fixtures import SPREAD, TERM, UNTIL, corpus_settings

pytestmark = pytest.mark.anyio

# No title or abstract of the 463 real records names metformin or warfarin (checked against the file
# in `test_the_drugs_are_named_by_no_record`); 18927361 is "DNA test for breast cancer risk draws
# criticism."; 3206528 "The chronic hepatic or renal toxicity of di(2-ethylhexyl) phthalate,
# acetaminophen, ..." (paracetamol is an entry term of Acetaminophen).
METFORMIN_QUESTION = "Is metformin associated with lower cancer risk?"
METFORMIN_SENTENCE = "No document mentions metformin; the results below match only 'cancer risk'."
QUERIES = (
    METFORMIN_QUESTION,
    "garlic and warfarin interaction",
    "breast cancer risk",
    "chronic renal toxicity of paracetamol",
    "phthalate hepatotoxicity in rats",
    "peroxisome proliferator liver tumor",
)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def synced(
    tmp_path_factory: pytest.TempPathFactory, fakes_app: FakesApp, data_dir: Path
) -> AsyncIterator[CorpusService]:
    """Every real record synced once (store, index, hash vectors, the graph linked by the settings'
    MeSH linker), for the module's tests to read."""
    fakes_app.reset()
    fakes_app.eutils.spread_edats(*SPREAD)
    with run_fakes(data_dir, app=fakes_app) as running:
        settings = corpus_settings(tmp_path_factory.mktemp("unmatched-home"), running)
        eutils = EutilsClient(settings)
        service = CorpusService(
            settings, eutils, embed_in_background=False,
            sync_options=SyncOptions(until=UNTIL, batch_size=100, since=SPREAD[0].date()),
        )
        synced = await service.sync_delta(SyncDeltaRequest(query_key="all", term=TERM))
        assert synced.inserted == len(fakes_app.eutils.records)
        await service.drain()
        yield service
        await service.aclose()
        await eutils.aclose()
    fakes_app.reset()


def corpus_texts(service: CorpusService) -> list[str]:
    with service.store.read() as tx:
        return [chunk.text.lower() for page in tx.chunks.iterate() for chunk in page]


async def test_rag_search_names_the_drug_no_document_mentions_first(synced: CorpusService) -> None:
    texts = corpus_texts(synced)
    assert texts and not any("metformin" in text or "warfarin" in text or "garlic" in text for text in texts)
    response = await synced.search(RagSearchRequest(query=METFORMIN_QUESTION, top_k=10))
    assert response.results and response.unmatched_terms == ["metformin"]
    assert summarize_rag(response).startswith(METFORMIN_SENTENCE)
    # The papers match the rest of the question.
    assert any("cancer" in (result.title or "").lower() for result in response.results)


async def test_kb_and_hybrid_search_name_the_drugs_no_document_mentions_first(synced: CorpusService) -> None:
    retrieval = KbRetrieval(synced)
    kb = await retrieval.search(KbSearchRequest(query=METFORMIN_QUESTION))
    assert kb.evidence and kb.unmatched_terms == ["metformin"]
    assert summarize_kb(kb).startswith(METFORMIN_SENTENCE)
    hybrid = await HybridSearch(retrieval).search(HybridSearchRequest(query="garlic and warfarin interaction", lang="en"))
    assert any(hit.type == "paper" for hit in hybrid.hits)
    assert hybrid.unmatched_terms == ["garlic", "warfarin"]
    assert summarize_hybrid(hybrid).startswith(
        "No document mentions garlic or warfarin; the results below match only 'interaction'."
    )


async def test_a_query_whose_terms_all_match_lists_none(synced: CorpusService) -> None:
    rag = await synced.search(RagSearchRequest(query="breast cancer risk", top_k=5))
    assert rag.results and rag.unmatched_terms == [] and rag.note is None
    assert summarize_rag(rag).startswith(f"{len(rag.results)} documents, best first:")
    kb = await KbRetrieval(synced).search(KbSearchRequest(query="breast cancer risk", top_k=5))
    assert kb.evidence and kb.unmatched_terms == [] and not (kb.note or "").startswith("No document mentions")


async def test_a_synonym_of_what_a_document_names_counts_as_matched(synced: CorpusService) -> None:
    # No record says "paracetamol"; the chronic toxicity paper says "acetaminophen", which MeSH files
    # paracetamol under. A word no record holds in any form stays unmatched beside it.
    query = "chronic renal toxicity of paracetamol"
    texts = corpus_texts(synced)
    assert not any("paracetamol" in text for text in texts) and any("acetaminophen" in text for text in texts)
    rag = await synced.search(RagSearchRequest(query=query, top_k=5))
    assert "pmid:3206528" in {result.doc_id for result in rag.results}
    assert rag.unmatched_terms == []
    kb = await KbRetrieval(synced).search(KbSearchRequest(query=query, top_k=5))
    assert kb.unmatched_terms == []
    spelled = await synced.search(RagSearchRequest(query="chronic renal toxicity of paracetamolum", top_k=5))
    assert spelled.unmatched_terms == ["paracetamolum"]


async def test_every_score_of_the_three_searches_is_in_0_1(synced: CorpusService) -> None:
    retrieval = KbRetrieval(synced)
    for query in QUERIES:
        for quality_bias in (True, False):
            rag = await synced.search(RagSearchRequest(query=query, top_k=20, quality_bias=quality_bias))
            assert rag.results and all(0.0 <= result.score <= 1.0 for result in rag.results), query
        kb = await retrieval.search(KbSearchRequest(query=query, top_k=20))
        assert kb.evidence and all(0.0 <= item.metadata.score <= 1.0 for item in kb.evidence), query
        hybrid = await HybridSearch(retrieval).search(HybridSearchRequest(query=query, top_k=20))
        assert hybrid.hits and all(0.0 <= hit.score <= 1.0 for hit in hybrid.hits), query


async def test_the_quality_factor_reaches_1_only_at_the_best_quality(synced: CorpusService) -> None:
    # The exact title of a record: its relevance, then that relevance weighted by its quality total q,
    # (1 + 0.1 q / 8) / 1.1: 1 at q = 8, 1 / 1.1 at q = 0; the order is the one the unscaled factor gave.
    title = "Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer."
    plain = await synced.search(RagSearchRequest(query=title, top_k=10, quality_bias=False))
    biased = await synced.search(RagSearchRequest(query=title, top_k=10, quality_bias=True))
    relevance = {result.doc_id: result.score for result in plain.results}
    assert plain.results[0].doc_id == biased.results[0].doc_id == "pmid:27797938"
    for result in biased.results:
        if result.doc_id in relevance:
            factor = (1 + 0.1 * (result.quality or 0) / 8) / 1.1
            assert result.score == pytest.approx(relevance[result.doc_id] * factor), result.doc_id


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    return result.structured_content, result.content[0].text


async def test_the_results_validate_against_the_output_schemas_through_mcp(synced: CorpusService) -> None:
    retrieval = KbRetrieval(synced)
    evidence, _ = search_tools(synced, retrieval)
    toolsets = [
        build_corpus_toolset(synced), build_kb_toolset(retrieval, synced.settings),
        Toolset(name="evidence", tools=[tool for tool in evidence if tool.name == "tool.hybrid_search"]),
    ]
    async with Client(build_server(toolsets)) as client:
        schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        for name, arguments in (
            ("rag_search", {"query": METFORMIN_QUESTION, "top_k": 5}),
            ("kb_search", {"query": METFORMIN_QUESTION}),
            ("tool_hybrid_search", {"query": "garlic and warfarin interaction", "lang": "en"}),
        ):
            body, text = await _call(client, name, arguments)
            jsonschema.validate(body, schemas[name])
            assert body["unmatched_terms"] and text.startswith("No document mentions"), (name, text[:200])
            assert schemas[name]["properties"]["unmatched_terms"]["type"] == "array"
        body, _ = await _call(client, "rag_search", {"query": "breast cancer risk", "top_k": 5})
        jsonschema.validate(body, schemas["rag_search"])
        assert body["unmatched_terms"] == [] and json.dumps(body)


# Named by no record (see `test_the_drugs_are_named_by_no_record`) and words no record holds: the
# best of such a lot once read near 1 (BM25 over this query's best, the cosine stretched over its band).
OFF_TOPIC = "metformin warfarin garlic dosing"
ON_TOPIC = "breast cancer risk"


async def test_a_result_naming_none_of_the_query_terms_scores_low_and_its_on_topic_twin_high(
    synced: CorpusService,
) -> None:
    retrieval = KbRetrieval(synced)
    off_rag = await synced.search(RagSearchRequest(query=OFF_TOPIC, top_k=10))
    off_kb = await retrieval.search(KbSearchRequest(query=OFF_TOPIC, top_k=10))
    off_hybrid = await HybridSearch(retrieval).search(HybridSearchRequest(query=OFF_TOPIC, lang="en"))
    off = [r.score for r in off_rag.results] + [e.metadata.score for e in off_kb.evidence]
    off += [hit.score for hit in off_hybrid.hits if hit.type in ("paper", "chunk")]
    assert off and max(off) < 0.5, off
    on_rag = await synced.search(RagSearchRequest(query=ON_TOPIC, top_k=10))
    on_kb = await retrieval.search(KbSearchRequest(query=ON_TOPIC, top_k=10))
    assert on_rag.results[0].score >= 0.5 and on_kb.evidence[0].metadata.score >= 0.5
    for scores in ([r.score for r in on_rag.results], [e.metadata.score for e in on_kb.evidence]):
        assert all(0.0 <= s <= 1.0 for s in scores) and scores == sorted(scores, reverse=True), scores
