"""SciFact in BEIR layout (train split), an on-disk cache of vectors, and a `HybridIndex` built
over it, scored with the metrics of `bio-mcp eval beir`.

Shared by `scifact_eval.py` and `scifact_tune.py`. The cache lives in a scratch folder named on
the command line (never in the repository): one sub-folder per embedding `model_id`, holding the
vectors of every text ever embedded keyed by the SHA-1 of the text, so re-chunking only embeds
the chunks that changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bio_mcp.eval.beir import load_beir
from bio_mcp.eval.metrics import query_metrics
from bio_mcp.search.chunking import Chunk, ChunkPolicy, chunk_record
from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.fusion import FusionConfig
from bio_mcp.search.hybrid import HybridIndex, IndexedChunk, SearchMode


@dataclass(frozen=True)
class SciFact:
    docs: list[dict[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @classmethod
    def load(cls, folder: Path) -> SciFact:
        dataset = load_beir(folder, "train")
        docs = [
            {"_id": str(d["_id"]), "title": d.get("title") or "", "text": d.get("text") or ""}
            for d in dataset.corpus
        ]
        return cls(docs, dataset.queries, dataset.qrels)

    def chunks(self, policy: ChunkPolicy) -> list[Chunk]:
        return [c for d in self.docs for c in chunk_record(d["_id"], d["title"], d["text"], policy)]


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


def evaluate_index(
    index: HybridIndex,
    scifact: SciFact,
    quality_bias: bool = False,
    mode: SearchMode = "hybrid",
    parity: int | None = None,
) -> dict[str, float]:
    """The metrics of `bio-mcp eval beir` (`query_metrics`), averaged over the queries (with
    `parity` 0 or 1, over those whose id is even or odd: a general gain shows in both halves)."""
    per_query = [
        query_metrics(
            [hit.pmid for hit in index.search(text, 10, quality_bias, mode=mode)],
            [hit.pmid for hit in index.search(text, 100, quality_bias, mode=mode)],
            scifact.qrels[qid],
        )
        for qid, text in scifact.queries.items()
        if parity is None or int(qid) % 2 == parity
    ]
    return {name: sum(q[name] for q in per_query) / len(per_query) for name in per_query[0]}
