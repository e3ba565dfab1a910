"""Crash safety and index repair: a sync killed mid-run, unflushed index writes, a model switch, a
lost index folder."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from bio_mcp.features.corpus.models import RagSearchRequest, SyncDeltaRequest
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.hybrid import HybridIndex, IndexedChunk
from bio_mcp.store import open_metadata_store
from tests.corpus.corpus_fixtures import SPREAD, TERM, UNTIL, corpus_settings

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]

SYNC_SCRIPT = textwrap.dedent(
    f"""
    import asyncio
    from datetime import date
    from bio_mcp.config import load_settings
    from bio_mcp.features.corpus.models import SyncDeltaRequest
    from bio_mcp.features.corpus.service import sync_once
    from bio_mcp.features.corpus.sync import SyncOptions

    options = SyncOptions(until=date.fromisoformat("{UNTIL.isoformat()}"), batch_size=10, max_window_days=31,
                          since=date.fromisoformat("{SPREAD[0].date().isoformat()}"))
    asyncio.run(sync_once(load_settings(), SyncDeltaRequest(query_key="killed", term="{TERM}"), options))
    """
)


def chunk_uuids(store) -> tuple[set[str], set[str]]:
    """All chunk UUIDs, and those the flags say are missing from an index."""
    with store.read() as tx:
        chunks = [chunk for page in tx.chunks.iterate() for chunk in page]
    return {c.uuid for c in chunks}, {c.uuid for c in chunks if not c.bm25_indexed or not c.vector_indexed}


async def synced_chunk_uuids(service, query_key: str) -> set[str]:
    """Syncs and embeds the fake corpus under `query_key`, closes the service; returns the chunk UUIDs."""
    await service.sync_delta(SyncDeltaRequest(query_key=query_key, term=TERM))
    await service.drain()
    uuids, _ = chunk_uuids(service.store)
    await service.aclose()
    return uuids


async def test_a_sync_killed_mid_run_is_repaired_by_the_rerun(make_service, corpus_fakes, bio_home) -> None:
    settings = corpus_settings(bio_home, corpus_fakes)
    env = {
        **os.environ,
        "BIO_MCP_HOME": str(settings.home),
        "NCBI_EUTILS_BASE_URL": corpus_fakes.eutils_base_url,
        "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
        "NCBI_API_KEY": "test-key",
    }
    corpus_fakes.eutils.latency_s = 0.05
    process = await anyio.open_process([sys.executable, "-c", SYNC_SCRIPT], env=env, cwd=REPO)
    store = open_metadata_store(settings)
    try:
        with anyio.fail_after(60):
            while True:
                with store.read() as tx:
                    if tx.documents.count() >= 120:
                        break
                assert process.returncode is None, "the sync subprocess ended before it was killed"
                await anyio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        with anyio.fail_after(10):
            await process.wait()
        corpus_fakes.eutils.latency_s = 0.0

        with store.read() as tx:
            stored = tx.documents.count()
            watermark = tx.checkpoints.get("killed")
            [job] = tx.jobs.recent(query_key="killed")
            stored_pmids = set(tx.documents.get_many(corpus_fakes.eutils.records))
        assert job.status == "running"
        assert 0 < stored < len(corpus_fakes.eutils.records)
        # The watermark is never ahead of the data: every record at or below it is stored.
        assert watermark is not None
        covered = {p for p, r in corpus_fakes.eutils.records.items() if r.entrez_date.strftime("%Y-%m-%dT%H:%M:%SZ") <= watermark}
        assert covered <= stored_pmids

        service = make_service()
        rerun = await service.sync_delta(SyncDeltaRequest(query_key="killed", term=TERM))
        assert any("did not finish" in warning for warning in rerun.warnings)
        await service.drain()
        with service.store.read() as tx:
            assert tx.documents.count() == len(corpus_fakes.eutils.records)
            statuses = sorted(job.status for job in tx.jobs.recent(query_key="killed"))
        assert statuses == ["done", "failed"]
        uuids, unindexed = chunk_uuids(service.store)
        bm25_uuids, vector_uuids = service.index.uuids()
        assert bm25_uuids == vector_uuids == uuids and not unindexed
    finally:
        if process.returncode is None:
            process.kill()
        await process.aclose()
        store.close()


async def test_a_model_switch_forces_a_full_re_embed(make_service) -> None:
    service = make_service()
    await service.sync_delta(SyncDeltaRequest(query_key="m", term=TERM))
    await service.drain()
    with service.store.read() as tx:
        total = tx.chunks.state_counts().total
    await service.aclose()

    switched = make_service(embeddings=HashEmbeddings(dim=256))
    await switched.open()
    assert switched.last_reconcile is not None and switched.last_reconcile.model_switch_reset == total
    # Never a mixed index: no 384-d vector survives, and search falls back to BM25 until re-embedded.
    assert switched.index.hybrid.vector_count == 0
    hits = await switched.search(RagSearchRequest(query="cancer"))
    assert hits.results and all(result.sim is None for result in hits.results)
    assert await switched.drain() == total
    with switched.store.read() as tx:
        counts = tx.chunks.state_counts("hash:v1:256")
        assert counts.embedded == counts.vector_indexed == total
    assert switched.index.hybrid.embeddings.dim == 256 and switched.index.hybrid.vector_count == total


async def test_lost_index_folders_are_rebuilt_from_the_store(make_service, bio_home) -> None:
    uuids = await synced_chunk_uuids(make_service(), "lost")
    shutil.rmtree(bio_home / "index")

    reopened = make_service()
    await reopened.open()
    assert reopened.last_reconcile.rebuilt
    assert reopened.index.uuids() == (uuids, uuids)
    assert await reopened.rebuild_indexes() == len(uuids)
    assert reopened.index.uuids() == (uuids, uuids)


async def test_index_writes_a_crash_left_unflushed_are_redone_from_the_store(make_service, bio_home) -> None:
    uuids = await synced_chunk_uuids(make_service(), "journal")

    # A process dies between writing the index and flushing it: BM25 committed, vectors not saved.
    first, second = sorted(uuids)[:2]
    crashed = HybridIndex(HashEmbeddings(), bio_home / "index")
    crashed.upsert([IndexedChunk(first, "1", "zymurgy xylophone quokka")], delete=[second])
    del crashed

    reopened = make_service()
    await reopened.open()
    assert reopened.last_reconcile is not None and reopened.last_reconcile.reindexed == 2
    assert reopened.index.uuids() == (uuids, uuids)
    assert chunk_uuids(reopened.store) == (uuids, set())
    assert reopened.index.search("zymurgy xylophone quokka", 5, False, mode="bm25") == []


EMBED_KILL_SCRIPT = textwrap.dedent(
    f"""
    import asyncio
    from datetime import date
    from bio_mcp.config import load_settings
    from bio_mcp.features.corpus.models import SyncDeltaRequest
    from bio_mcp.features.corpus.service import sync_once
    from bio_mcp.features.corpus.sync import SyncOptions

    options = SyncOptions(until=date(2024, 3, 15), batch_size=50)
    asyncio.run(sync_once(load_settings(), SyncDeltaRequest(query_key="embedding", term="{TERM}"), options))
    """
)


async def test_a_sync_killed_while_embedding_with_onnx_leaves_store_and_indexes_agreeing(
    make_service, corpus_fakes, bio_home, database_url
) -> None:
    from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings

    settings = corpus_settings(bio_home, corpus_fakes, database_url)
    env = {
        **os.environ,
        "BIO_MCP_HOME": str(settings.home),
        "NCBI_EUTILS_BASE_URL": corpus_fakes.eutils_base_url,
        "BIO_MCP_EMBEDDINGS_PROVIDER": "onnx",
        # Small embedding batches: many commits, so the kill lands between two of them.
        "BIO_MCP_EMBEDDINGS_BATCH_SIZE": "4",
        "NCBI_API_KEY": "test-key",
        **({"DATABASE_URL": database_url} if database_url else {}),
    }
    process = await anyio.open_process([sys.executable, "-c", EMBED_KILL_SCRIPT], env=env, cwd=REPO)
    store = open_metadata_store(settings)
    model_id = OnnxEmbeddings().model_id
    try:
        with anyio.fail_after(180):
            while True:
                with store.read() as tx:
                    counts = tx.chunks.state_counts(model_id)
                # Chunks embedded, but not all: the sync is in its embedding phase.
                if 0 < counts.embedded < counts.total:
                    break
                assert process.returncode is None, "the sync subprocess ended before it was killed"
                await anyio.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        with anyio.fail_after(10):
            await process.wait()
        with store.read() as tx:
            killed_at = tx.chunks.state_counts(model_id)
        assert 0 < killed_at.embedded < killed_at.total

        service = make_service(database_url, embeddings=OnnxEmbeddings())
        await service.open()
        assert await service.drain() == killed_at.total - killed_at.embedded
        uuids, unindexed = chunk_uuids(service.store)
        with service.store.read() as tx:
            after = tx.chunks.state_counts(model_id)
        assert len(uuids) == after.total == after.embedded == killed_at.total and not unindexed
        bm25_uuids, vector_uuids = service.index.uuids()
        assert bm25_uuids == vector_uuids == uuids
    finally:
        if process.returncode is None:
            process.kill()
        await process.aclose()
        store.close()
