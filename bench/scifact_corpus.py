"""SciFact in BEIR layout (train split), its metrics, an on-disk cache of vectors, and a
`HybridIndex` built over it.

Shared by `scifact_eval.py` and `scifact_tune.py`. The cache lives in a scratch folder named on
the command line (never in the repository): one sub-folder per embedding `model_id`, holding the
vectors of every text ever embedded keyed by the SHA-1 of the text, so re-chunking only embeds
the chunks that changed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bio_mcp.search.chunking import Chunk, ChunkPolicy, chunk_record
from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.fusion import FusionConfig
from bio_mcp.search.hybrid import HybridIndex, IndexedChunk


@dataclass(frozen=True)
class SciFact:
    docs: list[dict[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @classmethod
    def load(cls, folder: Path) -> SciFact:
        docs = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
        queries = {q["_id"]: q["text"] for q in map(json.loads, (folder / "queries.train.jsonl").open())}
        qrels: dict[str, dict[str, int]] = defaultdict(dict)
        with (folder / "qrels" / "train.tsv").open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                qrels[row["query-id"]][row["corpus-id"]] = int(row["score"])
        judged = {qid: text for qid, text in queries.items() if qid in qrels}
        return cls(docs, judged, dict(qrels))

    def chunks(self, policy: ChunkPolicy) -> list[Chunk]:
        return [c for d in self.docs for c in chunk_record(d["_id"], d["title"], d["text"], policy)]


def ndcg_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal_gains = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 100) -> float:
    wanted = {doc for doc, g in relevant.items() if g > 0}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def mrr_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    for i, doc in enumerate(ranked[:k]):
        if relevant.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def evaluate(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    n = len(runs)
    return {
        "ndcg@10": sum(ndcg_at(r, qrels[q]) for q, r in runs.items()) / n,
        "recall@100": sum(recall_at(r, qrels[q]) for q, r in runs.items()) / n,
        "mrr@10": sum(mrr_at(r, qrels[q]) for q, r in runs.items()) / n,
    }


class VectorCache:
    def __init__(self, scratch: Path, embeddings: Embeddings) -> None:
        safe = hashlib.sha1(embeddings.model_id.encode()).hexdigest()[:12]
        self.folder = scratch / f"vectors-{safe}"
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "model_id.txt").write_text(embeddings.model_id)
        self.embeddings = embeddings
        self._parts: list[np.ndarray] = []
        self._where: dict[str, tuple[int, int]] = {}
        for part in sorted(self.folder.glob("part-*.npy")):
            self._add_part(part.with_suffix(".keys").read_text().split(), np.load(part))

    def _add_part(self, keys: list[str], vectors: np.ndarray) -> None:
        number = len(self._parts)
        self._parts.append(vectors)
        for row, key in enumerate(keys):
            self._where[key] = (number, row)

    def embed(self, texts: Sequence[str], label: str) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._where))
        if missing:
            by_key = dict(zip(keys, texts))
            started = time.perf_counter()
            fresh = self.embeddings.embed_array([by_key[k] for k in missing])
            seconds = time.perf_counter() - started
            print(
                json.dumps(
                    {
                        "name": "embed_throughput",
                        "value": round(len(missing) / seconds, 2),
                        "unit": "texts/s",
                        "params": {
                            "model_id": self.embeddings.model_id,
                            "texts": len(missing),
                            "what": label,
                        },
                    }
                ),
                file=sys.stderr,
            )
            part = self.folder / f"part-{len(self._parts):04d}.npy"
            np.save(part, fresh)
            part.with_suffix(".keys").write_text("\n".join(missing))
            self._add_part(missing, fresh)
        return np.stack([self._parts[p][r] for p, r in (self._where[k] for k in keys)])


class CachedEmbeddings(Embeddings):
    """An `Embeddings` answering from a `VectorCache`, so a search embeds its query only once."""

    def __init__(self, cache: VectorCache) -> None:
        super().__init__(batch_size=4096)
        self.cache = cache

    @property
    def model_id(self) -> str:
        return self.cache.embeddings.model_id

    @property
    def dim(self) -> int:
        return self.cache.embeddings.dim

    def _encode(self, batch: list[str]) -> np.ndarray:
        return self.cache.embed(batch, "queries")


def build_index(
    scifact: SciFact,
    policy: ChunkPolicy,
    cache: VectorCache,
    fusion: FusionConfig,
    quality_seed: int | None = None,
) -> HybridIndex:
    """An in-memory `HybridIndex` of SciFact's chunks, with a random quality per document when
    `quality_seed` is given (SciFact has no publication metadata)."""
    chunks = scifact.chunks(policy)
    vectors = cache.embed([c.text for c in chunks], f"chunks {policy.id}")
    cache.embed(list(scifact.queries.values()), "queries")  # one batch, not one call per search
    rng = np.random.default_rng(quality_seed)
    quality = {d["_id"]: int(rng.integers(0, 9)) for d in scifact.docs} if quality_seed is not None else {}
    index = HybridIndex(CachedEmbeddings(cache), fusion=fusion)
    index.rebuild(
        IndexedChunk(c.uuid, c.pmid, c.text, quality=quality.get(c.pmid), vector=v)
        for c, v in zip(chunks, vectors)
    )
    return index


def run_queries(
    index: HybridIndex, scifact: SciFact, top_k: int, quality_bias: bool = False
) -> dict[str, list[str]]:
    return {
        qid: [hit.pmid for hit in index.search(text, top_k, quality_bias)]
        for qid, text in scifact.queries.items()
    }


def evaluate_index(index: HybridIndex, scifact: SciFact, quality_bias: bool = False) -> dict[str, float]:
    """nDCG@10 and MRR@10 from searches for 10 documents, Recall@100 from searches for 100, as a
    caller would ask for them (the candidate depth grows with top_k)."""
    top10 = evaluate(run_queries(index, scifact, 10, quality_bias), scifact.qrels)
    top100 = evaluate(run_queries(index, scifact, 100, quality_bias), scifact.qrels)
    return {"ndcg@10": top10["ndcg@10"], "mrr@10": top10["mrr@10"], "recall@100": top100["recall@100"]}
