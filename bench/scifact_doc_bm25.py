"""Would document-level BM25 lift the hybrid? SciFact train nDCG@10 with a document's BM25 taken from
its best chunk or from the whole document, JSON lines.

    .venv/bin/python bench/scifact_doc_bm25.py --scratch /tmp/bio-mcp-scifact

The corpus's BM25 index holds chunks, and a document's BM25 is its best chunk's (`search.fusion`).
Here a second BM25 index, with the same analyser, holds each document whole, and its score stands in
for the best chunk's. A whole document is either the join of its chunks' texts (`document_chunks`:
what an index fed chunk by chunk could hold; each chunk repeats the title and the chunks overlap) or
its title and abstract as the dataset gives them (`document_text`). Everything else is as shipped:
the onnx provider's chunk vectors (cached in the scratch folder, shared with `scifact_eval.py`), 100
candidates per retriever with each list's missing scores filled in, `DEFAULT_FUSION`'s weights and
normalisation, a document's cosine its best chunk's. The document index's own top 100 join the
candidates. Queries are also scored by parity of their id, so a gain that is not general shows as a
half that does not agree. The best-chunk arm scores 0.7416 hybrid here, as the index did before it
held documents whole. `HybridIndex` now scores its candidates' documents whole (the join of their
chunks) without adding the document index's own top 100: 0.7455 in `scifact_eval.py`.
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from figures import emit
from scifact_corpus import SciFact, VectorCache

from bio_mcp.eval.metrics import ndcg_at
from bio_mcp.search.bm25 import BM25Doc, BM25Index
from bio_mcp.search.chunking import ChunkPolicy
from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings
from bio_mcp.search.fusion import DEFAULT_FUSION, fuse_scores

DEFAULT_DATA = Path(os.environ.get("BIO_MCP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def best_per_doc(scores: Mapping[str, float], pmid_of: Mapping[str, str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for uuid, score in scores.items():
        pmid = pmid_of[uuid]
        best[pmid] = max(score, best.get(pmid, score))
    return best


def top10(scores: Mapping[str, float]) -> list[str]:
    return [key for key, value in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])) if value > 0][:10]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, required=True, help="folder for cached vectors")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "bench" / "scifact")
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)

    scifact = SciFact.load(args.data)
    policy = ChunkPolicy()
    chunks = scifact.chunks(policy)
    cache = VectorCache(args.scratch, OnnxEmbeddings())
    matrix = cache.embed([c.text for c in chunks], f"chunks {policy.id}")
    qids = list(scifact.queries)
    query_vectors = cache.embed([scifact.queries[q] for q in qids], "queries")

    pmid_of = {c.uuid: c.pmid for c in chunks}
    row_of = {c.uuid: row for row, c in enumerate(chunks)}
    chunks_of: dict[str, list[str]] = defaultdict(list)
    texts_of: dict[str, list[str]] = defaultdict(list)
    for c in chunks:
        chunks_of[c.pmid].append(c.uuid)
        texts_of[c.pmid].append(c.text)
    chunk_index = BM25Index()
    chunk_index.add(BM25Doc(c.uuid, c.pmid, c.text) for c in chunks)
    chunk_index.commit()
    doc_indexes = {"document_chunks": BM25Index(), "document_text": BM25Index()}
    doc_indexes["document_chunks"].add(BM25Doc(p, p, "\n".join(texts_of[p])) for p in chunks_of)
    doc_indexes["document_text"].add(
        BM25Doc(d["_id"], d["_id"], f"{d['title']}\n{d['text']}") for d in scifact.docs
    )
    for doc_index in doc_indexes.values():
        doc_index.commit()

    depth = DEFAULT_FUSION.candidate_depth(10)
    per_query: dict[tuple[str, str], list[float]] = defaultdict(list)
    for qid, query_vector in zip(qids, query_vectors):
        text, judged = scifact.queries[qid], scifact.qrels[qid]
        sims = matrix @ query_vector
        bm25 = {hit.uuid: hit.score for hit in chunk_index.search(text, depth)}
        vector_uuids = [chunks[row].uuid for row in np.argsort(-sims, kind="stable")[:depth]]
        candidates = set(bm25) | set(vector_uuids)
        bm25.update(chunk_index.scores(text, candidates - set(bm25)))
        chunk_best = best_per_doc(bm25, pmid_of)
        shipped_sims = best_per_doc({uuid: float(sims[row_of[uuid]]) for uuid in candidates}, pmid_of)
        rankings = {
            ("hybrid", "chunk"): top10(fuse_scores(chunk_best, shipped_sims, DEFAULT_FUSION)),
            ("bm25", "chunk"): top10(chunk_best),
        }
        for level, doc_index in doc_indexes.items():
            doc_bm25 = {hit.pmid: hit.score for hit in doc_index.search(text, depth)}
            # A document only the whole-document index found gets its chunks' cosines, as the
            # shipped search completes a candidate's missing score.
            extra = set(doc_bm25) - set(shipped_sims)
            sim_best = dict(shipped_sims)
            sim_best.update((p, float(sims[[row_of[u] for u in chunks_of[p]]].max())) for p in extra)
            doc_bm25.update(doc_index.scores(text, set(sim_best) - set(doc_bm25)))
            rankings["hybrid", level] = top10(fuse_scores(doc_bm25, sim_best, DEFAULT_FUSION))
            rankings["bm25", level] = top10(doc_bm25)
        for arm, ranking in rankings.items():
            per_query[arm].append(ndcg_at(ranking, judged))

    parity = np.array([int(q) % 2 for q in qids])
    for (retriever, level), values in per_query.items():
        scores = np.array(values)
        for half, selected in (("all", parity >= 0), ("even", parity == 0), ("odd", parity == 1)):
            params = {
                "split": "train",
                "queries": half,
                "n": int(selected.sum()),
                "retriever": retriever,
                "bm25_level": level,
                "model_id": cache.embeddings.model_id,
                "chunking": policy.id,
            }
            emit("scifact_ndcg@10", float(scores[selected].mean()), "ratio", params)


if __name__ == "__main__":
    main()
