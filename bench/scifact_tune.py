"""The grid behind the shipped chunking and fusion defaults, on SciFact's TRAIN split only.

    .venv/bin/python bench/scifact_tune.py --scratch /tmp/bio-mcp-scifact [--provider onnx]

One JSON line per configuration (nDCG@10, Recall@100, MRR@10 through `HybridIndex`), then the
best by nDCG@10. A last block measures what the quality rerank costs when quality carries no
information (a random total per document): the price of `quality_weight` in relevance.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from figures import emit
from scifact_corpus import SciFact, VectorCache, build_index, evaluate_index

from bio_mcp.search.chunking import ChunkPolicy
from bio_mcp.search.embeddings import Embeddings
from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings
from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings
from bio_mcp.search.fusion import DEFAULT_FUSION, FusionConfig

DEFAULT_DATA = Path(os.environ.get("BIO_MCP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FUSIONS = [
    *(FusionConfig(method="rrf", rrf_k=k) for k in (10, 30, 60)),
    *(FusionConfig(method="score", bm25_weight=w, vector_weight=1 - w) for w in (0.4, 0.45, 0.5, 0.55, 0.6)),
    *(dataclasses.replace(DEFAULT_FUSION, candidates=n) for n in (50, 200)),
]
QUALITY_WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "bench" / "scifact")
    parser.add_argument("--provider", choices=("local", "onnx"), default="local")
    parser.add_argument("--policies", default="230:48,160:32,254:48", help="max_tokens:overlap,...")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    scifact = SciFact.load(args.data)
    embeddings: Embeddings = (
        OnnxEmbeddings()
        if args.provider == "onnx"
        else SentenceTransformerEmbeddings.local()
    )
    cache = VectorCache(args.scratch, embeddings)
    best: tuple[float, dict[str, object]] = (-1.0, {})
    for spec in args.policies.split(","):
        max_tokens, overlap = (int(part) for part in spec.split(":"))
        policy = ChunkPolicy(max_tokens, overlap)
        index = build_index(scifact, policy, cache, DEFAULT_FUSION)
        for fusion in FUSIONS:
            index.fusion = fusion
            metrics = evaluate_index(index, scifact)
            params: dict[str, object] = {
                "split": "train",
                "model_id": embeddings.model_id,
                "chunking": policy.id,
                "fusion": dataclasses.asdict(fusion),
            }
            for metric, value in metrics.items():
                emit(f"scifact_{metric}", value, "ratio", params)
            if metrics["ndcg@10"] > best[0]:
                best = (metrics["ndcg@10"], params)
    emit("scifact_best_ndcg@10", best[0], "ratio", best[1])

    index = build_index(scifact, ChunkPolicy(), cache, DEFAULT_FUSION, quality_seed=7)
    for weight in QUALITY_WEIGHTS:
        index.fusion = dataclasses.replace(DEFAULT_FUSION, quality_weight=weight)
        metrics = evaluate_index(index, scifact, quality_bias=True)
        emit(
            "scifact_ndcg@10_random_quality",
            metrics["ndcg@10"],
            "ratio",
            {"split": "train", "model_id": embeddings.model_id, "quality_weight": weight, "quality_seed": 7},
        )


if __name__ == "__main__":
    main()
