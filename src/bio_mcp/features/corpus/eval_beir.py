"""`bio-mcp eval beir`: retrieval quality of the corpus search on a BEIR dataset folder.

The BEIR documents go into a scratch corpus (a temporary BIO_MCP_HOME with its own SQLite store
and indexes) through the same path as a sync: `records.chunk_records`, `sync.commit_documents`,
the embedding writer and the corpus index's search. BEIR ids are not PMIDs, so each document gets
a synthetic numeric id (its line number, from 1) inside the scratch store, mapped back when
scoring. BEIR documents carry no publication types, MeSH or dates, so every quality component is
null and the total 0: with `quality_bias` the rerank is a no-op here by construction.

Metrics per query, averaged over the queries that have qrels: nDCG@10 (graded, linear gain),
Recall@100 and MRR@10 (relevance > 0). Each is taken as a caller would ask: the @10 metrics from a
search for 10 documents, Recall@100 from a search for 100 (a search's candidate depth grows with
`top_k`, see `FusionConfig.candidate_depth`, so the first ten of a search for 100 may differ).
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import CorpusDocument, chunk_records
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.features.progress import Progress
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.search.embeddings import Embeddings, build_embeddings
from bio_mcp.search.hybrid import SearchMode
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.store import DocumentRecord, QualityScores, open_metadata_store

COMMIT_BATCH = 500


@dataclass(frozen=True)
class BeirDataset:
    corpus: list[dict[str, Any]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def load_beir(data_dir: Path, split: str, *, max_queries: int | None = None, max_docs: int | None = None) -> BeirDataset:
    """The queries with qrels in `split`; with `max_docs`, their relevant documents plus the first others."""
    qrels_path = data_dir / "qrels" / f"{split}.tsv"
    queries_path = next(
        (path for path in (data_dir / f"queries.{split}.jsonl", data_dir / "queries.jsonl") if path.is_file()), None
    )
    if not qrels_path.is_file() or queries_path is None:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"{data_dir} is not a BEIR folder with split {split!r}", {"data_dir": str(data_dir)}
        )
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as rows:
        for row in rows:
            parts = row.rstrip("\n").split("\t")
            if len(parts) != 3 or not parts[2].lstrip("-").isdigit():
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    queries = {str(item["_id"]): str(item["text"]) for item in _jsonl(queries_path) if str(item["_id"]) in qrels}
    chosen = sorted(queries, key=lambda key: (len(key), key))[:max_queries]
    queries = {key: queries[key] for key in chosen}
    qrels = {key: qrels[key] for key in chosen}
    relevant = {doc for judged in qrels.values() for doc in judged}
    corpus: list[dict[str, Any]] = []
    for item in _jsonl(data_dir / "corpus.jsonl"):
        keep = max_docs is None or str(item["_id"]) in relevant or len(corpus) < max_docs
        if keep:
            corpus.append(item)
    return BeirDataset(corpus=corpus, queries=queries, qrels=qrels)


def _documents(corpus: list[dict[str, Any]]) -> tuple[list[CorpusDocument], dict[str, str]]:
    documents: list[CorpusDocument] = []
    beir_ids: dict[str, str] = {}
    for number, item in enumerate(corpus, start=1):
        pmid = str(number)
        beir_ids[pmid] = str(item["_id"])
        title = str(item.get("title") or "") or None
        text = str(item.get("text") or "") or None
        chunks = chunk_records(pmid, title, text)
        if not chunks:
            continue
        record = DocumentRecord(pmid=pmid, title=title, abstract=text, quality=QualityScores(total=0))
        documents.append(CorpusDocument(record=record, chunks=chunks))
    return documents, beir_ids


def ndcg_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    dcg = sum(judged.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted((grade for grade in judged.values() if grade > 0), reverse=True)[:k]
    best = sum(grade / math.log2(rank + 2) for rank, grade in enumerate(ideal))
    return dcg / best if best > 0 else 0.0


def recall_at(ranked: list[str], judged: dict[str, int], k: int = 100) -> float:
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def mrr_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    first = next((rank for rank, doc in enumerate(ranked[:k], start=1) if judged.get(doc, 0) > 0), None)
    return 1.0 / first if first else 0.0


def query_metrics(top10: list[str], top100: list[str], judged: dict[str, int]) -> dict[str, float]:
    """nDCG@10 and MRR@10 of a search for 10 documents, Recall@100 of a search for 100."""
    return {
        "ndcg@10": ndcg_at(top10, judged),
        "recall@100": recall_at(top100, judged),
        "mrr@10": mrr_at(top10, judged),
    }


def fill_scratch_corpus(
    index: CorpusIndex,
    documents: list[CorpusDocument],
    batch: int,
    *,
    embed: bool = True,
    progress: Progress | None = None,
    graph: GraphIndexer | None = None,
) -> None:
    """Commit `documents` (chunked and BM25-indexed; with `graph`, linked and written to the knowledge
    graph as a sync would), then embed their chunks unless `embed` is off."""
    for offset in range(0, len(documents), COMMIT_BATCH):
        chunk_of_documents = documents[offset : offset + COMMIT_BATCH]
        if graph is not None:
            chunk_of_documents = [replace(d, mentions=graph.link(d.chunks)) for d in chunk_of_documents]
        commit_documents(index, chunk_of_documents, graph)
        if progress is not None:
            progress("documents", min(offset + COMMIT_BATCH, len(documents)), len(documents))
    if not embed:
        return
    total = index.pending_embeddings()
    done = 0
    while taken := index.embed_pending(batch):
        done += taken
        if progress is not None:
            progress("chunks", done, max(done, total))


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
    documents, beir_ids = _documents(dataset.corpus)
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
