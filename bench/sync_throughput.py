"""Corpus sync throughput: records per second through fetch, parse, store and embed.

Serves `--records` records from the fake E-utilities (the 466 real ones replicated under new
PMIDs, entry dates spread over a year), with an API key so the NCBI limit is 10 requests/s, and
runs one `pubmed.sync_delta` into a fresh SQLite corpus, then embeds every chunk. The sync's job
row holds its per-stage wall time (fetch: EFetch; parse: parsing, quality scoring and chunking;
store: the transaction, knowledge graph included, and the BM25 update; link: entity linking,
part of parse; extract: relation extraction over the linked chunks, part of parse too). `--graph-linking off` syncs with the graph's entity linking off (documents,
sections and topics are still written), to compare. The store, MeSH linker and indexes are opened
before the clock starts; `--cache-from` copies prebuilt linker/vocabulary pickles into the scratch
home so a cold linker build is not timed. Prints JSON lines.

    .venv/bin/python bench/sync_throughput.py --data ../shared/data --records 10000 --provider hash
    .venv/bin/python bench/sync_throughput.py --records 3000 --graph-linking off
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

import anyio

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import run_fakes

FIRST_CLONE_PMID = 90_000_000


def emit(name: str, value: float, unit: str, **params: object) -> None:
    print(json.dumps({"name": name, "value": round(value, 3), "unit": unit, "params": params}))


async def run(base_url: str, home: str, provider: str, linking: bool) -> tuple[dict, float, float, int]:
    settings = load_settings(NCBI_EUTILS_BASE_URL=base_url, NCBI_API_KEY="bench-key", BIO_MCP_HOME=home,
                             BIO_MCP_EMBEDDINGS_PROVIDER=provider, BIO_MCP_GRAPH_LINKING=linking)
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, sync_options=SyncOptions(since=date(2024, 1, 1), until=date(2024, 12, 31)),
                            embed_in_background=False)
    try:
        await service.open()
        started = time.perf_counter()
        response = await service.sync_delta(SyncDeltaRequest(query_key="bench", term="all[sb]"))
        synced = time.perf_counter()
        embedded = await service.drain()
        done = time.perf_counter()
        with service.store.read() as tx:
            job = tx.jobs.get(response.job_id)
        counts = dict(job.counts) if job is not None else {}
        return counts, synced - started, done - synced, embedded
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
    args = parser.parse_args()
    with run_fakes(args.data) as fakes, tempfile.TemporaryDirectory() as home:
        if args.cache_from is not None:
            shutil.copytree(args.cache_from, Path(home) / "cache")
        fakes.eutils.replicate(args.records - len(fakes.eutils.pmids), FIRST_CLONE_PMID)
        fakes.eutils.spread_edats(datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 12, 31, tzinfo=UTC))
        counts, sync_s, embed_s, chunks = anyio.run(
            run, fakes.eutils_base_url, home, args.provider, args.graph_linking == "on"
        )
        requests = len(fakes.eutils.requests)
    params = {"records": args.records, "provider": args.provider, "ncbi_limit_per_s": 10, "requests": requests,
              "graph_linking": args.graph_linking}
    processed = counts.get("pmids_processed", 0)
    emit("sync_records_per_s", processed / sync_s, "records/s", **params)
    emit("sync_with_embedding_records_per_s", processed / (sync_s + embed_s), "records/s", **params)
    for stage in ("fetch", "parse", "link", "extract", "store"):
        seconds = counts.get(f"{stage}_ms", 0) / 1000
        emit(f"sync_stage_{stage}_records_per_s", processed / seconds if seconds else 0.0, "records/s", **params)
        emit(f"sync_stage_{stage}_s", seconds, "s", **params)
    emit("sync_stage_embed_chunks_per_s", chunks / embed_s if embed_s else 0.0, "chunks/s", **params)
    emit("sync_stage_embed_s", embed_s, "s", **params)


if __name__ == "__main__":
    main()
