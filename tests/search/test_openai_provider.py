"""The openai provider, through sources/' model API client, against a local OpenAI-compatible endpoint
serving hash-provider vectors."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.embeddings.openai_compat import OpenAIEmbeddings, openai_base_url
from bio_mcp.sources.model_apis import MAX_BODY_BYTES, ModelApi


@dataclass
class FakeEndpoint:
    url: str
    requests: list[dict] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    # Answers to give before the normal ones: status codes, or "garbage" for a malformed body.
    faults: list[int | str] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def endpoint() -> Iterator[FakeEndpoint]:
    hashing = HashEmbeddings(dim=64)
    port = _free_port()
    state = FakeEndpoint(url=f"http://127.0.0.1:{port}")

    async def embeddings(request: Request) -> Response:
        body = await request.json()
        state.requests.append(body)
        state.auth.append(request.headers.get("authorization"))
        if state.faults:
            fault = state.faults.pop(0)
            if fault == "garbage":
                return PlainTextResponse("<html>not json</html>")
            return JSONResponse({"error": {"message": "boom"}}, status_code=int(fault))
        vectors = hashing.embed(body["input"])
        # Shuffled on purpose: clients must order by "index".
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)][::-1]
        return JSONResponse({"object": "list", "data": data, "model": body["model"]})

    app = Starlette(routes=[Route("/v1/embeddings", embeddings, methods=["POST"])])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the fake endpoint did not start")
        time.sleep(0.02)
    yield state
    server.should_exit = True
    thread.join(timeout=5)


def openai(url: str, model: str = "fake-model", *, api_key: str | None = None, batch_size: int = 64,
           max_retries: int = 2, max_body_bytes: int = MAX_BODY_BYTES) -> OpenAIEmbeddings:
    """The provider as build_embeddings makes it, retrying quickly."""
    api = ModelApi(openai_base_url(url), api_key, what="embeddings", code=ErrorCode.EMBEDDINGS,
                   max_retries=max_retries, backoff_s=0.01, max_body_bytes=max_body_bytes)
    return OpenAIEmbeddings(api, model, batch_size=batch_size)


@pytest.fixture(autouse=True)
def _reset(endpoint: FakeEndpoint) -> None:
    endpoint.requests.clear()
    endpoint.auth.clear()
    endpoint.faults.clear()


def test_vectors_match_the_served_model_in_batches(endpoint: FakeEndpoint) -> None:
    client = openai(endpoint.url + "/v1", api_key="sk-test", batch_size=2)
    texts = ["aspirin and stroke", "metformin", "statins", "insulin", "warfarin"]
    vectors = client.embed_array(texts)
    assert np.allclose(vectors, HashEmbeddings(dim=64).embed_array(texts), atol=1e-6)
    assert client.dim == 64
    assert [len(r["input"]) for r in endpoint.requests] == [2, 2, 1]
    assert all(r["model"] == "fake-model" for r in endpoint.requests)
    assert set(endpoint.auth) == {"Bearer sk-test"}


def test_dim_is_probed_when_asked_first(endpoint: FakeEndpoint) -> None:
    assert openai(endpoint.url).dim == 64
    assert len(endpoint.requests) == 1


def test_server_errors_are_retried(endpoint: FakeEndpoint) -> None:
    endpoint.faults.extend([503, 429])
    client = openai(endpoint.url)
    assert client.embed_array(["aspirin"]).shape == (1, 64)
    assert len(endpoint.requests) == 3


@pytest.mark.parametrize(
    ("faults", "message"),
    [([401], "HTTP 401"), ([500, 500, 500], "HTTP 500"), (["garbage"], "malformed")],
)
def test_failures_are_typed_embeddings_errors(
    endpoint: FakeEndpoint, faults: list[int | str], message: str
) -> None:
    endpoint.faults.extend(faults)
    client = openai(endpoint.url)
    with pytest.raises(BioMcpError) as info:
        client.embed(["aspirin"])
    assert info.value.code is ErrorCode.EMBEDDINGS
    assert message in info.value.message


def test_an_unreachable_endpoint_is_a_typed_error() -> None:
    client = openai(f"http://127.0.0.1:{_free_port()}", "m", max_retries=1)
    with pytest.raises(BioMcpError) as info:
        client.embed(["aspirin"])
    assert info.value.code is ErrorCode.EMBEDDINGS
    assert "could not be reached" in info.value.message and info.value.details["attempts"] == 2


def test_an_answer_past_the_body_cap_is_refused_as_an_embeddings_error(endpoint: FakeEndpoint) -> None:
    client = openai(endpoint.url, max_body_bytes=1_000)
    assert client.embed_array(["aspirin"]).shape == (1, 64)  # one 64-dimensional vector fits
    with pytest.raises(BioMcpError) as info:
        client.embed(["aspirin", "metformin", "statins", "insulin", "warfarin"])
    assert info.value.code is ErrorCode.EMBEDDINGS
    assert "more than 1,000 bytes" in info.value.message and len(endpoint.requests) == 2
