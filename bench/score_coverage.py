"""Do reported scores mean what they say? SciFact train, JSON lines: nDCG@10 of the hybrid's top 10
re-ranked by the coverage-scaled score (`graph.unmatched_terms.covered_score`) at several floors
(floor 1 is the retriever's score and order; the product reports the scaled score and orders by it), and a reliability view: the share of relevant results per score bin, with the
expected calibration error (score read as P(relevant)), at each floor.

    PYTHONPATH=src python bench/score_coverage.py --data ../shared/data/bench/scifact --home /tmp/score-cov \
        [--mode bm25|hybrid] [--floors 0,0.2,0.4,0.6,1]

The shared SciFact copy holds only the train split (queries.train.jsonl, qrels/train.tsv): the floor
is chosen on its even-numbered queries ("tune") and reported on the odd ones ("dev"), as
`bench/kb_scifact.py` splits them. Floor 1 is the unscaled score.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.eval.beir import load_beir
from bio_mcp.eval.corpus_fill import beir_documents, fill_scratch_corpus
from bio_mcp.eval.metrics import expected_calibration_error, ndcg_at, reliability_table
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.graph.indexer import load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.unmatched_terms import catalog_names, covered_score, query_terms, term_coverage
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.store import open_metadata_store

BINS = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True, help="BIO_MCP_HOME (the ONNX model is exported here)")
    parser.add_argument("--mode", choices=("hybrid", "bm25"), default="bm25",
                        help="hybrid embeds 5,183 abstracts (about an hour on a loaded machine)")
    parser.add_argument("--floors", default="0,0.2,0.4,0.6,1")
    parser.add_argument("--max-queries", type=int, default=None)
    args = parser.parse_args()
    shared = args.data.resolve().parents[1]
    mesh = shared / "mesh" / "mesh_descriptors_2024.jsonl"
    training = shared / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt"
    floors = [float(f) for f in args.floors.split(",")]
    settings = load_settings(BIO_MCP_HOME=str(args.home))
    dataset = load_beir(args.data, "train", max_queries=args.max_queries)
    documents, beir_ids = beir_documents(dataset.corpus)
    texts = {d.record.pmid: "\n".join(filter(None, (d.record.title, d.record.abstract))) for d in documents}
    cache = args.home / "cache"
    linker = load_linker_from(mesh, training if training.is_file() else None, cache)
    names = catalog_names(load_catalog(mesh, cache))
    embedder = build_embeddings(settings, model_api=ModelApi)
    ndcg: dict[float, list[float]] = {floor: [] for floor in floors}
    scored: dict[float, list[list[tuple[float, bool]]]] = {floor: [] for floor in floors}
    with tempfile.TemporaryDirectory(prefix="score-cov-", dir=args.home) as scratch:
        scratch_settings = settings.model_copy(update={"home": Path(scratch), "database_url": None})
        store = open_metadata_store(scratch_settings)
        try:
            index = CorpusIndex(store, index_folder(scratch_settings), embedder)
            fill_scratch_corpus(index, documents, settings.embeddings_batch_size, embed=args.mode == "hybrid")
            for query_id, text in dataset.queries.items():
                hits = index.search(text, 10, False, args.mode)
                terms = query_terms(text, linker, names=names)
                coverage = {hit.pmid: term_coverage(terms, texts[hit.pmid], linker) for hit in hits}
                relevant = dataset.qrels[query_id]
                for floor in floors:
                    rescored = sorted(((covered_score(hit.score, coverage[hit.pmid], floor), hit.pmid) for hit in hits),
                                      key=lambda item: (-item[0], item[1]))
                    ndcg[floor].append(ndcg_at([beir_ids[pmid] for _, pmid in rescored], relevant))
                    scored[floor].append([(score, relevant.get(beir_ids[pmid], 0) > 0) for score, pmid in rescored])
        finally:
            store.close()
    base = {"split": "train", "queries": len(dataset.queries), "documents": len(documents), "mode": args.mode,
            "model_id": embedder.model_id if args.mode == "hybrid" else None}
    for floor in floors:
        for subset, start in (("tune", 0), ("dev", 1)):
            values = ndcg[floor][start::2]
            emit("score_coverage_resorted_ndcg@10", sum(values) / len(values), "ndcg",
                 base | {"floor": floor, "subset": subset, "n": len(values)})
            pairs = [pair for query in scored[floor][start::2] for pair in query]
            scores, events = [s for s, _ in pairs], [float(r) for _, r in pairs]
            emit("score_coverage_ece", expected_calibration_error(scores, events, BINS), "fraction", base | {"floor": floor, "subset": subset, "results": len(pairs)})
            top = [query[0] for query in scored[floor][start::2] if query]
            emit("score_coverage_top1_mean_score", sum(s for s, _ in top) / len(top), "score",
                 base | {"floor": floor, "subset": subset, "top1_share_relevant": round(sum(r for _, r in top) / len(top), 4)})
            if subset == "dev":
                for row in reliability_table(scores, events, BINS):
                    emit("score_coverage_reliability_bin", row.observed, "share_relevant",
                         base | {"floor": floor, "subset": subset, "bin": f"{row.low:.1f}-{row.high:.1f}",
                                 "n": row.count, "mean_score": row.mean_conf})


if __name__ == "__main__":
    main()
