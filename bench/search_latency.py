"""`HybridIndex.search` latency at scale on synthetic data, exact and HNSW vectors, as JSON lines.

    .venv/bin/python bench/search_latency.py --sizes 100000,1000000 [--paths exact,ann] [--scratch DIR]

Passages are ~150 words drawn from a Zipf-distributed vocabulary of 50,000 pseudo-words (so
postings are as skewed as real text); vectors are "embedding-like": unit vectors scattered around
1,000 random centroids rather than uniform noise, which would make every cosine near 0. Each
query is 6 words from the same distribution with its own embedding-like vector, handed to the
index through a stub `Embeddings` so the figures exclude the model (see embed_throughput.py for
that). Prints build time, index size and P50 / P95 search latency for top_k 20 with quality bias,
with and without year and publication-type filters, once per vector path (``params.vector_path``):
``exact``, the NumPy scan, and ``ann``, the HNSW graph (`bio_mcp.search.ann`), forced on either
side of the index's `ann_threshold` whatever the size. For ``ann`` it also prints the graph's build
time (opening the exact index's vectors and building the graph over them), vector-only latency
of both paths, recall@20 and recall@100 (the fusion's candidate depth) of the graph's hits
against the exact ones, and the exact / ann ratio of the unfiltered hybrid P95.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
from figures import emit

from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.hybrid import HybridIndex, IndexedChunk
from bio_mcp.search.vectors import VectorIndex

DIM = 384
VOCABULARY = 50_000
CENTROIDS = 1_000
WORDS_PER_PASSAGE = 150
PUB_TYPES = (
    "Journal Article",
    "Review",
    "Randomized Controlled Trial",
    "Meta-Analysis",
    "Case Reports",
    "Letter",
)



class Synthetic:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        lengths = self.rng.integers(3, 11, size=VOCABULARY)
        self.words = np.array(["".join(self.rng.choice(letters, size=n)) for n in lengths])
        ranks = np.arange(1, VOCABULARY + 1)
        self.word_p = (1.0 / ranks) / (1.0 / ranks).sum()
        centroids = self.rng.normal(size=(CENTROIDS, DIM)).astype(np.float32)
        self.centroids = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)

    def texts(self, count: int, words: int) -> list[str]:
        # One draw for the whole batch: `choice` with `p` rebuilds its table on every call.
        picks = self.rng.choice(VOCABULARY, size=(count, words), p=self.word_p)
        return [" ".join(row) for row in self.words[picks].tolist()]

    def vectors(self, count: int) -> np.ndarray:
        picked = self.centroids[self.rng.integers(0, CENTROIDS, size=count)]
        noisy = picked + 0.06 * self.rng.normal(size=(count, DIM)).astype(np.float32)
        return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)

    def chunks(self, count: int, batch: int = 10_000) -> Iterator[IndexedChunk]:
        for start in range(0, count, batch):
            size = min(batch, count - start)
            vectors = self.vectors(size)
            years = self.rng.integers(1970, 2026, size=size)
            quality = self.rng.integers(0, 9, size=size)
            types = self.rng.integers(0, len(PUB_TYPES), size=size)
            texts = self.texts(size, WORDS_PER_PASSAGE)
            for offset in range(size):
                number = start + offset
                yield IndexedChunk(
                    uuid=f"{number:08d}-0000-5000-8000-000000000000",
                    pmid=str(10_000_000 + number // 2),
                    text=texts[offset],
                    year=int(years[offset]),
                    pub_types=("Journal Article", PUB_TYPES[types[offset]]),
                    quality=int(quality[offset]),
                    vector=vectors[offset],
                )


class QueryVectors(Embeddings):
    """Answers each query text with a fixed embedding-like vector: no model in the timing."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        super().__init__()
        self.vectors = vectors

    @property
    def model_id(self) -> str:
        return "bench:synthetic"

    @property
    def dim(self) -> int:
        return DIM

    def _encode(self, batch: list[str]) -> np.ndarray:
        return np.stack([self.vectors[text] for text in batch])


def percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(np.array(samples) * 1000, q))


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


YearRange = tuple[int | None, int | None] | None
# Years are uniform over 1970-2025: this range keeps 64% of the chunks and (2015, 2025) 20%, both
# searched in the graph on the ann path; the rare publication type keeps about 2%, a scan of the
# kept rows on either path.
WIDE_YEARS = (1990, None)
CASES: list[tuple[str, YearRange, list[str] | None]] = [
    ("hybrid_search", None, None),
    ("hybrid_search_wide_year_filter", WIDE_YEARS, None),
    ("hybrid_search_year_filter", (2015, 2025), None),
    ("hybrid_search_rare_pub_type", (2020, None), ["Meta-Analysis"]),
]


def time_searches(index: HybridIndex, texts: list[str], params: Mapping[str, object]) -> dict[str, float]:
    """Emits P50 / P95 per case; returns the P95s by case name."""
    p95s = {}
    for name, year_range, pub_types in CASES:
        for text in texts[:5]:
            index.search(text, 20, True, year_range, pub_types)  # warm-up: page in the memory map
        samples = []
        for text in texts:
            started = time.perf_counter()
            index.search(text, 20, True, year_range, pub_types)
            samples.append(time.perf_counter() - started)
        case = {**params, "year_range": year_range, "pub_types": pub_types}
        emit(f"{name}_p50", percentile_ms(samples, 50), "ms", case)
        p95s[name] = percentile_ms(samples, 95)
        emit(f"{name}_p95", p95s[name], "ms", case)
    return p95s


def compare_vectors(
    folder: Path, model_id: str, size: int, queries: np.ndarray, params: Mapping[str, object]
) -> None:
    """Builds the graph over the exact index's vectors, compares both paths, saves the graph."""
    started = time.perf_counter()
    exact = VectorIndex.open(folder, DIM, model_id, ann_threshold=size + 1)
    emit("vector_open", time.perf_counter() - started, "s", params)
    started = time.perf_counter()
    approximate = VectorIndex.open(folder, DIM, model_id, ann_threshold=1)
    emit("vector_open_and_ann_build", time.perf_counter() - started, "s", params)
    for year_range in (None, WIDE_YEARS):
        mask = exact.mask(year_range)
        case = {**params, "year_range": year_range}
        for depth in (20, 100):
            found = [
                {h.uuid for h in exact.search(q, depth, mask)}
                & {h.uuid for h in approximate.search(q, depth, mask)}
                for q in queries
            ]
            emit(f"ann_recall_at_{depth}", sum(map(len, found)) / (depth * len(queries)), "ratio", case)
        for path, index in (("exact", exact), ("ann", approximate)):
            samples = []
            for q in queries:
                started = time.perf_counter()
                index.search(q, 100, mask)
                samples.append(time.perf_counter() - started)
            timed = {**case, "vector_path": path, "limit": 100}
            emit("vector_search_p50", percentile_ms(samples, 50), "ms", timed)
            emit("vector_search_p95", percentile_ms(samples, 95), "ms", timed)
    started = time.perf_counter()
    approximate.save()
    emit("vector_save_with_ann", time.perf_counter() - started, "s", params)


def run(size: int, queries: int, scratch: Path, paths: list[str]) -> None:
    data = Synthetic(seed=size)
    texts = [f"{t} q{i}" for i, t in enumerate(data.texts(queries, 6))]  # distinct: one vector each
    query_vectors = data.vectors(queries)
    stub = QueryVectors(dict(zip(texts, query_vectors)))
    folder = scratch / f"hybrid-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    params = {
        "chunks": size,
        "dim": DIM,
        "words_per_chunk": WORDS_PER_PASSAGE,
        "top_k": 20,
        "queries": queries,
    }
    exact_only = size + 1
    index = HybridIndex(stub, folder, ann_threshold=exact_only)
    started = time.perf_counter()
    index.rebuild(data.chunks(size))
    emit("hybrid_build", time.perf_counter() - started, "s", params)
    emit("hybrid_index_size", folder_bytes(folder) / 1e6, "MB", params)
    del index
    p95s: dict[str, dict[str, float]] = {}
    for path in paths:
        path_params = {**params, "vector_path": path}
        threshold = 1 if path == "ann" else exact_only
        if path == "ann":
            compare_vectors(folder / "vectors", stub.model_id, size, query_vectors, path_params)
            emit("hybrid_index_size", folder_bytes(folder) / 1e6, "MB", path_params)
        started = time.perf_counter()
        index = HybridIndex(stub, folder, ann_threshold=threshold)
        emit("hybrid_open", time.perf_counter() - started, "s", path_params)
        p95s[path] = time_searches(index, texts, path_params)
        del index
    if len(p95s) == 2:
        ratio = p95s["exact"]["hybrid_search"] / p95s["ann"]["hybrid_search"]
        emit("hybrid_search_p95_exact_over_ann", ratio, "ratio", params)
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--paths", default="exact,ann", help="vector paths to time: exact, ann or both")
    parser.add_argument("--scratch", type=Path, default=None, help="where to build (default: a temp folder)")
    args = parser.parse_args()
    paths = args.paths.split(",")
    if not paths or set(paths) - {"exact", "ann"}:
        parser.error("--paths takes exact, ann or exact,ann")
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        for size in (int(s) for s in args.sizes.split(",")):
            run(size, args.queries, Path(scratch), paths)


if __name__ == "__main__":
    main()
