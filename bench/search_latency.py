"""`HybridIndex.search` latency at scale on synthetic data, as JSON lines.

    .venv/bin/python bench/search_latency.py --sizes 100000,1000000 [--scratch DIR]

Passages are ~150 words drawn from a Zipf-distributed vocabulary of 50,000 pseudo-words (so
postings are as skewed as real text); vectors are "embedding-like": unit vectors scattered around
1,000 random centroids rather than uniform noise, which would make every cosine near 0. Each
query is 6 words from the same distribution with its own embedding-like vector, handed to the
index through a stub `Embeddings` so the figures exclude the model (see embed_throughput.py for
that). Prints build time, index size and P50 / P95 search latency for top_k 20 with quality bias,
with and without year and publication-type filters.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.hybrid import HybridIndex, IndexedChunk

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


def emit(name: str, value: float, unit: str, params: Mapping[str, object]) -> None:
    print(json.dumps({"name": name, "value": round(value, 3), "unit": unit, "params": params}), flush=True)


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


def run(size: int, queries: int, scratch: Path) -> None:
    data = Synthetic(seed=size)
    texts = [f"{t} q{i}" for i, t in enumerate(data.texts(queries, 6))]  # distinct: one vector each
    stub = QueryVectors(dict(zip(texts, data.vectors(queries))))
    folder = scratch / f"hybrid-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    index = HybridIndex(stub, folder)
    params = {
        "chunks": size,
        "dim": DIM,
        "words_per_chunk": WORDS_PER_PASSAGE,
        "top_k": 20,
        "queries": queries,
    }
    started = time.perf_counter()
    index.rebuild(data.chunks(size))
    emit("hybrid_build", time.perf_counter() - started, "s", params)
    emit("hybrid_index_size", folder_bytes(folder) / 1e6, "MB", params)
    del index
    started = time.perf_counter()
    index = HybridIndex(stub, folder)
    emit("hybrid_open", time.perf_counter() - started, "s", params)
    cases: list[tuple[str, tuple[int | None, int | None] | None, list[str] | None]] = [
        ("hybrid_search", None, None),
        ("hybrid_search_year_filter", (2015, 2025), None),
        ("hybrid_search_rare_pub_type", (2020, None), ["Meta-Analysis"]),
    ]
    for name, year_range, pub_types in cases:
        for text in texts[:5]:
            index.search(text, 20, True, year_range, pub_types)  # warm-up: page in the memory map
        samples = []
        for text in texts:
            started = time.perf_counter()
            index.search(text, 20, True, year_range, pub_types)
            samples.append(time.perf_counter() - started)
        case = {**params, "year_range": year_range, "pub_types": pub_types}
        emit(f"{name}_p50", percentile_ms(samples, 50), "ms", case)
        emit(f"{name}_p95", percentile_ms(samples, 95), "ms", case)
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--scratch", type=Path, default=None, help="where to build (default: a temp folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        for size in (int(s) for s in args.sizes.split(",")):
            run(size, args.queries, Path(scratch))


if __name__ == "__main__":
    main()
