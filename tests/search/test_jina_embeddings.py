"""The jina embeddings provider against a local fake of Jina's /v1/embeddings."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import numpy as np
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.embeddings.jina import JinaEmbeddings
from bio_mcp.search.embeddings.openai_compat import openai_base_url
from bio_mcp.sources.model_apis import ModelApi
from tests.support.model_apis import ModelApis, run_model_apis


@pytest.fixture(scope="module")
def running() -> Iterator[ModelApis]:
    with run_model_apis() as apis:
        yield apis


@pytest.fixture
def apis(running: ModelApis) -> Iterator[ModelApis]:
    running.reset()
    yield running
    running.reset()


def jina(url: str, key: str = "k", *, max_retries: int = 2, **kwargs) -> JinaEmbeddings:
    """The provider as build_embeddings makes it, retrying quickly."""
    api = ModelApi(openai_base_url(url), key, what="Jina embeddings", code=ErrorCode.EMBEDDINGS, max_retries=max_retries, backoff_s=0.01)
    return JinaEmbeddings(api, **kwargs)


def test_passages_in_batches_and_queries_with_their_task(apis: ModelApis) -> None:
    client = jina(apis.url + "/v1", "jina-key", model="jina-embeddings-v3", dimensions=64, batch_size=2)
    texts = ["aspirin and stroke", "metformin", "statins", "insulin", "warfarin"]
    vectors = client.embed_array(texts)
    assert np.allclose(vectors, HashEmbeddings(dim=64).embed_array(texts), atol=1e-6)
    query = client.embed_query("aspirin")
    assert np.allclose(query, HashEmbeddings(dim=64).embed_query("aspirin"), atol=1e-6)
    bodies = [body for path, body, _ in apis.requests]
    assert [len(b["input"]) for b in bodies] == [2, 2, 1, 1]
    assert [b["task"] for b in bodies] == ["retrieval.passage"] * 3 + ["retrieval.query"]
    assert all(b["model"] == "jina-embeddings-v3" and b["dimensions"] == 64 for b in bodies)
    assert {auth for _, _, auth in apis.requests} == {"Bearer jina-key"}
    assert client.dim == 64 and client.model_id.startswith("jina:jina-embeddings-v3:64@")


def test_dim_is_learned_from_the_first_answer(apis: ModelApis) -> None:
    assert jina(apis.url).dim == 64
    assert len(apis.requests) == 1


def test_server_errors_and_rate_limits_are_retried(apis: ModelApis) -> None:
    apis.faults.extend([429, 503])
    client = jina(apis.url)
    assert client.embed_array(["aspirin"]).shape == (1, 64)
    assert len(apis.requests) == 3


@pytest.mark.parametrize(("faults", "message"), [([401], "HTTP 401"), ([502, 502, 502], "HTTP 502"), (["garbage"], "malformed")])
def test_failures_are_typed_embeddings_errors(apis: ModelApis, faults: list[int | str], message: str) -> None:
    apis.faults.extend(faults)
    client = jina(apis.url)
    with pytest.raises(BioMcpError) as info:
        client.embed(["aspirin"])
    assert info.value.code is ErrorCode.EMBEDDINGS and message in info.value.message
    assert "Jina embeddings" in info.value.message


def test_an_unreachable_endpoint_is_a_typed_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = jina(f"http://127.0.0.1:{port}", max_retries=1)
    with pytest.raises(BioMcpError) as info:
        client.embed_query("aspirin")
    assert info.value.code is ErrorCode.EMBEDDINGS and "could not be reached" in info.value.message
