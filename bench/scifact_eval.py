"""SciFact (train split) retrieval quality of BM25, vector and hybrid search, as JSON lines.

    .venv/bin/python bench/scifact_eval.py --scratch /tmp/bio-mcp-scifact

Everything runs through `HybridIndex`, the corpus's own index, with the shipped defaults
(`ChunkPolicy()`, `DEFAULT_FUSION`) and the metrics of `bio-mcp eval beir`; "bm25" and "vector"
are its searches with one retriever alone. Chunk vectors are cached in the scratch folder (the
first run embeds the corpus: several minutes on two cores). The last lines give the `onnx`
provider's hybrid nDCG@10, over all queries and over those with even and odd ids, and compare it
with the full model's. `bio-mcp eval beir` gives the same figures
through the whole corpus path (SQL store, sync commit, embedding writer).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from figures import emit
from scifact_corpus import SciFact, VectorCache, build_index, evaluate_index

from bio_mcp.search.chunking import ChunkPolicy
from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings
from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings
from bio_mcp.search.fusion import DEFAULT_FUSION
from bio_mcp.search.hybrid import SearchMode

ONNX_TOLERANCE = 0.005
DEFAULT_DATA = Path(os.environ.get("BIO_MCP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scratch", type=Path, required=True, help="folder for cached vectors and the ONNX model"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "bench" / "scifact")
    parser.add_argument("--skip-onnx", action="store_true")
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    scifact = SciFact.load(args.data)
    policy = ChunkPolicy()
    base = {
        "split": "train",
        "queries": len(scifact.queries),
        "docs": len(scifact.docs),
        "chunking": policy.id,
    }
    local = VectorCache(args.scratch, SentenceTransformerEmbeddings.local())
    index = build_index(scifact, policy, local, DEFAULT_FUSION)
    hybrid_ndcg = 0.0
    modes: tuple[SearchMode, ...] = ("bm25", "vector", "hybrid")
    for retriever in modes:
        metrics = evaluate_index(index, scifact, mode=retriever)
        params = {
            **base,
            "retriever": retriever,
            "model_id": local.embeddings.model_id,
            "fusion": dataclasses.asdict(DEFAULT_FUSION),
        }
        for metric, value in metrics.items():
            emit(f"scifact_{metric}", value, "ratio", params)
        if retriever == "hybrid":
            hybrid_ndcg = metrics["ndcg@10"]
    if args.skip_onnx:
        return

    onnx = VectorCache(args.scratch, OnnxEmbeddings())
    onnx_index = build_index(scifact, policy, onnx, DEFAULT_FUSION)
    onnx_ndcg = evaluate_index(onnx_index, scifact)["ndcg@10"]
    params = {
        **base,
        "retriever": "hybrid",
        "model_id": onnx.embeddings.model_id,
        "fusion": dataclasses.asdict(DEFAULT_FUSION),
    }
    emit("scifact_ndcg@10", onnx_ndcg, "ratio", params)
    for parity, half in ((0, "even"), (1, "odd")):
        ndcg = evaluate_index(onnx_index, scifact, parity=parity)["ndcg@10"]
        emit("scifact_ndcg@10", ndcg, "ratio", {**params, "query_ids": half})
    delta = onnx_ndcg - hybrid_ndcg
    emit(
        "scifact_onnx_minus_local_ndcg@10",
        delta,
        "ratio",
        {**params, "tolerance": ONNX_TOLERANCE, "within_tolerance": abs(delta) <= ONNX_TOLERANCE},
    )


if __name__ == "__main__":
    main()
