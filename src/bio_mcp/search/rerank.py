"""Cross-encoder rerankers behind one interface: Jina (``POST /v1/rerank``) and Cohere
(``POST /v2/rerank``), over the `search.json_api.JsonApi` the features give
(`sources.model_apis.ModelApi`, error code UPSTREAM, named "Jina rerank" / "Cohere rerank").

`rerank(query, documents)` returns one relevance score in [0, 1] per document, in input order
(both APIs answer best first with the input index; a document the answer leaves out scores 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from bio_mcp.search.json_api import JsonApi

RerankerName = Literal["jina", "cohere"]


class Reranker(Protocol):
    name: str
    model: str

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]: ...


def _scores(api: JsonApi, payload: Any, count: int) -> list[float]:
    scores = [0.0] * count
    try:
        for item in payload["results"]:
            index = int(item["index"])
            if not 0 <= index < count:
                raise ValueError(f"index {index} outside 0..{count - 1}")
            scores[index] = min(1.0, max(0.0, float(item["relevance_score"])))
    except (KeyError, TypeError, ValueError) as exc:
        raise api.malformed(exc, str(payload)) from None
    return scores


class _HttpReranker:
    name: str
    path: str

    def __init__(self, api: JsonApi, model: str) -> None:
        self.model = model
        self.api = api

    def close(self) -> None:
        self.api.close()

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        body = {"model": self.model, "query": query, "documents": list(documents), "top_n": len(documents)}
        return _scores(self.api, self.api.post(self.path, body), len(documents))


class JinaReranker(_HttpReranker):
    name = "jina"
    path = "/v1/rerank"


class CohereReranker(_HttpReranker):
    name = "cohere"
    path = "/v2/rerank"
