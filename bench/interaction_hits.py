"""Interactions (INTERACTS_WITH) the sentence rules state on the shared corpora, to be read by hand:
there is no annotated interaction corpus here, so precision is judged by reading every hit
(`--show` prints them with their sentences). JSON lines, one per corpus: how many relations, and
how many of them have a plant as the source (the herb-drug ones).

    PYTHONPATH=src python bench/interaction_hits.py [--data ../shared/data] [--show]

Corpora: PPR train and dev (medicinal plants), BC5CDR's training file (its development abstracts
among them), PubMedQA's labelled questions and the 466 shared PubMed records, linked with the MeSH linker (no training file) as the sync links them
without BIO_MCP_LINKER_TRAINING. Measured 2026-11-28 on 2,466 documents: 10 relations, all
in BC5CDR, all right on reading; 1 herb-drug (cranberry and warfarin, 19058474), 9 drug-drug.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from figures import emit

from bio_mcp.eval.ppr import read_ppr
from bio_mcp.eval.pubmedqa import load_pubmedqa
from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.graph.indexer import load_catalog
from bio_mcp.graph.interactions import InteractionExtractor, ancestors_of, is_plant
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch


def corpora(data: Path) -> Iterator[tuple[str, str, str]]:
    """(corpus, document key, text) of every document."""
    for split in ("train", "dev"):
        documents = read_ppr(data / "bench" / "ppr" / f"PPR_{split}_corpus.txt")
        yield from ((f"ppr_{split}", document.pmid, document.text) for document in documents)
    for document in read_pubtator(data / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt"):
        yield "bc5cdr_train", document.pmid, document.text
    items = load_pubmedqa(data / "bench" / "pubmedqa" / "pqal_dev.json")
    yield from (("pubmedqa_dev", item.pmid, " ".join(section.text for section in item.contexts)) for item in items)
    with gzip.open(data / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        yield from (("pubmed_records", a.pmid, f"{a.title} {a.abstract_text}") for a in parse_efetch(handle.read()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--show", action="store_true", help="print every relation with its sentence (stderr)")
    args = parser.parse_args()
    mesh = args.data / "mesh" / "mesh_descriptors_2024.jsonl"
    cache = Path(tempfile.gettempdir()) / "bio-mcp-bench-cache"
    catalog = load_catalog(mesh, cache)
    linker = load_linker_from(mesh, None, cache)
    extractor = InteractionExtractor(catalog.broader, catalog.pharm_actions)
    ancestors = ancestors_of(catalog.broader)
    counts: dict[str, list[int]] = {}
    for corpus, key, text in corpora(args.data):
        found = extractor.relations(text, linker.link(text))
        tally = counts.setdefault(corpus, [0, 0, 0])
        tally[0] += 1
        tally[1] += len(found)
        tally[2] += sum(is_plant(r.src, ancestors) for r in found)
        if args.show:
            for r in found:
                print(f"{corpus}:{key}\t{r.src} -> {r.dst}\t{text[r.start:r.end]}", file=sys.stderr)
    for corpus, (documents, relations, herb_drug) in counts.items():
        params = {"corpus": corpus, "documents": documents, "linker": "mesh-dictionary"}
        emit("interaction_relations", relations, "relations", params)
        emit("herb_drug_relations", herb_drug, "relations", params)


if __name__ == "__main__":
    main()
