"""A server's corpus imports the Thai herb names and formulations the package ships when it opens,
once per store, so herbs are found by their Thai names with no `bio-mcp kg import` step."""

from __future__ import annotations

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.herbs import find_formulation, find_herb
from bio_mcp.graph.kg_import import import_shipped_tables
from bio_mcp.sources.ncbi.client import EutilsClient

pytestmark = pytest.mark.anyio


async def test_a_server_corpus_finds_herbs_by_their_thai_names_once_opened(bio_home, linker_cache) -> None:
    settings = load_settings(BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash",
                             BIO_MCP_CACHE_DIR=str(linker_cache))
    eutils = EutilsClient(settings)
    corpus = CorpusService(settings, eutils, embed_in_background=True, refresh_related=False)
    try:
        await corpus.open()
        with corpus.store.read() as tx:
            turmeric = find_herb(tx.connection, "ขมิ้นชัน", corpus.graph.catalog.vocabulary)
            triphala = find_formulation(tx.connection, "ตรีผลา", corpus.graph.catalog.vocabulary)
        assert turmeric is not None and turmeric[1].name("th") == "ขมิ้นชัน"
        assert triphala is not None
        # Once per store: the tables are recorded, and opening again imports nothing.
        assert import_shipped_tables(corpus.store, corpus.graph.catalog) == []
    finally:
        await corpus.aclose()
        await eutils.aclose()


async def test_a_corpus_opened_for_a_tool_of_its_own_imports_nothing(bio_home, linker_cache) -> None:
    settings = load_settings(BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash",
                             BIO_MCP_CACHE_DIR=str(linker_cache))
    eutils = EutilsClient(settings)
    corpus = CorpusService(settings, eutils, embed_in_background=False)
    try:
        await corpus.open()
        with corpus.store.read() as tx:
            assert find_herb(tx.connection, "ขมิ้นชัน", corpus.graph.catalog.vocabulary) is None
    finally:
        await corpus.aclose()
        await eutils.aclose()
