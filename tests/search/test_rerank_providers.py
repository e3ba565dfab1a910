"""The Jina and Cohere rerankers against a local fake of their rerank endpoints."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.rerank import CohereReranker, JinaReranker
from bio_mcp.sources.model_apis import ModelApi
from tests.support.model_apis import ModelApis, overlap_score, run_model_apis

DOCUMENTS = [
    "Metformin lowers blood glucose in type 2 diabetes.",
    "Acetaminophen overdose causes drug-induced liver injury.",
    "Statins reduce cardiovascular events.",
]
QUERY = "acetaminophen liver injury"


def build_reranker(kind, key: str, model: str, url: str, max_retries: int = 2):
    """The reranker as the kb providers make it, retrying quickly."""
    api = ModelApi(url, key, what=f"{kind.name.capitalize()} rerank", code=ErrorCode.UPSTREAM,
                   max_retries=max_retries, backoff_s=0.01)
    return kind(api, model)


@pytest.fixture(scope="module")
def running() -> Iterator[ModelApis]:
    with run_model_apis() as apis:
        yield apis


@pytest.fixture
def apis(running: ModelApis) -> Iterator[ModelApis]:
    running.reset()
    yield running
    running.reset()


@pytest.mark.parametrize(("kind", "path", "model"), [(JinaReranker, "/v1/rerank", "jina-reranker-v2"), (CohereReranker, "/v2/rerank", "rerank-english-v3.0")])
def test_scores_come_back_in_input_order(apis: ModelApis, kind, path: str, model: str) -> None:
    reranker = build_reranker(kind, "secret", model, apis.url)
    scores = reranker.rerank(QUERY, DOCUMENTS)
    assert scores == [overlap_score(QUERY, doc) for doc in DOCUMENTS]
    assert scores.index(max(scores)) == 1 and all(0.0 <= s <= 1.0 for s in scores)
    ((seen_path, body, auth),) = apis.requests
    assert seen_path == path and auth == "Bearer secret"
    assert body == {"model": model, "query": QUERY, "documents": DOCUMENTS, "top_n": 3}
    assert reranker.rerank(QUERY, []) == [] and len(apis.requests) == 1


@pytest.mark.parametrize("kind", [JinaReranker, CohereReranker])
def test_retries_then_typed_upstream_errors(apis: ModelApis, kind) -> None:
    apis.faults.extend([503])
    reranker = build_reranker(kind, "k", "m", apis.url, max_retries=1)
    assert len(reranker.rerank(QUERY, DOCUMENTS)) == 3
    for faults, message in (([500, 500], "HTTP 500"), ([403], "HTTP 403"), (["garbage"], "malformed")):
        apis.faults.extend(faults)
        with pytest.raises(BioMcpError) as info:
            reranker.rerank(QUERY, DOCUMENTS)
        assert info.value.code is ErrorCode.UPSTREAM and message in info.value.message
        assert kind.name.capitalize() in info.value.message
