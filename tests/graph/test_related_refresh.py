"""RELATED_TO in step with the corpus after syncs (fake E-utilities over the real records, real MeSH
linker; SQLite and PostgreSQL): the server's background refresher, the staleness check, a failing
refresh, and refreshes racing on one database."""

from __future__ import annotations

import logging
import threading
from datetime import date

import pytest
import sqlalchemy as sa

from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.graph import related_refresh
from bio_mcp.graph.related import META_KEY, RelatedEdges, related_edges
from bio_mcp.graph.related_refresh import refresh_related_if_stale, refresh_related_now, related_is_stale
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store import MetadataStore
from bio_mcp.store.schema import documents, kg_edges
from tests.corpus.corpus_fixtures import TERM, UNTIL

pytestmark = pytest.mark.anyio

# The first sync stops at mid-year; the second goes on to UNTIL, adding the rest of 2024's records.
MID_YEAR = date(2024, 7, 1)
REQUEST = SyncDeltaRequest(query_key="related", term=TERM)


def first_half(make, database_url: str | None, **kwargs) -> CorpusService:
    return make(database_url, sync_options=SyncOptions(until=MID_YEAR, batch_size=100), **kwargs)


async def second_half(service: CorpusService) -> None:
    response = await service.sync_delta(REQUEST, options=SyncOptions(until=UNTIL, batch_size=100))
    assert response.inserted > 0


def stored_related(store: MetadataStore) -> tuple[set[tuple[str, str, float]], dict | None]:
    with store.read() as tx:
        edges = {
            (row.src, row.dst, row.weight)
            for row in tx.connection.execute(
                sa.select(kg_edges.c.src, kg_edges.c.dst, kg_edges.c.weight).where(kg_edges.c.type == "RELATED_TO")
            )
        }
        return edges, SqlGraphStore(tx.connection).meta(META_KEY)


def document_count(store: MetadataStore) -> int:
    with store.read() as tx:
        return int(tx.connection.execute(sa.select(sa.func.count()).select_from(documents)).scalar_one())


def assert_in_step(store: MetadataStore) -> dict:
    """RELATED_TO holds exactly the edges of the current MENTIONS, and its record names their version."""
    stored, recorded = stored_related(store)
    with store.read() as tx:
        expected, sections, _ = related_edges(tx.connection)
        version = SqlGraphStore(tx.connection).mentions_version()
        stale = related_is_stale(tx.connection)
    assert stored == {(edge.src, edge.dst, edge.weight) for edge in expected}
    assert version is not None and recorded is not None and recorded["mentions_version"] == version
    assert recorded["sections"] == sections and recorded["edges"] == len(expected)
    assert not stale
    return recorded


async def test_a_service_sync_recomputes_related_to_in_the_background(make_graph_service, database_url, monkeypatch) -> None:
    monkeypatch.setenv("BIO_MCP_GRAPH_RELATED_DELAY_S", "0")
    service = first_half(make_graph_service, database_url, refresh_related=True)
    await service.sync_delta(REQUEST)
    assert service.related_refresher is not None
    await service.related_refresher.settled()
    first = assert_in_step(service.store)
    assert first["edges"] > 0

    await second_half(service)
    await service.related_refresher.settled()
    second = assert_in_step(service.store)
    assert second["sections"] > first["sections"]
    assert second["mentions_version"] != first["mentions_version"]


async def test_staleness_is_false_after_a_refresh_and_true_after_a_write(make_graph_service, database_url) -> None:
    service = first_half(make_graph_service, database_url)
    assert service.related_refresher is None  # not a server: nothing refreshes behind the test's back
    await service.sync_delta(REQUEST)
    with service.store.read() as tx:
        assert related_is_stale(tx.connection)  # never computed

    done = refresh_related_now(service.store)
    assert done.status == "written" and done.edges > 0
    assert_in_step(service.store)
    assert refresh_related_if_stale(service.store).status == "current"

    await second_half(service)
    with service.store.read() as tx:
        assert related_is_stale(tx.connection)
    assert refresh_related_if_stale(service.store, max_sections=done.sections).status == "too_large"
    again = refresh_related_if_stale(service.store)
    assert again.status == "written" and again.sections > done.sections
    assert_in_step(service.store)


async def test_a_sync_that_writes_nothing_leaves_related_to_current(make_graph_service, database_url) -> None:
    service = first_half(make_graph_service, database_url)
    await service.sync_delta(REQUEST)
    refresh_related_now(service.store)
    # The same window again (a new query key starts from the same look-back): every record unchanged.
    response = await service.sync_delta(SyncDeltaRequest(query_key="again", term=TERM))
    assert response.inserted == 0 and response.updated == 0
    assert refresh_related_if_stale(service.store).status == "current"


async def test_a_failing_refresh_leaves_the_sync_successful_and_the_graph_consistent(
    make_graph_service, database_url, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("BIO_MCP_GRAPH_RELATED_DELAY_S", "0")
    service = first_half(make_graph_service, database_url, refresh_related=True)
    await service.sync_delta(REQUEST)
    assert service.related_refresher is not None
    await service.related_refresher.settled()
    before, recorded = stored_related(service.store)
    assert before and recorded is not None

    # The write fails after the old edges were deleted and the new inserted: all of it rolls back.
    original = SqlGraphStore.set_meta

    def failing_set_meta(self, key, value):
        if key == META_KEY:
            raise RuntimeError("disk full")
        original(self, key, value)

    monkeypatch.setattr(SqlGraphStore, "set_meta", failing_set_meta)
    stored_documents = document_count(service.store)
    with caplog.at_level(logging.ERROR, logger="bio_mcp.graph.related"):
        await second_half(service)
        await service.related_refresher.settled()
    assert "recomputing RELATED_TO failed" in caplog.text and "disk full" in caplog.text
    assert document_count(service.store) > stored_documents
    assert stored_related(service.store) == (before, recorded)
    with service.store.read() as tx:
        assert related_is_stale(tx.connection)

    # The next write's wake retries it.
    monkeypatch.setattr(SqlGraphStore, "set_meta", original)
    await service.sync_delta(REQUEST)
    await service.related_refresher.settled()
    assert assert_in_step(service.store)["sections"] > recorded["sections"]


async def test_refreshes_racing_on_one_database_write_once_without_error(make_graph_service, database_url, monkeypatch) -> None:
    service = first_half(make_graph_service, database_url)
    await service.sync_delta(REQUEST)
    racers = 4
    # Every racer computes from the same state, then all write at once: as replicas woken by one sync.
    computed = threading.Barrier(racers, timeout=60)
    compute = related_refresh.compute_related

    def compute_then_wait(connection) -> RelatedEdges:
        result = compute(connection)
        computed.wait()
        return result

    monkeypatch.setattr(related_refresh, "compute_related", compute_then_wait)
    url = service.settings.sqlalchemy_url
    stores = [MetadataStore.open(url, lock_dir=service.settings.home / "locks") for _ in range(racers)]
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def race(store: MetadataStore) -> None:
        try:
            outcomes.append(refresh_related_now(store).status)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=race, args=(store,)) for store in stores]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for store in stores:
            store.close()
    assert errors == []
    assert sorted(outcomes) == ["kept"] * (racers - 1) + ["written"]
    assert_in_step(service.store)
