"""The PubMedQA + SciFact corpus the answer benches run on, built once into a folder and reused.

    PYTHONPATH=src python bench/answer_corpus.py --scratch /work/cache/answers/pubmedqa-corpus [--chunks 100000]

The folder is a BIO_MCP_HOME (SQLite store with the chunks, their vectors and the knowledge graph);
`built.json` marks a finished build. `--chunks N` grows the corpus to at least N chunks with copies
of the SciFact documents under new ids (copy c of document 10^9 + n is 10^9 + c * 10^7 + n), linked
and committed like the originals; each distinct chunk text is embedded once and a copy reuses its
vector, so the build costs the base corpus's embedding plus the store and graph writes. The
PubMedQA documents are never copied: each question's abstract stays the only one of its kind. Opening it builds the corpus index in memory from the store
(no re-embedding), so a bench may delete and restore documents in the index without touching disk.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from bio_mcp.config import Settings, load_settings
from bio_mcp.eval.corpus_fill import fill_scratch_corpus, pubmedqa_documents, scifact_documents
from bio_mcp.eval.pubmedqa import load_pubmedqa
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import CorpusDocument, chunk_records
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.search import KbContext
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.search.embeddings import Embeddings, build_embeddings
from bio_mcp.sources.model_apis import ModelApi
from bio_mcp.store import open_metadata_store

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
COPY_ID_STEP = 10_000_000
# Chunks per embedding-writer step when copies are embedded: most of a step is vectors reused.
COPY_EMBED_BATCH = 2048


class VectorsByText(Embeddings):
    """`inner`, each distinct text embedded once: a copied chunk gets its original's vector."""

    def __init__(self, inner: Embeddings) -> None:
        super().__init__(inner.batch_size)
        self.inner = inner
        self.vectors: dict[str, np.ndarray] = {}

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _encode(self, batch: list[str]) -> np.ndarray:
        return self.inner._encode(batch)

    def embed_array(self, texts: Iterable[str]) -> np.ndarray:
        items = list(texts)
        new = [text for text in dict.fromkeys(items) if text not in self.vectors]
        if new:
            self.vectors.update(zip(new, self.inner.embed_array(new), strict=True))
        return np.stack([self.vectors[text] for text in items])


def copies(documents: list[CorpusDocument], base_chunks: int, target_chunks: int) -> list[CorpusDocument]:
    """Copies of `documents` under new ids, round after round, until the corpus holds `target_chunks`."""
    made: list[CorpusDocument] = []
    total = base_chunks
    for copy in range(1, 100):
        for document in documents:
            if total >= target_chunks:
                return made
            pmid = str(int(document.record.pmid) + copy * COPY_ID_STEP)
            record = document.record.model_copy(update={"pmid": pmid})
            made.append(CorpusDocument(record=record, chunks=chunk_records(pmid, record.title, record.abstract)))
            total += len(made[-1].chunks)
    return made


def settings_for(scratch: Path) -> Settings:
    return load_settings(BIO_MCP_HOME=str(scratch))


def build(scratch: Path, data: Path, chunks: int | None = None) -> dict[str, object]:
    marker = scratch / "built.json"
    if marker.is_file():
        return json.loads(marker.read_text())
    scratch.mkdir(parents=True, exist_ok=True)
    settings = settings_for(scratch)
    items = load_pubmedqa(data / "bench" / "pubmedqa" / "pqal_dev.json")
    scifact = scifact_documents(data / "bench" / "scifact" / "corpus.jsonl")
    documents = pubmedqa_documents(items) + scifact
    distinct = len(documents)
    embeddings = build_embeddings(settings, model_api=ModelApi)
    batch_size = settings.embeddings_batch_size
    if chunks is not None:
        documents += copies(scifact, sum(len(doc.chunks) for doc in documents), chunks)
        embeddings, batch_size = VectorsByText(embeddings), COPY_EMBED_BATCH
    store = open_metadata_store(settings)
    started = time.perf_counter()
    try:
        index = CorpusIndex(store, index_folder(settings), embeddings)
        last = [0.0]

        def progress(stage: str, done: int, total: int | None) -> None:
            if time.perf_counter() - last[0] > 30 or done == total:
                last[0] = time.perf_counter()
                print(json.dumps({"stage": stage, "done": done, "total": total}), file=sys.stderr, flush=True)

        with store.read() as tx:
            committed = tx.chunks.state_counts(index.model_id).total
        # A killed build resumes: its documents are committed, what is left is embedding them.
        fill_scratch_corpus(index, [] if committed else documents, batch_size, progress=progress,
                            graph=build_graph_indexer(settings))
        with store.read() as tx:
            counts = tx.chunks.state_counts(index.model_id)
    finally:
        store.close()
    built = {"documents": len(documents), "distinct_documents": distinct, "pubmedqa": len(items),
             "chunks": counts.total,
             "model_id": index.model_id, "build_s": round(time.perf_counter() - started, 1)}
    marker.write_text(json.dumps(built))
    return built


def open_context(scratch: Path) -> KbContext:
    """The built corpus as kb.search reads it, its index rebuilt in memory from the store."""
    settings = settings_for(scratch)
    store = open_metadata_store(settings)
    index = CorpusIndex(store, None, build_embeddings(settings, model_api=ModelApi))
    index.reconcile()
    graph = build_graph_indexer(settings)
    return KbContext(settings, store, index, ProviderRegistry(settings), graph.linker, graph.catalog)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--chunks", type=int, help="grow the corpus to this many chunks with copies of SciFact")
    args = parser.parse_args()
    print(json.dumps(build(args.scratch, args.data, args.chunks)))


if __name__ == "__main__":
    main()
