"""What the HTTP-backed providers (the `openai` and `jina` embeddings, the Jina and Cohere
rerankers) need of a model API: a JSON POST. The search layer makes no HTTP call of its own; the
features that build these providers hand them `sources.model_apis.ModelApi`, so every outbound call
goes through sources/ (retries with jitter, deadlines, body caps, typed errors).
"""

from __future__ import annotations

from typing import Any, Protocol

from bio_mcp.errors import BioMcpError, ErrorCode


class JsonApi(Protocol):
    base_url: str
    what: str  # names the API in error messages

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The decoded JSON answer of `POST base_url + path`, or a BioMcpError of the provider's code."""
        ...

    def malformed(self, exc: Exception, body: str = "") -> BioMcpError:
        """The error for an answer that is JSON but not the shape the provider expects."""
        ...

    def close(self) -> None: ...


class JsonApiFactory(Protocol):
    """Builds the JsonApi of one API root (`sources.model_apis.ModelApi` is one)."""

    def __call__(self, base_url: str, api_key: str | None, *, what: str, code: ErrorCode) -> JsonApi: ...
