"""`bio-mcp eval beir`: retrieval quality of the corpus search on a BEIR dataset folder.

The BEIR documents go into a scratch corpus through the same path as a sync (`eval.corpus_fill`)
and are searched by the corpus index's search. They carry no publication types, MeSH or dates, so
every quality component is null and the total 0: with `quality_bias` the rerank is a no-op here by
construction.

Metrics per query, averaged over the queries that have qrels: nDCG@10 (graded, linear gain),
Recall@100 and MRR@10 (relevance > 0). Each is taken as a caller would ask: the @10 metrics from a
search for 10 documents, Recall@100 from a search for 100 (a search's candidate depth grows with
`top_k`, see `FusionConfig.candidate_depth`, so the first ten of a search for 100 may differ).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from bio_mcp.config import Settings
from bio_mcp.eval.beir import load_beir
from bio_mcp.eval.corpus_fill import beir_documents, fill_scratch_corpus
from bio_mcp.eval.metrics import query_metrics
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.progress import Progress
from bio_mcp.search.embeddings import Embeddings, build_embeddings
from bio_mcp.search.hybrid import SearchMode
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.store import open_metadata_store


def evaluate_beir(
    data_dir: Path,
    split: str,
    mode: SearchMode,
    quality_bias: bool,
    settings: Settings,
    *,
    max_queries: int | None = None,
    max_docs: int | None = None,
    embeddings: Embeddings | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """nDCG@10, Recall@100 and MRR@10 of `mode` on `split`, with the dataset and run parameters.

    In `bm25` mode nothing is embedded, neither the documents nor the queries.
    """
    dataset = load_beir(Path(data_dir), split, max_queries=max_queries, max_docs=max_docs)
    documents, beir_ids = beir_documents(dataset.corpus)
    embedder = embeddings or build_embeddings(settings, model_api=ModelApi)
    with tempfile.TemporaryDirectory(prefix="bio-mcp-beir-") as scratch:
        scratch_settings = settings.model_copy(update={"home": Path(scratch), "database_url": None})
        store = open_metadata_store(scratch_settings)
        try:
            index = CorpusIndex(store, index_folder(scratch_settings), embedder)
            fill_scratch_corpus(
                index, documents, settings.embeddings_batch_size, embed=mode != "bm25", progress=progress
            )

            def ranked(text: str, top_k: int) -> list[str]:
                return [beir_ids[hit.pmid] for hit in index.search(text, top_k, quality_bias, mode)]

            per_query = []
            for query_id, text in dataset.queries.items():
                per_query.append(query_metrics(ranked(text, 10), ranked(text, 100), dataset.qrels[query_id]))
                if progress is not None:
                    progress("queries", len(per_query), len(dataset.queries))
        finally:
            store.close()
    count = len(per_query)
    metrics = {name: sum(q[name] for q in per_query) / count if count else 0.0 for name in ("ndcg@10", "recall@100", "mrr@10")}
    return metrics | {
        "queries": count,
        "documents": len(documents),
        "split": split,
        "mode": mode,
        "quality_bias": quality_bias,
        "model_id": embedder.model_id if mode != "bm25" else None,
    }
