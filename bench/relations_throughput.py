"""Relation extraction cost beside entity linking, on one core, after both are loaded.

    PYTHONPATH=src python bench/relations_throughput.py [--data ../shared/data] [--repeat 3]

Two texts sets: the 466 real PubMed records, chunked as a sync chunks them (most name no plant:
the cost a general sync pays), and PPR's 100 dev abstracts (every one about a medicinal plant: the
worst case). For each: the chunks (or abstracts) linked per second, the linked ones run through
the extractors per second, and what extraction adds to linking. Prints JSON lines.
"""

from __future__ import annotations

import argparse
import gzip
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.eval.ppr import read_ppr
from bio_mcp.features.corpus.records import corpus_document
from bio_mcp.graph.indexer import GraphIndexer, build_graph_indexer
from bio_mcp.sources.ncbi.parsers import parse_efetch


def measure(graph: GraphIndexer, texts: Sequence[str], repeat: int, label: str) -> None:
    mentions = [graph.link_text(text) for text in texts]
    started = time.perf_counter()
    for _ in range(repeat):
        for text in texts:
            graph.link_text(text)
    linked = time.perf_counter() - started
    started = time.perf_counter()
    relations = 0
    for _ in range(repeat):
        relations = sum(len(graph.extract_text(text, found)) for text, found in zip(texts, mentions))
    extracted = time.perf_counter() - started
    params = {"texts": label, "count": len(texts), "repeat": repeat, "relations": relations}
    emit("link_texts_per_s", len(texts) * repeat / linked, "texts/s", **params)
    emit("extract_texts_per_s", len(texts) * repeat / extracted, "texts/s", **params)
    emit("extract_over_link", extracted / linked, "ratio", **params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("..") / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    started = time.perf_counter()
    graph = build_graph_indexer(load_settings())
    emit("graph_indexer_load_s", time.perf_counter() - started, "s", extractors=len(graph.extractors))
    with gzip.open(args.data / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        articles = parse_efetch(handle.read())
    chunks = [chunk.text for article in articles for chunk in corpus_document(article, date(2025, 1, 15)).chunks]
    measure(graph, chunks, args.repeat, "pubmed_real_records_chunks")
    abstracts = [document.text for document in read_ppr(args.data / "bench" / "ppr" / "PPR_dev_corpus.txt")]
    measure(graph, abstracts, args.repeat, "ppr_dev_abstracts")


if __name__ == "__main__":
    main()
