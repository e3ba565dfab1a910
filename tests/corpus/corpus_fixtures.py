"""Corpus fixtures (registered in tests/conftest.py): the fake E-utilities over the real records with
their entry dates spread over 2024, hash embeddings, SQLite or PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from bio_mcp.config import Settings, load_settings
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import FakesApp, RunningFakes, run_fakes

# The real records get EDATs spread over 2024; syncs run up to this day, so tests do not depend on today.
SPREAD = (datetime(2024, 1, 1), datetime(2024, 12, 31))
UNTIL = date(2025, 1, 15)
TERM = "all[sb]"


@pytest.fixture
def corpus_fakes(fakes_app: FakesApp, data_dir: Path) -> Iterator[RunningFakes]:
    """The fakes on a server of their own, the records' EDATs spread over SPREAD, so syncs up to UNTIL
    see every record in a known window."""
    fakes_app.reset()
    fakes_app.eutils.spread_edats(*SPREAD)
    with run_fakes(data_dir, app=fakes_app) as running:
        yield running
    fakes_app.reset()


def corpus_settings(home: Path, fakes: RunningFakes, database_url: str | None = None, **extra: Any) -> Settings:
    overrides: dict[str, Any] = {
        "BIO_MCP_HOME": str(home),
        "NCBI_EUTILS_BASE_URL": fakes.eutils_base_url,
        "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
        # A key lifts the client's own limit to 10/s; the fake does not check it.
        "NCBI_API_KEY": "test-key",
        "NCBI_MAX_RETRIES": 1,
    }
    if database_url:
        overrides["DATABASE_URL"] = database_url
    return load_settings(**overrides, **extra)


ServiceFactory = Callable[..., CorpusService]


@pytest.fixture
async def make_service(bio_home: Path, corpus_fakes: RunningFakes) -> AsyncIterator[ServiceFactory]:
    """Builds services on one BIO_MCP_HOME (and database); all are closed at the end of the test."""
    opened: list[tuple[CorpusService, EutilsClient]] = []

    def make(database_url: str | None = None, **kwargs: Any) -> CorpusService:
        settings = corpus_settings(bio_home, corpus_fakes, database_url)
        eutils = EutilsClient(settings)
        kwargs.setdefault("sync_options", SyncOptions(until=UNTIL, batch_size=100, since=SPREAD[0].date()))
        kwargs.setdefault("embed_in_background", False)
        service = CorpusService(settings, eutils, **kwargs)
        opened.append((service, eutils))
        return service

    yield make
    for service, eutils in opened:
        await service.aclose()
        await eutils.aclose()
