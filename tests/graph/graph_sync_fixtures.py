"""Fixtures for graph tests: a corpus synced from the fake E-utilities over the real records, with the
real MeSH catalog and dictionary linker (SQLite and PostgreSQL). Registered in tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import RunningFakes
from tests.corpus.corpus_fixtures import TERM, UNTIL, corpus_settings

GraphServiceFactory = Callable[..., CorpusService]


@pytest.fixture(scope="session")
def graph_indexer(data_dir: Path, linker_cache: Path) -> GraphIndexer:
    """The shipped catalog and linker over the real MeSH 2024 descriptors (MeSH terms only)."""
    mesh = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    return GraphIndexer(load_catalog(mesh, linker_cache), load_linker_from(mesh, None, linker_cache))


@pytest.fixture
async def make_graph_service(
    bio_home: Path, corpus_fakes: RunningFakes, graph_indexer: GraphIndexer
) -> AsyncIterator[GraphServiceFactory]:
    opened: list[tuple[CorpusService, EutilsClient]] = []

    def make(database_url: str | None = None, **kwargs: Any) -> CorpusService:
        settings = corpus_settings(bio_home, corpus_fakes, database_url)
        eutils = EutilsClient(settings)
        kwargs.setdefault("sync_options", SyncOptions(until=UNTIL, batch_size=100))
        kwargs.setdefault("embed_in_background", False)
        kwargs.setdefault("graph", graph_indexer)
        service = CorpusService(settings, eutils, **kwargs)
        opened.append((service, eutils))
        return service

    yield make
    for service, eutils in opened:
        await service.aclose()
        await eutils.aclose()


async def synced(make: GraphServiceFactory, database_url: str | None, query_key: str = "graph") -> CorpusService:
    service = make(database_url)
    await service.sync_delta(SyncDeltaRequest(query_key=query_key, term=TERM))
    return service
