"""Corpus sync throughput: records per second through fetch, parse, store and embed.

Serves `--records` records from the fake E-utilities (the 466 real ones replicated under new
PMIDs, entry dates spread over a year), with an API key so the NCBI limit is 10 requests/s, and
runs one `pubmed.sync_delta` into a fresh SQLite corpus, then embeds every chunk. The sync's job
row holds its per-stage wall time (fetch: EFetch; parse: parsing, quality scoring and chunking;
annotate: entity linking and relation extraction, whose own times are link and extract; store:
the transaction, knowledge graph included, and the BM25 update). `--graph-linking off` syncs with
the graph's entity linking off (documents,
sections and topics are still written), to compare. The store, MeSH linker and indexes are opened
before the clock starts; `--cache-from` copies prebuilt linker/vocabulary pickles into the scratch
home so a cold linker build is not timed. `--database-url` syncs into a fresh schema of that
PostgreSQL database instead of SQLite. Besides wall time, the sync's CPU seconds in this process
(client, parser, linker, SQLite, and the in-process fake E-utilities alike in every setting) are
reported per record: on a shared machine wall time mostly measures the neighbours. As in a server
(`bio-mcp serve`), the garbage collector is settled once the service is open (`bio_mcp/collector.py`). A sync of 1,000
records or more starts the annotation worker, a second process that links and extracts (while it
loads, the sync parses batches ahead and they wait for it): its CPU is reported on its own (`sync_worker_cpu_ms_per_record`, its start included), with
the records it annotated (`sync_worker_documents`); `--warm-worker` starts it before the clock,
as a server's later syncs find it. `--prefill N` syncs the first N records (whole EDAT windows, so a few more) before the clock and
times the sync of the rest, into a corpus and graph that already hold them. `--latency-ms`
makes the fake E-utilities answer each request that much later, as a real network and NCBI do (the
default, 0, measures the sync's own work only). The stages of consecutive batches overlap (the next
EFetch while one batch is parsed and the one before commits), so stage times can add up to more
than the sync's. Prints JSON lines.

    .venv/bin/python bench/sync_throughput.py --data ../shared/data --records 10000 --provider hash
    .venv/bin/python bench/sync_throughput.py --records 3000 --graph-linking off
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
import uuid
from datetime import UTC, date, datetime
from pathlib import Path

import anyio
import sqlalchemy as sa
from figures import emit

from bio_mcp.collector import settle_collector
from bio_mcp.config import load_settings
from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import run_fakes

FIRST_CLONE_PMID = 90_000_000



def children_cpu_s() -> float:
    """CPU seconds so far of this process's live children (the annotation worker), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # ppid, utime and stime are fields 4, 14 and 15 of stat(5); fields[0] here is field 3.
        if int(fields[1]) == os.getpid():
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


async def run(
    base_url: str, home: str, provider: str, linking: bool, database_url: str | None, warm_worker: bool,
    prefill: int = 0,
) -> tuple[dict, float, float, int, float, float]:
    settings = load_settings(NCBI_EUTILS_BASE_URL=base_url, NCBI_API_KEY="bench-key", BIO_MCP_HOME=home,
                             BIO_MCP_EMBEDDINGS_PROVIDER=provider, BIO_MCP_GRAPH_LINKING=linking,
                             **({"DATABASE_URL": database_url} if database_url else {}))
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, sync_options=SyncOptions(since=date(2024, 1, 1), until=date(2024, 12, 31)),
                            embed_in_background=False)
    try:
        await service.open()
        if warm_worker and service.annotation_worker is not None:
            # A server's later syncs: the worker an earlier large sync started is already running.
            service.annotation_worker.start()
            while not service.annotation_worker.ready:
                await anyio.sleep(0.05)
        if prefill:
            # A corpus that already holds records (and their entities): the timed sync continues
            # from the watermark this one leaves, as a user's later syncs do.
            await service.sync_delta(SyncDeltaRequest(query_key="bench", term="all[sb]", max_records=prefill))
            await service.drain()
        # A sync in a server: `bio-mcp serve` settles the collector once it has built what it keeps
        # (the MeSH vocabulary and linker among it), as `bio-mcp sync` does (bio_mcp/collector.py).
        settle_collector()
        started, cpu_started, worker_cpu_started = time.perf_counter(), time.process_time(), children_cpu_s()
        response = await service.sync_delta(SyncDeltaRequest(query_key="bench", term="all[sb]"))
        synced, sync_cpu = time.perf_counter(), time.process_time() - cpu_started
        worker_cpu = children_cpu_s() - worker_cpu_started
        embedded = await service.drain()
        done = time.perf_counter()
        with service.store.read() as tx:
            job = tx.jobs.get(response.job_id)
        counts = dict(job.counts) if job is not None else {}
        return counts, synced - started, done - synced, embedded, sync_cpu, worker_cpu
    finally:
        await service.aclose()
        await eutils.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--provider", default="hash", help="embeddings provider: hash, local, onnx")
    parser.add_argument("--graph-linking", choices=("on", "off"), default="on", help="entity linking during the sync")
    parser.add_argument("--cache-from", type=Path, default=None, help="a folder of prebuilt linker/vocabulary pickles")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL URL (a fresh schema is used); default SQLite")
    parser.add_argument("--warm-worker", action="store_true",
                        help="start the annotation worker before the clock (a server's later syncs)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added to every fake E-utilities answer")
    parser.add_argument("--prefill", type=int, default=0,
                        help="records synced before the clock (of --records in all): the timed sync continues from them")
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    database_url = None
    if args.database_url:
        engine = sa.create_engine(args.database_url)
        with engine.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        database_url = f"{args.database_url}{'&' if '?' in args.database_url else '?'}options=-csearch_path%3D{schema}"
    try:
        measure(args, database_url)
    finally:
        if args.database_url:
            with engine.begin() as connection:
                connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            engine.dispose()


def measure(args: argparse.Namespace, database_url: str | None) -> None:
    with run_fakes(args.data) as fakes, tempfile.TemporaryDirectory() as home:
        if args.cache_from is not None:
            shutil.copytree(args.cache_from, Path(home) / "cache")
        fakes.eutils.replicate(args.records - len(fakes.eutils.pmids), FIRST_CLONE_PMID)
        fakes.eutils.spread_edats(datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 12, 31, tzinfo=UTC))
        fakes.eutils.latency_s = args.latency_ms / 1000
        counts, sync_s, embed_s, chunks, sync_cpu, worker_cpu = anyio.run(
            run, fakes.eutils_base_url, home, args.provider, args.graph_linking == "on", database_url,
            args.warm_worker, args.prefill,
        )
        requests = len(fakes.eutils.requests)
    params = {"records": args.records, "provider": args.provider, "ncbi_limit_per_s": 10, "requests": requests,
              "graph_linking": args.graph_linking, "database": "postgresql" if database_url else "sqlite",
              "latency_ms": args.latency_ms, "warm_worker": args.warm_worker, "prefill": args.prefill}
    processed = counts.get("pmids_processed", 0)
    emit("sync_records", processed, "records", **params)
    emit("sync_records_per_s", processed / sync_s, "records/s", **params)
    emit("sync_cpu_ms_per_record", 1000 * sync_cpu / max(1, processed), "ms", **params)
    emit("sync_worker_cpu_ms_per_record", 1000 * worker_cpu / max(1, processed), "ms", **params)
    emit("sync_with_embedding_records_per_s", processed / (sync_s + embed_s), "records/s", **params)
    # How many records the annotation worker linked and extracted (it starts with the sync and
    # takes over once it has loaded its linker; the others were annotated in this process).
    emit("sync_worker_documents", counts.get("worker_documents", 0), "records", **params)
    for stage in ("fetch", "parse", "annotate", "link", "extract", "store"):
        seconds = counts.get(f"{stage}_ms", 0) / 1000
        emit(f"sync_stage_{stage}_records_per_s", processed / seconds if seconds else 0.0, "records/s", **params)
        emit(f"sync_stage_{stage}_s", seconds, "s", **params)
    emit("sync_stage_embed_chunks_per_s", chunks / embed_s if embed_s else 0.0, "chunks/s", **params)
    emit("sync_stage_embed_s", embed_s, "s", **params)


if __name__ == "__main__":
    main()
