"""A local fake of the third-party model APIs kb.search can use: Jina embeddings (``/v1/embeddings``),
Jina rerank (``/v1/rerank``) and Cohere rerank (``/v2/rerank``), in their real request and answer
shapes, so the real HTTP clients are tested without a network.

    with run_model_apis() as apis:
        apis.url                      # http://127.0.0.1:PORT
        apis.faults.extend([503])     # the next answers: an HTTP status, or "garbage"
        apis.requests                 # (path, body, Authorization) per request

Embeddings are the hash provider's (deterministic, no model). A rerank score is the share of the
query's words found in the document, so the most on-topic text scores highest; answers come best
first with the input index, as the real APIs give them.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bio_mcp.search.embeddings.hashing import HashEmbeddings

_WORD = re.compile(r"[a-z0-9]+")


def overlap_score(query: str, document: str) -> float:
    words = set(_WORD.findall(query.lower()))
    if not words:
        return 0.0
    present = set(_WORD.findall(document.lower()))
    return round(len(words & present) / len(words), 6)


@dataclass
class ModelApis:
    url: str = ""
    requests: list[tuple[str, dict[str, Any], str | None]] = field(default_factory=list)
    faults: list[int | str] = field(default_factory=list)
    dim: int = 64

    def reset(self) -> None:
        self.requests.clear()
        self.faults.clear()


def build_model_apis_app(state: ModelApis) -> Starlette:
    hashing = HashEmbeddings(dim=state.dim)

    async def logged(request: Request) -> tuple[dict[str, Any], Response | None]:
        body = await request.json()
        state.requests.append((request.url.path, body, request.headers.get("authorization")))
        if state.faults:
            fault = state.faults.pop(0)
            if fault == "garbage":
                return body, PlainTextResponse("<html>not json</html>")
            return body, JSONResponse({"detail": "injected fault"}, status_code=int(fault))
        return body, None

    async def embeddings(request: Request) -> Response:
        body, fault = await logged(request)
        if fault is not None:
            return fault
        vectors = hashing.embed(body["input"])
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)][::-1]
        return JSONResponse({"model": body["model"], "object": "list", "data": data,
                             "usage": {"total_tokens": sum(len(t.split()) for t in body["input"])}})

    def ranked(body: dict[str, Any]) -> list[dict[str, Any]]:
        scores = [(i, overlap_score(body["query"], doc)) for i, doc in enumerate(body["documents"])]
        scores.sort(key=lambda item: (-item[1], item[0]))
        return [{"index": i, "relevance_score": s} for i, s in scores[: body.get("top_n") or len(scores)]]

    async def jina_rerank(request: Request) -> Response:
        body, fault = await logged(request)
        if fault is not None:
            return fault
        results = [item | {"document": {"text": body["documents"][item["index"]]}} for item in ranked(body)]
        return JSONResponse({"model": body["model"], "results": results, "usage": {"total_tokens": 1}})

    async def cohere_rerank(request: Request) -> Response:
        body, fault = await logged(request)
        if fault is not None:
            return fault
        return JSONResponse({"id": "fake", "results": ranked(body), "meta": {"api_version": {"version": "2"}}})

    return Starlette(routes=[
        Route("/v1/embeddings", embeddings, methods=["POST"]),
        Route("/v1/rerank", jina_rerank, methods=["POST"]),
        Route("/v2/rerank", cohere_rerank, methods=["POST"]),
    ])


@contextmanager
def run_model_apis(host: str = "127.0.0.1", dim: int = 64) -> Iterator[ModelApis]:
    """Serve the fake on a free port in a background thread for the block's duration."""
    import socket

    with socket.socket() as probe:
        probe.bind((host, 0))
        port = int(probe.getsockname()[1])
    state = ModelApis(url=f"http://{host}:{port}", dim=dim)
    server = uvicorn.Server(uvicorn.Config(build_model_apis_app(state), host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="bio-mcp-model-apis", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the fake model APIs did not start")
        time.sleep(0.02)
    try:
        yield state
    finally:
        server.should_exit = True
        thread.join(timeout=5)
