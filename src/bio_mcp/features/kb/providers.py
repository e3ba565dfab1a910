"""Which embedding provider and reranker a kb.search uses, among those configured.

The corpus index holds vectors of one model (BIO_MCP_EMBEDDINGS_PROVIDER). `auto`, or the name of
that provider, searches them as they are. Another configured provider re-scores the hybrid's
candidates: it embeds the query and each candidate section and its cosine replaces the index's in
the fusion (no second index: the candidates are the corpus index's). A provider that is not
configured is a VALIDATION error naming the settings to set.

Rerankers (`jina`, `cohere`) score the candidates with a cross-encoder; the request's choice, else
BIO_MCP_KB_RERANKER, else none.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.kb.models import EmbeddingProviderName, RerankerChoice
from bio_mcp.search.embeddings import Embeddings, build_embeddings
from bio_mcp.search.rerank import CohereReranker, JinaReranker, Reranker
from bio_mcp.sources.model_apis import ModelApi


@dataclass(frozen=True)
class EmbeddingChoice:
    name: str
    # None: the corpus index's own vectors; otherwise the provider that re-scores the candidates.
    rescorer: Embeddings | None


class ProviderRegistry:
    """Builds each configured provider once, on first use (thread-safe)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._embedders: dict[str, Embeddings] = {}
        self._rerankers: dict[str, Reranker] = {}

    @property
    def corpus_provider(self) -> str:
        return self.settings.embeddings_provider

    def embedding(self, requested: EmbeddingProviderName | None) -> EmbeddingChoice:
        name = requested or "auto"
        if name in ("auto", self.corpus_provider):
            return EmbeddingChoice(self.corpus_provider, None)
        with self._lock:
            if name not in self._embedders:
                self._embedders[name] = self._build_embedder(name)
            return EmbeddingChoice(name, self._embedders[name])

    def _build_embedder(self, name: str) -> Embeddings:
        return build_embeddings(self.settings, name, model_api=ModelApi)

    def reranker(self, requested: RerankerChoice | None) -> Reranker | None:
        name = requested or self.settings.kb_reranker
        if name == "none":
            return None
        with self._lock:
            if name not in self._rerankers:
                self._rerankers[name] = self._build_reranker(name)
            return self._rerankers[name]

    def _build_reranker(self, name: str) -> Reranker:
        settings = self.settings
        if name == "jina":
            if not settings.jina_api_key:
                raise _unconfigured("reranker", "jina", "JINA_API_KEY (and optionally JINA_RERANKER_MODEL, JINA_BASE_URL)")
            api = ModelApi(settings.jina_base_url, settings.jina_api_key, what="Jina rerank", code=ErrorCode.UPSTREAM)
            return JinaReranker(api, settings.jina_reranker_model)
        if not settings.cohere_api_key:
            raise _unconfigured("reranker", "cohere", "COHERE_API_KEY (and optionally COHERE_RERANK_MODEL, COHERE_BASE_URL)")
        api = ModelApi(settings.cohere_base_url, settings.cohere_api_key, what="Cohere rerank", code=ErrorCode.UPSTREAM)
        return CohereReranker(api, settings.cohere_rerank_model)

    def close(self) -> None:
        for provider in [*self._embedders.values(), *self._rerankers.values()]:
            close = getattr(provider, "close", None)
            if close is not None:
                close()


def _unconfigured(kind: str, name: str, settings: str) -> BioMcpError:
    return BioMcpError(
        ErrorCode.VALIDATION,
        f"the {kind} provider {name!r} is not configured: set {settings}",
        {"provider": name, "kind": kind, "set": settings},
    )
