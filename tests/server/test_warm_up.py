"""What a server loads before its first call: with the kb and evidence toolsets, the local embedding
model and the Thai reading besides the corpus, so the first kb.search or Thai query does not wait
seconds for them (4 s and 3.5 s on two cores before)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.evidence import language, thai_english
from bio_mcp.search.embeddings import onnx_int8
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio


async def test_the_warm_up_loads_the_embedding_model_and_the_thai_reading(
    bio_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(
        BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="onnx", BIO_MCP_GRAPH_LINKING="false",
    )
    # As a fresh server process finds them: nothing loaded yet.
    monkeypatch.setattr(onnx_int8, "_sessions", {})
    language._LEXICONS.clear()
    thai_english.thai_english_words.cache_clear()

    async with Runtime(settings) as runtime:
        await runtime.warm_up(runtime.toolsets(["kb", "evidence"]))
        assert runtime.corpus.index.embeddings.model_id.startswith("onnx:")
        assert onnx_int8._sessions, "the ONNX session was not loaded"
        assert language._LEXICONS, "the name lexicon was not built"
        assert thai_english.thai_english_words.cache_info().currsize == 1
