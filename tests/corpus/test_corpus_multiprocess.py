"""One corpus, many processes: every process's index follows the store's change log.

A driver process holding a `CorpusService` (no embedding writer of its own, so vectors can reach it
only through the log) and a real `bio-mcp sync` process on one SQLite file and on one PostgreSQL;
two `bio-mcp serve --transport http` replicas on one PostgreSQL, synced through one and searched
through the other; and the log's own rules in one process (own writes skipped, pruning rebuilds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.server.auth import mint_token
from bio_mcp.store import open_metadata_store
from tests.corpus.corpus_fixtures import TERM, corpus_settings
from tests.corpus.test_corpus_recovery import chunk_uuids

REPO = Path(__file__).resolve().parents[2]
BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")
SECRET = "m" * 40
# A few seconds is the promise; polls run every 0.2 s here.
VISIBLE_WITHIN_S = 10.0

DRIVER = textwrap.dedent(
    """
    import asyncio, json, sys
    from bio_mcp.config import load_settings
    from bio_mcp.features.corpus.service import CorpusService
    from bio_mcp.sources.ncbi.client import EutilsClient

    async def main():
        settings = load_settings()
        eutils = EutilsClient(settings)
        service = CorpusService(settings, eutils, embed_in_background=False, follow_changes=True)
        await service.open()
        print(json.dumps({"ready": True}), flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            query = json.loads(line)["q"]
            bm25, vectors = await asyncio.to_thread(service.index.uuids)
            hits = await asyncio.to_thread(service.index.search, query, 5, False)
            print(json.dumps({"bm25": sorted(bm25), "vectors": sorted(vectors),
                              "hits": [[hit.pmid, hit.sim] for hit in hits]}), flush=True)
        await service.aclose()
        await eutils.aclose()

    asyncio.run(main())
    """
)


def process_env(settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_", "DATABASE_URL"))}
    # The run's one cache of the compiled MeSH linker (tests/conftest.py).
    env["BIO_MCP_CACHE_DIR"] = os.environ["BIO_MCP_CACHE_DIR"]
    env.update({
        "BIO_MCP_HOME": str(settings.home),
        "NCBI_EUTILS_BASE_URL": settings.ncbi_base_url,
        "NCBI_API_KEY": "test-key",
        "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
        "BIO_MCP_CORPUS_FOLLOW_INTERVAL_S": "0.2",
        # The recorded records are from before the default first-sync look-back of a year.
        "BIO_MCP_SYNC_LOOKBACK_DAYS": "36500",
        **extra,
    })
    if settings.database_url:
        env["DATABASE_URL"] = settings.database_url
    return env


def a_title(corpus_fakes) -> tuple[str, str]:
    """A record and its title, as a query that should find it."""
    pmid = next(p for p in sorted(corpus_fakes.eutils.records) if len(corpus_fakes.eutils.records[p].article.title or "") > 40)
    return pmid, corpus_fakes.eutils.records[pmid].article.title


@pytest.mark.parametrize(
    ("database", "shared_home"),
    [("sqlite", True), ("postgresql", True), ("postgresql", False)],
    ids=["sqlite-one-home", "postgresql-one-home", "postgresql-two-homes"],
)
def test_a_sync_in_another_process_is_searchable_here_within_seconds(
    request, corpus_fakes, bio_home, tmp_path, database, shared_home
) -> None:
    database_url = request.getfixturevalue("postgres_schema_url") if database == "postgresql" else None
    settings = corpus_settings(bio_home, corpus_fakes, database_url)
    sync_home = bio_home if shared_home else tmp_path / "sync-home"
    # On PostgreSQL the poll is slowed to 30 s: only the change log's NOTIFY can be in time.
    interval = "30" if database == "postgresql" else "0.2"
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER], env=process_env(settings, BIO_MCP_CORPUS_FOLLOW_INTERVAL_S=interval), cwd=REPO,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    store = open_metadata_store(settings)
    try:
        assert json.loads(driver.stdout.readline()) == {"ready": True}, driver.stderr.read()

        def ask(query: str) -> dict:
            driver.stdin.write(json.dumps({"q": query}) + "\n")
            driver.stdin.flush()
            return json.loads(driver.stdout.readline())

        pmid, title = a_title(corpus_fakes)
        assert ask(title)["hits"] == []
        synced = subprocess.run(
            [BIO_MCP, "sync", "mp", TERM, "--since", "2023-01-01"],
            env=process_env(settings, BIO_MCP_HOME=str(sync_home)), cwd=REPO, capture_output=True, text=True, timeout=300,
        )
        assert synced.returncode == 0, synced.stderr[-2000:]
        assert json.loads(synced.stdout)["inserted"] == len(corpus_fakes.eutils.records)
        done = time.monotonic()
        uuids, _ = chunk_uuids(store)
        with store.read() as tx:
            assert tx.chunks.state_counts("hash:v1:384").embedded == len(uuids)
        while True:
            answer = ask(title)
            if set(answer["bm25"]) == set(answer["vectors"]) == uuids:
                break
            assert time.monotonic() - done < VISIBLE_WITHIN_S, (
                f"after {VISIBLE_WITHIN_S}s the other process's index holds {len(answer['bm25'])} chunks "
                f"and {len(answer['vectors'])} vectors of {len(uuids)}"
            )
            time.sleep(0.2)
        found = dict(answer["hits"])
        assert pmid in found and found[pmid] is not None
    finally:
        driver.stdin.close()
        try:
            driver.wait(timeout=20)
        finally:
            if driver.poll() is None:
                driver.kill()
        store.close()


@pytest.mark.anyio
async def test_own_writes_are_not_applied_twice_and_a_pruned_log_means_a_rebuild(
    make_service, database_url, tmp_path
) -> None:
    writer = make_service(database_url)
    reader = make_service(database_url)
    await reader.open()
    await writer.sync_delta(SyncDeltaRequest(query_key="own", term=TERM))
    await writer.drain()
    with writer.store.read() as tx:
        head = tx.changes.head()
    assert head > 0
    # Every row is the writer's own: following skips them all and only moves the cursor.
    assert await writer.follow() == 0 and writer.index.cursor == head
    with writer.store.read() as tx:
        rows = len(tx.changes.since(0, 10_000))
    assert await reader.follow() == rows
    uuids, _ = chunk_uuids(writer.store)
    assert reader.index.uuids() == writer.index.uuids() == (uuids, uuids)
    assert await reader.follow() == 0

    # The reader falls behind, the log is pruned past it: it rebuilds from the store.
    reader.index.cursor = 0
    assert writer.index.prune_changes(keep_rows=1, min_age_s=0) == head - 1
    with writer.store.read() as tx:
        assert tx.changes.oldest() == head and not tx.changes.covers(0)
    await reader.follow()
    assert reader.index.cursor == head
    assert reader.index.uuids() == (uuids, uuids)


def start_replica(settings, home: Path, port: int, logs: Path) -> subprocess.Popen:
    env = process_env(
        settings, BIO_MCP_HOME=str(home), BIO_MCP_TOOLSETS="corpus", MCP_AUTH_SECRET_KEY=SECRET,
    )
    with (logs / f"replica-{port}.log").open("w") as log_file:
        return subprocess.Popen(
            [BIO_MCP, "serve", "--transport", "http", "--port", str(port)],
            env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=log_file,
        )


def wait_healthy(base: str, process: subprocess.Popen, log_path: Path) -> None:
    # Generous: the machines that run this are often busy.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert process.poll() is None, log_path.read_text()[-2000:]
        try:
            if httpx2.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail("a replica did not start: " + log_path.read_text()[-2000:])


def mcp_client(base: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {mint_token(SECRET)}"}, timeout=120)
    return Client(streamable_http_client(base + "/mcp", http_client=http))


@pytest.mark.anyio
async def test_two_http_replicas_on_one_postgresql_sync_through_one_search_through_the_other(
    corpus_fakes, tmp_path, postgres_schema_url
) -> None:
    from tests.server.test_transports import free_port

    settings = corpus_settings(tmp_path / "a", corpus_fakes, postgres_schema_url)
    replicas = []
    for name in ("a", "b"):
        port = free_port()
        replicas.append((f"http://127.0.0.1:{port}", start_replica(settings, tmp_path / name, port, tmp_path), port))
    try:
        for base, process, port in replicas:
            wait_healthy(base, process, tmp_path / f"replica-{port}.log")
        (base_a, _, _), (base_b, _, _) = replicas
        pmid, title = a_title(corpus_fakes)
        async with mcp_client(base_b) as searcher:
            before = await searcher.call_tool("rag.search", {"query": title, "top_k": 5})
            assert not before.is_error and before.structured_content["results"] == []
            async with mcp_client(base_a) as syncer:
                synced = await syncer.call_tool("pubmed.sync_delta", {"query_key": "replicas", "term": TERM})
            assert not synced.is_error, synced.content
            assert synced.structured_content["inserted"] == len(corpus_fakes.eutils.records)
            done = time.monotonic()
            while True:
                found = await searcher.call_tool("rag.search", {"query": title, "top_k": 5})
                assert not found.is_error
                hits = {r["doc_id"]: r for r in found.structured_content["results"]}
                if f"pmid:{pmid}" in hits and hits[f"pmid:{pmid}"]["sim"] is not None:
                    break
                assert time.monotonic() - done < VISIBLE_WITHIN_S, f"replica B still answers {hits}"
                await anyio.sleep(0.2)
    finally:
        for _, process, _ in replicas:
            process.terminate()
        for _, process, _ in replicas:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
