"""Load on one PostgreSQL store from several processes, and a `bio-mcp serve` killed mid-sync.

Three processes sync overlapping query keys (the same records under several keys, and one key all
three contend for) while searching in a loop: nothing is lost or doubled, the only errors are the
typed "another sync of this key is running" ones, and every process's index ends equal to the
store's chunks. Then a real `bio-mcp serve --transport http` is killed with SIGKILL while a sync
runs through it; the restarted server finishes the sync and nothing is missing.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import uuid
from datetime import date

import anyio
import pytest

from bio_mcp.search.chunking import CHUNK_NAMESPACE
from bio_mcp.store import open_metadata_store
from tests.corpus.corpus_fixtures import TERM, UNTIL, corpus_settings
from tests.corpus.test_corpus_multiprocess import (
    REPO,
    a_title,
    mcp_client,
    process_env,
    start_replica,
    wait_healthy,
)
from tests.corpus.test_corpus_recovery import chunk_uuids

SINCE = date(2024, 6, 1)

LOAD_DRIVER = textwrap.dedent(
    f"""
    import asyncio, json, sys
    from datetime import date
    from bio_mcp.config import load_settings
    from bio_mcp.errors import BioMcpError
    from bio_mcp.features.corpus.models import RagSearchRequest, SyncDeltaRequest
    from bio_mcp.features.corpus.service import CorpusService
    from bio_mcp.features.corpus.sync import SyncOptions
    from bio_mcp.sources.ncbi.client import EutilsClient

    async def main(keys):
        settings = load_settings()
        eutils = EutilsClient(settings)
        options = SyncOptions(since=date.fromisoformat("{SINCE.isoformat()}"),
                              until=date.fromisoformat("{UNTIL.isoformat()}"), batch_size=20, lock_timeout_s=120)
        service = CorpusService(settings, eutils, sync_options=options)
        await service.open()
        report = {{"syncs": [], "searches": 0, "search_errors": []}}
        syncing = True

        async def search_loop():
            while syncing:
                try:
                    await service.search(RagSearchRequest(query="cancer treatment outcomes", top_k=10))
                    report["searches"] += 1
                except BioMcpError as exc:
                    report["search_errors"].append([exc.code.value, exc.message])
                await asyncio.sleep(0.05)

        searcher = asyncio.create_task(search_loop())
        for key in keys:
            try:
                response = await service.sync_delta(SyncDeltaRequest(query_key=key, term="{TERM}"))
                report["syncs"].append([key, "ok", response.inserted, response.updated, response.skipped])
            except BioMcpError as exc:
                report["syncs"].append([key, exc.code.value, exc.message])
        syncing = False
        await searcher
        await service.drain()
        # Everyone's last writes: wait until this process has followed the whole log.
        for _ in range(100):
            await service.follow()
            await asyncio.sleep(0.1)
            with service.store.read() as tx:
                if tx.changes.head() <= service.index.cursor:
                    break
        bm25, vectors = service.index.uuids()
        report["bm25"], report["vectors"] = sorted(bm25), sorted(vectors)
        print(json.dumps(report), flush=True)
        await service.aclose()
        await eutils.aclose()

    asyncio.run(main(sys.argv[1:]))
    """
)


def test_concurrent_syncs_and_searches_from_three_processes_on_postgresql(corpus_fakes, tmp_path, postgres_schema_url) -> None:
    settings = corpus_settings(tmp_path / "check", corpus_fakes, postgres_schema_url)
    expected = {
        pmid for pmid, record in corpus_fakes.eutils.records.items()
        if record.entrez_date.date() >= SINCE
    }
    plans = [["own-a", "shared"], ["own-b", "shared"], ["shared", "own-c"]]
    drivers = [
        subprocess.Popen(
            [sys.executable, "-c", LOAD_DRIVER, *keys],
            env=process_env(settings, BIO_MCP_HOME=str(tmp_path / f"p{n}"), BIO_MCP_CORPUS_FOLLOW_INTERVAL_S="0.3"),
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for n, keys in enumerate(plans)
    ]
    reports = []
    for driver in drivers:
        out, err = driver.communicate(timeout=600)
        assert driver.returncode == 0, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))

    store = open_metadata_store(settings)
    try:
        with store.read() as tx:
            stored = tx.documents.get_many(sorted(expected | set(corpus_fakes.eutils.records)))
            jobs = tx.jobs.recent(limit=100)
        uuids, unindexed = chunk_uuids(store)
        with store.read() as tx:
            chunks = [chunk for page in tx.chunks.iterate() for chunk in page]
    finally:
        store.close()
    # Nothing lost, nothing doubled: every record once, at version 1 (identical content re-synced
    # by other keys is skipped, never re-versioned), chunks only of stored documents, ids canonical.
    assert set(stored) == expected
    assert {document.version for document in stored.values()} == {1}
    assert {chunk.pmid for chunk in chunks} == expected
    assert all(chunk.uuid == str(uuid.uuid5(CHUNK_NAMESPACE, f"{chunk.pmid}:{chunk.chunk_id}")) for chunk in chunks)
    assert not unindexed
    for report in reports:
        assert report["searches"] > 0 and report["search_errors"] == []
        for outcome in report["syncs"]:
            assert outcome[1] == "ok" or (outcome[1] == "STORE" and "still running" in outcome[2]), outcome
        assert set(report["bm25"]) == set(report["vectors"]) == uuids
    inserted = sum(outcome[2] for report in reports for outcome in report["syncs"] if outcome[1] == "ok")
    assert inserted == len(expected)
    assert all(job.status == "done" for job in jobs)


@pytest.mark.anyio
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
async def test_a_served_sync_survives_kill_9_of_the_server(request, corpus_fakes, bio_home, tmp_path, database) -> None:
    from tests.server.test_transports import free_port

    database_url = request.getfixturevalue("postgres_schema_url") if database == "postgresql" else None
    settings = corpus_settings(bio_home, corpus_fakes, database_url)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / f"replica-{port}.log"
    server = start_replica(settings, bio_home, port, tmp_path)
    store = open_metadata_store(settings)
    corpus_fakes.eutils.latency_s = 0.05
    try:
        wait_healthy(base, server, log_path)

        async def sync_through_the_server() -> None:
            try:
                async with mcp_client(base) as client:
                    await client.call_tool("pubmed.sync_delta", {"query_key": "served", "term": TERM})
            except Exception:  # the server dies under this call: the connection breaks, by design
                return

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(sync_through_the_server)
            with anyio.fail_after(120):
                while True:
                    with store.read() as tx:
                        if tx.documents.count() >= 60:
                            break
                    assert server.poll() is None, log_path.read_text()[-2000:]
                    await anyio.sleep(0.05)
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=10)
        corpus_fakes.eutils.latency_s = 0.0
        with store.read() as tx:
            killed_with = tx.documents.count()
            [job] = tx.jobs.recent(query_key="served")
        assert job.status == "running" and 0 < killed_with < len(corpus_fakes.eutils.records)

        port = free_port()
        base, log_path = f"http://127.0.0.1:{port}", tmp_path / f"replica-{port}.log"
        server = start_replica(settings, bio_home, port, tmp_path)
        wait_healthy(base, server, log_path)
        pmid, title = a_title(corpus_fakes)
        async with mcp_client(base) as client:
            rerun = await client.call_tool("pubmed.sync_delta", {"query_key": "served", "term": TERM})
            assert not rerun.is_error, rerun.structured_content
            assert any("did not finish" in warning for warning in rerun.structured_content["warnings"])
            with anyio.fail_after(120):
                while True:
                    uuids, unindexed = chunk_uuids(store)
                    if not unindexed:
                        break
                    await anyio.sleep(0.2)
            found = await client.call_tool("rag.search", {"query": title, "top_k": 5})
            hits = {r["doc_id"]: r for r in found.structured_content["results"]}
            assert hits[f"pmid:{pmid}"]["sim"] is not None
        with store.read() as tx:
            assert tx.documents.count() == len(corpus_fakes.eutils.records)
            statuses = sorted(job.status for job in tx.jobs.recent(query_key="served"))
        assert statuses == ["done", "failed"]
    finally:
        corpus_fakes.eutils.latency_s = 0.0
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        store.close()
