"""Fusion variants measured through the product path of `bio-mcp eval beir`, embedding once.

    BIO_MCP_HOME=... .venv/bin/python bench/fusion_floor.py --data ../shared/data/bench/scifact --split train

The BEIR documents go through `bio-mcp eval beir`'s own path (`eval.corpus_fill`, `CorpusIndex.search`);
only the `FusionConfig` of the index changes between variants, so every figure below comes from
the same vectors. One JSON line per variant and metric (nDCG@10, Recall@100, MRR@10): the price
in relevance of `sim_min_span`, the floor under the span of candidate cosines that keeps a query
whose candidates are all poor matches from having its best stretched to 1.0.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.eval.beir import load_beir
from bio_mcp.eval.corpus_fill import beir_documents, fill_scratch_corpus
from bio_mcp.eval.metrics import query_metrics
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.search.fusion import DEFAULT_FUSION
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.store import open_metadata_store

SPANS = (0.0, 0.2, 0.3, 0.4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--split", default="train")
    parser.add_argument("--spans", default=",".join(str(s) for s in SPANS))
    parser.add_argument("--max-queries", type=int, default=None, help="the first N queries (a quicker A/B)")
    parser.add_argument("--max-docs", type=int, default=None, help="their relevant documents plus N others")
    args = parser.parse_args()
    settings = load_settings()
    dataset = load_beir(args.data, args.split, max_queries=args.max_queries, max_docs=args.max_docs)
    documents, beir_ids = beir_documents(dataset.corpus)
    embedder = build_embeddings(settings, model_api=ModelApi)
    with tempfile.TemporaryDirectory(prefix="bio-mcp-fusion-") as scratch:
        scratch_settings = settings.model_copy(update={"home": Path(scratch), "database_url": None})
        store = open_metadata_store(scratch_settings)
        try:
            index = CorpusIndex(store, index_folder(scratch_settings), embedder)
            fill_scratch_corpus(index, documents, settings.embeddings_batch_size)
            for span in (float(s) for s in args.spans.split(",")):
                index.hybrid.fusion = dataclasses.replace(DEFAULT_FUSION, sim_min_span=span)

                def ranked(text: str, top_k: int) -> list[str]:
                    return [beir_ids[hit.pmid] for hit in index.search(text, top_k, False)]

                per_query = [
                    query_metrics(ranked(text, 10), ranked(text, 100), dataset.qrels[query_id])
                    for query_id, text in dataset.queries.items()
                ]
                for metric in ("ndcg@10", "recall@100", "mrr@10"):
                    value = sum(q[metric] for q in per_query) / len(per_query)
                    emit(f"scifact_{args.split}_{metric}", value, "ratio",
                         {"sim_min_span": span, "mode": "hybrid", "queries": len(per_query),
                          "documents": len(documents), "model_id": embedder.model_id,
                          "path": "eval_beir product path"})
        finally:
            store.close()


if __name__ == "__main__":
    main()
