"""The search layer of the local corpus: chunking, embeddings, BM25, vectors, fusion, quality.

| module | concern |
|---|---|
| `chunking` | section-aware, token-bounded chunks of a PubMed record; stable uuid5 chunk ids |
| `embeddings` | seed 000's Embeddings adapter and its providers (local, onnx, hf, openai, hash) |
| `bm25` | tantivy BM25 over chunk texts, parser-free queries, year / publication-type filters |
| `vectors` | float32 matrix with per-row filter attributes, memory-mapped persistence, exact or `ann` |
| `ann` | HNSW graph (faiss) past a million vectors: tombstones, filtered walks, saved with the matrix |
| `fusion` | BM25 + vector fusion, chunk-to-document roll-up, the monotone quality rerank |
| `quality` | the evidence-quality rubric (design, recency, journal, human, total) |
| `hybrid` | `HybridIndex`, the facade over all of the above |

Figures behind the defaults: ``bench/scifact_eval.py`` and ``bench/scifact_tune.py`` (SciFact
train), ``bench/search_latency.py`` and ``bench/embed_throughput.py``.
"""
