"""Does kb.search's entity boost beat rag.search? nDCG@10 on a BEIR split (SciFact train), JSON lines.

    PYTHONPATH=src python bench/kb_scifact.py --data ../shared/data/bench/scifact --split train \
        --home /tmp/kb-scifact [--weights 0,0.05,0.1,0.2,0.3]

The BEIR documents go through the corpus path of `bio-mcp eval beir` (`commit_documents`, the
embedding writer, the corpus's `HybridIndex`), with their knowledge graph built from their own text
(SciFact has no PubMed records: every MENTIONS edge comes from the MeSH linker, with the BC5CDR
training pairs, as deployed). Per query, the hybrid's top documents (kb.search's pool, and 50; each its own search, so with the pool of 20 the @10 ranking at
weight 0 is exactly rag.search's, with quality_bias off as `eval beir` scores it) are re-ranked by
`features.kb.ranking.entity_boost` at each weight; weight 0 is rag.search. Queries are also split
by parity of their position, so a weight chosen on one half can be checked on the other: a gain
that is not general shows up as a half that does not agree.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.eval.beir import load_beir
from bio_mcp.eval.corpus_fill import beir_documents, fill_scratch_corpus
from bio_mcp.eval.metrics import ndcg_at
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.ranking import entity_boost
from bio_mcp.features.kb.search import CANDIDATE_POOL, KbContext, _Candidate, _matched_entities
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.store import open_metadata_store

# The product's pool (kb.search ranks CANDIDATE_POOL documents), and a deeper one for comparison.
POOLS = (CANDIDATE_POOL, 50)
COMMIT_BATCH = 500



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--split", default="train")
    parser.add_argument("--home", type=Path, required=True, help="BIO_MCP_HOME (the ONNX model is exported here)")
    parser.add_argument("--mesh", type=Path, default=None, help="default: ../mesh/mesh_descriptors_2024.jsonl beside --data")
    parser.add_argument("--training", type=Path, default=None, help="BC5CDR training PubTator file (default beside --data)")
    parser.add_argument("--weights", default="0,0.05,0.1,0.2,0.3,0.5")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--mode", choices=("hybrid", "bm25"), default="hybrid",
                        help="bm25: no embedding at all (minutes instead of an hour on a loaded machine)")
    args = parser.parse_args()
    shared = args.data.resolve().parents[1]
    mesh = args.mesh or shared / "mesh" / "mesh_descriptors_2024.jsonl"
    training = args.training or shared / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt"
    weights = [float(w) for w in args.weights.split(",")]

    settings = load_settings(BIO_MCP_HOME=str(args.home))
    dataset = load_beir(args.data, args.split, max_queries=args.max_queries)
    documents, beir_ids = beir_documents(dataset.corpus)
    cache = args.home / "cache"
    linker = load_linker_from(mesh, training if training.is_file() else None, cache)
    graph = GraphIndexer(load_catalog(mesh, cache), linker)
    started = time.perf_counter()
    documents = [replace(document, mentions=graph.link(document.chunks)) for document in documents]
    link_s = time.perf_counter() - started
    embedder = build_embeddings(settings, model_api=ModelApi)
    with tempfile.TemporaryDirectory(prefix="kb-scifact-", dir=args.home) as scratch:
        scratch_settings = settings.model_copy(update={"home": Path(scratch), "database_url": None})
        store = open_metadata_store(scratch_settings)
        try:
            index = CorpusIndex(store, index_folder(scratch_settings), embedder)
            for offset in range(0, len(documents), COMMIT_BATCH):
                commit_documents(index, documents[offset : offset + COMMIT_BATCH], graph)
            if args.mode == "hybrid":
                fill_scratch_corpus(index, [], settings.embeddings_batch_size)
            context = KbContext(scratch_settings, store, index, ProviderRegistry(scratch_settings), linker)
            per_weight: dict[tuple[int, float], list[float]] = {(p, w): [] for p in POOLS for w in weights}
            linked_queries = 0
            for query_id, text in dataset.queries.items():
                by_pool = {pool: index.search(text, pool, False, args.mode) for pool in POOLS}
                hits = by_pool[max(POOLS)]
                entities = list(dict.fromkeys(m.entity_id for m in linker.link(text)))
                linked_queries += bool(entities)
                uris = {hit.pmid: pubmed_source_uri(hit.pmid) for hit in hits}
                nodes = {pmid: document_node_id(uri) for pmid, uri in uris.items()}
                candidates = [_Candidate(hit, hit.score, uris[hit.pmid]) for hit in hits]
                matched = _matched_entities(context, candidates, entities) if entities else {}
                counts = {pmid: matched.get(node, 0) for pmid, node in nodes.items()}
                for (pool, weight), values in per_weight.items():
                    scored = [(hit.pmid, hit.score) for hit in by_pool[pool]]
                    ranked = entity_boost(scored, counts, len(entities), weight)[:10]
                    values.append(ndcg_at([beir_ids[pmid] for pmid, _ in ranked], dataset.qrels[query_id]))
            with store.read() as tx:
                edge_counts = SqlGraphStore(tx.connection).counts().edges
        finally:
            store.close()
    base = {"split": args.split, "queries": len(dataset.queries), "documents": len(documents),
            "model_id": embedder.model_id, "mode": args.mode}
    emit("kb_scifact_linked_queries", linked_queries / max(1, len(dataset.queries)), "fraction", base)
    emit("kb_scifact_mentions", edge_counts.get("MENTIONS", 0), "edges", base | {"link_s": round(link_s, 1)})
    for (pool, weight), values in per_weight.items():
        baseline = per_weight.get((pool, 0.0))
        for subset, picked in (("all", values), ("even", values[0::2]), ("odd", values[1::2])):
            mean = sum(picked) / len(picked) if picked else 0.0
            name = "rag_search_ndcg@10" if weight == 0 else "kb_search_entity_boost_ndcg@10"
            emit(name, mean, "ndcg", base | {"pool": pool, "weight": weight, "subset": subset, "n": len(picked)})
            if baseline is not None and weight != 0:
                chosen = baseline if subset == "all" else baseline[0::2] if subset == "even" else baseline[1::2]
                emit("kb_search_vs_rag_search_ndcg@10_delta", mean - sum(chosen) / len(chosen), "ndcg",
                     base | {"pool": pool, "weight": weight, "subset": subset})


if __name__ == "__main__":
    main()
