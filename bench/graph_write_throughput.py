"""Store-stage throughput of a sync with and without the knowledge graph: records per second
through `commit_documents` (documents, chunks, graph, BM25 update), JSON lines.

The 466 real records (`pubmed/pubmed_real_records.xml.gz`) are parsed, cloned under new PMIDs up
to `--records`, chunked and (with linking) linked by the shipped MeSH linker before the clock
starts; then they are committed in sync-sized batches (`--batch`, the sync's default 200) into a
fresh store, SQLite in a scratch home or a fresh schema of `--database-url` (PostgreSQL). Three
settings, the same documents: `none` (no graph), `nolink` (graph with documents, sections and
topics, no entity linking: `--graph-linking off`), `linked` (the graph as a sync writes it). The
rate is the median of `--rounds` rounds, each into a new store (others' load only ever adds time).

On a shared machine wall time mostly measures the neighbours, so each round also reports the CPU
seconds it cost: this process's (SQLite runs in it) plus, on PostgreSQL, the server backends of the
round's connections (read from /proc: the server must run on this machine). `*_cpu_ms_per_record`
is the figure to compare between settings and versions under load.

    PYTHONPATH=src python bench/graph_write_throughput.py --data ../shared/data --records 2000 \
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test] [--cache DIR]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import tempfile
import time
import uuid
from dataclasses import replace
from datetime import date
from pathlib import Path

import sqlalchemy as sa
from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import CorpusDocument, corpus_document
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.store import open_metadata_store

FIRST_CLONE_PMID = 90_000_000
TODAY = date(2025, 1, 1)



def documents_of(data: Path, records: int) -> list[CorpusDocument]:
    articles = parse_efetch(gzip.decompress((data / "pubmed" / "pubmed_real_records.xml.gz").read_bytes()))
    articles.sort(key=lambda article: int(article.pmid))
    clones = [
        articles[offset % len(articles)].model_copy(update={"pmid": str(FIRST_CLONE_PMID + offset)})
        for offset in range(records)
    ]
    return [corpus_document(article, TODAY) for article in clones]


def fresh_schema(url: str) -> tuple[str, str]:
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    sep = "&" if "?" in url else "?"
    return schema, f"{url}{sep}options=-csearch_path%3D{schema}"


def drop_schema(url: str, schema: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


def backend_cpu_s(connection: sa.Connection, application: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving `application`, from /proc."""
    pids = connection.execute(
        sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"), {"name": application}
    ).scalars()
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        # utime and stime are fields 14 and 15 of stat(5); fields[0] here is field 3.
        found[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return found


def one_round(
    documents: list[CorpusDocument], graph: GraphIndexer | None, batch: int, database_url: str | None
) -> tuple[float, float]:
    """Wall seconds and CPU seconds (this process and the database's backends) of one fill."""
    application = f"graph-write-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="graph-write-") as home:
        schema, url = fresh_schema(database_url) if database_url else (None, None)
        if url is not None:
            url = f"{url}&application_name={application}"
        settings = load_settings(BIO_MCP_HOME=home, BIO_MCP_EMBEDDINGS_PROVIDER="hash",
                                 **({"DATABASE_URL": url} if url else {}))
        store = open_metadata_store(settings)
        monitor = sa.create_engine(database_url) if database_url else None
        try:
            index = CorpusIndex(store, index_folder(settings), build_embeddings(settings))
            server_before = {}
            if monitor is not None:
                with monitor.connect() as connection:
                    server_before = backend_cpu_s(connection, application)
            started, cpu_started = time.perf_counter(), time.process_time()
            for offset in range(0, len(documents), batch):
                commit_documents(index, documents[offset : offset + batch], graph)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
            if monitor is not None:
                with monitor.connect() as connection:
                    server_after = backend_cpu_s(connection, application)
                cpu += sum(value - server_before.get(pid, 0.0) for pid, value in server_after.items())
            return wall, cpu
        finally:
            store.close()
            if monitor is not None:
                monitor.dispose()
            if schema is not None and database_url is not None:
                drop_schema(database_url, schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=None, help="a PostgreSQL URL (a fresh schema per round); default SQLite")
    parser.add_argument("--cache", type=Path, default=None, help="where the compiled MeSH linker/vocabulary are cached")
    parser.add_argument("--settings", default="none,nolink,linked")
    args = parser.parse_args()
    mesh = args.data / "mesh" / "mesh_descriptors_2024.jsonl"
    catalog = load_catalog(mesh, args.cache)
    linker = load_linker_from(mesh, None, args.cache)
    documents = documents_of(args.data, args.records)
    started = time.perf_counter()
    linked = [replace(document, mentions=GraphIndexer(catalog, linker).link(document.chunks)) for document in documents]
    link_s = time.perf_counter() - started
    variants = {
        "none": (documents, None),
        "nolink": (documents, GraphIndexer(catalog, None)),
        "linked": (linked, GraphIndexer(catalog, linker)),
    }
    database = "postgresql" if args.database_url else "sqlite"
    base = {"records": args.records, "batch": args.batch, "rounds": args.rounds, "database": database}
    emit("graph_write_link_records_per_s", args.records / link_s, "records/s", base)
    rates: dict[str, float] = {}
    cpu_ms: dict[str, float] = {}
    for name in args.settings.split(","):
        corpus, graph = variants[name]
        rounds = [one_round(corpus, graph, args.batch, args.database_url) for _ in range(args.rounds)]
        rates[name] = args.records / statistics.median(wall for wall, _ in rounds)
        cpu_ms[name] = 1000 * statistics.median(cpu for _, cpu in rounds) / args.records
        params = base | {"graph": name, "seconds": [round(wall, 2) for wall, _ in rounds],
                         "cpu_seconds": [round(cpu, 2) for _, cpu in rounds]}
        emit("graph_write_store_records_per_s", rates[name], "records/s", params)
        emit("graph_write_store_cpu_ms_per_record", cpu_ms[name], "ms", params)
    if "none" in rates and "linked" in rates:
        emit("graph_write_store_slowdown", 1 - rates["linked"] / rates["none"], "fraction", base | {"graph": "linked"})
        emit("graph_write_store_cpu_ms_per_record_added", cpu_ms["linked"] - cpu_ms["none"], "ms",
             base | {"graph": "linked"})


if __name__ == "__main__":
    main()
