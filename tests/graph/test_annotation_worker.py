"""The annotation worker: a process that links and extracts large syncs' batches. It must give
exactly what the sync's own process gives, and any failure of it must leave the work to that process.

Real records (`pubmed/pubmed_real_records.xml.gz`), the real MeSH linker built from the settings,
and a sync against the fake E-utilities (SQLite; the worker does not touch the store).
"""

from __future__ import annotations

import asyncio
import gzip
import logging
import os
import signal
import threading
import time
from concurrent.futures import Future
from datetime import date
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.config import Settings, load_settings
from bio_mcp.features.corpus import sync as sync_module
from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.records import CorpusDocument, corpus_document
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.graph.annotation_worker import AnnotationWorker, Section
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.store.schema import kg_edges, kg_mentions, kg_nodes, kg_relation_evidence
from tests.corpus.corpus_fixtures import TERM, UNTIL, corpus_settings

pytestmark = pytest.mark.anyio

# Starting the worker (imports, the MeSH linker from the cache) takes seconds; a loaded machine more.
READY_WITHIN_S = 120


def settings_of(home: Path, data_dir: Path, **extra: str) -> Settings:
    return load_settings(
        BIO_MCP_HOME=str(home), BIO_MCP_MESH_PATH=str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"), **extra
    )


def real_documents(data_dir: Path, count: int) -> list[CorpusDocument]:
    articles = parse_efetch(gzip.decompress((data_dir / "pubmed" / "pubmed_real_records.xml.gz").read_bytes()))
    return [corpus_document(article, date(2025, 1, 1)) for article in articles[:count]]


def sections_of(documents: list[CorpusDocument]) -> list[list[Section]]:
    return [[Section(chunk.chunk_id, chunk.text) for chunk in document.chunks] for document in documents]


async def started(worker: AnnotationWorker) -> AnnotationWorker:
    worker.start()
    deadline = time.monotonic() + READY_WITHIN_S
    while not worker.ready:
        assert time.monotonic() < deadline, "the annotation worker did not start"
        await asyncio.sleep(0.1)
    return worker


async def test_the_worker_annotates_exactly_as_the_process_does(bio_home: Path, data_dir: Path) -> None:
    settings = settings_of(bio_home, data_dir)
    documents = real_documents(data_dir, 120)
    here = build_graph_indexer(settings)
    worker = await started(AnnotationWorker(settings))
    try:
        found = await worker.annotate(sections_of(documents))
    finally:
        worker.close()
    assert found is not None
    expected = [here.annotate(document.chunks) for document in documents]
    assert [a.mentions for a in found] == [e.mentions for e in expected]
    assert [a.relations for a in found] == [e.relations for e in expected]
    # Not a vacuous match: the records name entities and state relations.
    assert sum(len(m) for a in found for m in a.mentions.values()) > 1000
    assert sum(len(r) for a in found for r in a.relations.values()) > 10


async def test_a_killed_worker_hands_the_work_back(bio_home: Path, data_dir: Path, caplog) -> None:
    worker = await started(AnnotationWorker(settings_of(bio_home, data_dir)))
    for process in list(worker._pool._processes.values()):  # type: ignore[union-attr]
        os.kill(process.pid, signal.SIGKILL)
    with caplog.at_level(logging.WARNING, logger="bio_mcp.graph.annotation_worker"):
        assert await worker.annotate(sections_of(real_documents(data_dir, 5))) is None
    assert not worker.ready
    assert "annotating in process" in caplog.text
    worker.start()  # a failed worker is not restarted behind the caller's back
    assert not worker.ready and await worker.annotate([]) is None


async def test_a_worker_without_a_linker_is_never_ready(bio_home: Path, data_dir: Path, caplog) -> None:
    worker = AnnotationWorker(settings_of(bio_home, data_dir, BIO_MCP_GRAPH_LINKING="false"))
    worker.start()
    with caplog.at_level(logging.WARNING, logger="bio_mcp.graph.annotation_worker"):
        deadline = time.monotonic() + READY_WITHIN_S
        while "annotating in process" not in caplog.text:
            assert not worker.ready
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
    worker.close()


def graph_rows(service: CorpusService) -> tuple[list, list, list]:
    with service.store.read() as tx:
        read = tx.connection.execute
        return (
            sorted(read(sa.select(kg_nodes.c.id, kg_nodes.c.label, kg_nodes.c.type, kg_nodes.c.title)).all()),
            sorted([
                *read(sa.select(kg_edges.c.src, kg_edges.c.type, kg_edges.c.dst, kg_edges.c.weight, kg_edges.c.props)),
                *read(sa.select(kg_mentions.c.src, sa.literal("MENTIONS").label("type"), kg_mentions.c.dst, kg_mentions.c.weight,
                                kg_mentions.c.props)),
            ]),
            sorted(read(sa.select(kg_relation_evidence.c.src, kg_relation_evidence.c.type, kg_relation_evidence.c.dst,
                                  kg_relation_evidence.c.section_id, kg_relation_evidence.c.start)).all()),
        )


async def synced(home: Path, data_dir: Path, corpus_fakes, min_records: int | None, warm: bool) -> tuple[dict, tuple]:
    """Sync the real records into `home` (the worker started before the sync when `warm`): the
    job's counts and the graph."""
    home.mkdir()
    settings = corpus_settings(home, corpus_fakes, BIO_MCP_MESH_PATH=str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"))
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False,
                            sync_options=SyncOptions(until=UNTIL, batch_size=100, worker_min_records=min_records))
    try:
        await service.open()
        if warm:
            assert service.annotation_worker is not None
            await started(service.annotation_worker)
        response = await service.sync_delta(SyncDeltaRequest(query_key="worker", term=TERM))
        with service.store.read() as tx:
            job = tx.jobs.get(response.job_id)
        assert job is not None and response.pmids_processed > 400
        return {**job.counts, "processed": response.pmids_processed}, graph_rows(service)
    finally:
        await service.aclose()
        await eutils.aclose()


async def test_a_sync_through_the_worker_stores_the_same_graph(tmp_path: Path, data_dir: Path, corpus_fakes, monkeypatch) -> None:
    """Three syncs of the real records into three homes, annotated in process, by a running worker
    and by a worker the sync starts (its batches wait for it, parsed ahead): the same graph, and
    the job row says the worker did all the work."""
    # However loaded the machine, the sync waits for the worker it started.
    monkeypatch.setattr(sync_module, "WORKER_START_TIMEOUT_S", READY_WITHIN_S)
    graphs = []
    for name, min_records, warm in (("process", None, False), ("worker", 0, True), ("starting", 0, False)):
        counts, graph = await synced(tmp_path / name, data_dir, corpus_fakes, min_records, warm)
        assert counts["worker_documents"] == (counts["processed"] if min_records is not None else 0)
        graphs.append(graph)
    assert graphs[0] == graphs[1] == graphs[2]
    _nodes, edges, evidence = graphs[0]
    assert any(edge.type == "MENTIONS" for edge in edges) and evidence


async def test_the_worker_never_writes_to_stdout(bio_home: Path, data_dir: Path, capfd) -> None:
    """On the stdio transport stdout is the MCP stream: the worker's output goes to stderr."""
    worker = await started(AnnotationWorker(settings_of(bio_home, data_dir)))
    try:
        pool = worker._pool
        assert pool is not None
        await asyncio.wrap_future(pool.submit(print, "printed by the worker"))
        await asyncio.wrap_future(pool.submit(os.write, 1, b"written to fd 1 by the worker\n"))
    finally:
        worker.close()
    out, err = capfd.readouterr()
    assert "by the worker" not in out
    assert "printed by the worker" in err and "written to fd 1 by the worker" in err


SLOW_START_S = 30.0


async def test_a_worker_slow_to_start_is_not_waited_for(tmp_path: Path, data_dir: Path, corpus_fakes, monkeypatch) -> None:
    monkeypatch.setattr(sync_module, "WORKER_START_TIMEOUT_S", 0.0)
    # Slow to start whatever the machine: the worker reads as loading until SLOW_START_S after its
    # linker is up (with a warm linker cache it was up before the first batch, and was used).
    start = AnnotationWorker.start

    def slow_start(worker: AnnotationWorker) -> None:
        start(worker)
        loading, delayed = worker._started, Future()
        assert loading is not None

        def finish() -> None:
            ready = loading.result()
            time.sleep(SLOW_START_S)
            delayed.set_result(ready)

        threading.Thread(target=finish, daemon=True).start()
        worker._started = delayed

    monkeypatch.setattr(AnnotationWorker, "start", slow_start)
    counts, _graph = await synced(tmp_path / "impatient", data_dir, corpus_fakes, 0, warm=False)
    # The first batch at least was annotated in process: the worker was still loading.
    assert counts["worker_documents"] <= counts["processed"] - 100


def test_the_threshold_is_a_setting(bio_home: Path, data_dir: Path) -> None:
    from bio_mcp.features.corpus.service import sync_options_of

    assert sync_options_of(settings_of(bio_home, data_dir)).worker_min_records == 1000
    assert sync_options_of(settings_of(bio_home, data_dir, BIO_MCP_ANNOTATION_WORKER_MIN_RECORDS="1")).worker_min_records == 1
    # 0: the worker never starts.
    assert sync_options_of(settings_of(bio_home, data_dir, BIO_MCP_ANNOTATION_WORKER_MIN_RECORDS="0")).worker_min_records is None
