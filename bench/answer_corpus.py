"""The PubMedQA + SciFact corpus the answer benches run on, built once into a folder and reused.

    PYTHONPATH=src python bench/answer_corpus.py --scratch /work/cache/answers/pubmedqa-corpus

The folder is a BIO_MCP_HOME (SQLite store with the chunks, their vectors and the knowledge graph);
`built.json` marks a finished build. Opening it builds the corpus index in memory from the store
(no re-embedding), so a bench may delete and restore documents in the index without touching disk.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bio_mcp.config import Settings, load_settings
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.evidence.answer_eval import (
    fill_corpus,
    load_pubmedqa,
    pubmedqa_documents,
    scifact_documents,
)
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.search import KbContext
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.store import open_metadata_store

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def settings_for(scratch: Path) -> Settings:
    return load_settings(BIO_MCP_HOME=str(scratch))


def build(scratch: Path, data: Path) -> dict[str, object]:
    marker = scratch / "built.json"
    if marker.is_file():
        return json.loads(marker.read_text())
    scratch.mkdir(parents=True, exist_ok=True)
    settings = settings_for(scratch)
    items = load_pubmedqa(data / "bench" / "pubmedqa" / "pqal_dev.json")
    documents = pubmedqa_documents(items) + scifact_documents(data / "bench" / "scifact" / "corpus.jsonl")
    store = open_metadata_store(settings)
    started = time.perf_counter()
    try:
        index = CorpusIndex(store, index_folder(settings), build_embeddings(settings))
        last = [0.0]

        def progress(stage: str, done: int, total: int | None) -> None:
            if time.perf_counter() - last[0] > 30 or done == total:
                last[0] = time.perf_counter()
                print(json.dumps({"stage": stage, "done": done, "total": total}), file=sys.stderr, flush=True)

        with store.read() as tx:
            committed = tx.chunks.state_counts(index.model_id).total
        # A killed build resumes: its documents are committed, what is left is embedding them.
        fill_corpus(index, [] if committed else documents, build_graph_indexer(settings),
                    settings.embeddings_batch_size, progress)
        with store.read() as tx:
            chunks = tx.chunks.state_counts(index.model_id)
    finally:
        store.close()
    built = {"documents": len(documents), "pubmedqa": len(items), "chunks": chunks.total,
             "model_id": index.model_id, "build_s": round(time.perf_counter() - started, 1)}
    marker.write_text(json.dumps(built))
    return built


def open_context(scratch: Path) -> KbContext:
    """The built corpus as kb.search reads it, its index rebuilt in memory from the store."""
    settings = settings_for(scratch)
    store = open_metadata_store(settings)
    index = CorpusIndex(store, None, build_embeddings(settings))
    index.reconcile()
    linker = build_graph_indexer(settings).linker
    return KbContext(settings, store, index, ProviderRegistry(settings), linker)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    print(json.dumps(build(args.scratch, args.data)))


if __name__ == "__main__":
    main()
