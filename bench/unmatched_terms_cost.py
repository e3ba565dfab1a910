"""What `unmatched_terms` costs a search (`graph.unmatched_terms`): the query's terms, then which of them the
returned documents name, over real PubMed abstracts. JSON lines.

    PYTHONPATH=src python bench/unmatched_terms_cost.py [--documents 20] [--repeat 20]

The documents are the first `--documents` records of ../shared/data/pubmed/pubmed_real_records.xml.gz
with an abstract (title and abstract, as rag.search and kb.search check them); the linker and the
MeSH catalog are the settings' own (`build_graph_indexer`), loaded once before timing. A term no
document names by its forms sends every document through the linker (plurals, abbreviations), so
a query naming an absent drug is the costly case; one whose terms all appear is the cheap one.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import time
from pathlib import Path

from figures import emit
from lxml import etree

from bio_mcp.config import load_settings
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.graph.unmatched_terms import catalog_names, query_terms, unmatched_terms

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
QUERIES = (
    "Is metformin associated with lower cancer risk?",  # metformin: in no record
    "garlic and warfarin interaction",  # neither herb nor drug in any record
    "peroxisome proliferator liver tumor",  # every term in the records
)


def abstracts(path: Path, count: int) -> list[str]:
    with gzip.open(path) as handle:
        root = etree.parse(handle).getroot()
    texts = []
    for article in root.iter("PubmedArticle"):
        title = "".join(article.findtext(".//ArticleTitle") or "")
        abstract = " ".join("".join(node.itertext()) for node in article.iter("AbstractText"))
        if abstract:
            texts.append(f"{title}\n{abstract}")
        if len(texts) == count:
            break
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20, help="returned documents checked per search")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--records", type=Path, default=DATA / "pubmed" / "pubmed_real_records.xml.gz")
    args = parser.parse_args()
    graph = build_graph_indexer(load_settings())
    names = catalog_names(graph.catalog)
    texts = abstracts(args.records, args.documents)
    chars = round(statistics.mean(len(text) for text in texts))
    for query in QUERIES:
        timings = []
        unmatched: list[str] = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            terms = query_terms(query, graph.linker, names=names)
            unmatched = unmatched_terms(terms, texts, graph.linker)
            timings.append((time.perf_counter() - started) * 1000)
        params = {"query": query, "documents": len(texts), "mean_chars": chars, "repeat": args.repeat,
                  "unmatched": unmatched}
        emit("unmatched_terms_ms_p50", statistics.median(timings), "ms", params)


if __name__ == "__main__":
    main()
