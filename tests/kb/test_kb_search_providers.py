"""kb.search with the Jina embeddings re-scoring and the Jina / Cohere rerankers, through the real
HTTP clients against a local fake of their APIs, on the corpus synced from the real records."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bio_mcp.features.kb.models import KbSearchRequest, SearchProviders
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.retrieval import KbRetrieval
from tests.graph.graph_sync_fixtures import synced
from tests.support.model_apis import ModelApis, overlap_score, run_model_apis

pytestmark = pytest.mark.anyio

QUERY = "acetaminophen hepatotoxicity"


@pytest.fixture(scope="module")
def apis() -> Iterator[ModelApis]:
    with run_model_apis() as running:
        yield running


async def test_rerankers_and_jina_rescoring_through_the_fake_apis(make_graph_service, apis: ModelApis) -> None:
    service = await synced(make_graph_service, None)
    await service.drain()
    settings = service.settings.model_copy(update={
        "jina_api_key": "jina-key", "jina_base_url": apis.url, "cohere_api_key": "cohere-key",
        "cohere_base_url": apis.url, "kb_reranker": "jina",
    })
    retrieval = KbRetrieval(service, providers=ProviderRegistry(settings))
    plain = await retrieval.search(KbSearchRequest(query=QUERY, providers=SearchProviders(reranker="none")))
    assert plain.diagnostics.retrieval.reranker == "none" and not apis.requests

    for name, path in (("cohere", "/v2/rerank"), (None, "/v1/rerank")):
        apis.reset()
        ranked = await retrieval.search(KbSearchRequest(query=QUERY, top_k=5, providers=SearchProviders(reranker=name)))
        assert ranked.diagnostics.retrieval.reranker == (name or "jina")  # the configured default when absent
        ((seen, body, _),) = apis.requests
        assert seen == path and body["query"] == QUERY
        assert len(body["documents"]) == ranked.diagnostics.retrieval.candidates
        # The evidence is the reranker's best five, with its scores.
        best = sorted((overlap_score(QUERY, doc) for doc in body["documents"]), reverse=True)[:5]
        assert [item.metadata.score for item in ranked.evidence] == best

    apis.reset()
    rescored = await retrieval.search(KbSearchRequest(query=QUERY, providers=SearchProviders(embedding="jina", reranker="none")))
    assert rescored.diagnostics.retrieval.provider == "jina"
    tasks = [body["task"] for _, body, _ in apis.requests]
    assert tasks.count("retrieval.query") == 1
    assert sum(len(body["input"]) for _, body, _ in apis.requests if body["task"] == "retrieval.passage") == (
        rescored.diagnostics.retrieval.candidates
    )
    assert 0.0 < rescored.evidence[0].metadata.score <= 1.0
