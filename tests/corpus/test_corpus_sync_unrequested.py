"""A sync stores only the records it asked EFetch for, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from bio_mcp.features.corpus.models import SyncDeltaRequest
from tests.corpus.corpus_fixtures import TERM

pytestmark = pytest.mark.anyio

FIRST_EXTRA = 90_000_000


async def test_records_nobody_asked_for_are_not_stored(make_service, corpus_fakes, database_url) -> None:
    service = make_service(database_url)
    total = len(corpus_fakes.eutils.records)
    corpus_fakes.eutils.inject(corpus_fakes.eutils.extra_records(25, first_pmid=FIRST_EXTRA), path="efetch.fcgi")
    response = await service.sync_delta(SyncDeltaRequest(query_key="all", term=TERM))
    assert response.inserted == total
    with service.store.read() as tx:
        assert tx.documents.count() == total
        assert tx.documents.get_many(str(FIRST_EXTRA + i) for i in range(25)) == {}
    assert any("25 records that were not requested" in warning for warning in response.warnings)
