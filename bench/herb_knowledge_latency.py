"""Herb knowledge: import and catalog build times, then kg://herb, tool.query_kg and
tool.find_contraindications latency, as JSON lines.

    .venv/bin/python bench/herb_knowledge_latency.py [--data ../shared/data] [--runs 5]

The workload is real: the two Thai tables (examples/kg), the herb catalog (1,222 MeSH plants and
Dr. Duke's 2,376 taxa, with Dr. Duke's constituent table: 82,347 HAS_CONSTITUENT edges; kg://herb
also reads Dr. Duke's traditional uses), and relations from the PPR training abstracts turned into an import file:
each Increase/Decrease relation whose plant is a herb of the graph by an exact name and whose
phenotype is a MeSH disease by exact name or entry term (a plant decreasing a disease: indication;
increasing one: adverse_effect), with the PPR sentence and its PMID. That exact-match mapping only
builds the workload (it is not a relation extractor); the count it keeps is printed. Latencies are
measured through the feature functions on one SQLite store, every herb with relations in turn.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from figures import emit

from bio_mcp.eval.ppr import read_ppr
from bio_mcp.features.evidence.contraindications import FindContraindicationsRequest, find_contraindications
from bio_mcp.features.evidence.herbs import herb_record
from bio_mcp.features.evidence.query_kg import QueryKgRequest, query_kg
from bio_mcp.graph.duke_farmacy import traditional_uses
from bio_mcp.graph.herb_catalog import duke_activities, write_herb_catalog
from bio_mcp.graph.icd10 import read_do_xrefs
from bio_mcp.graph.indexer import load_catalog
from bio_mcp.graph.kg_import import import_file
from bio_mcp.graph.names import all_names
from bio_mcp.store import MetadataStore

REPO = Path(__file__).resolve().parents[1]



def ppr_relations(data: Path, herb_of: dict[str, str], vocabulary) -> list[str]:
    """Import lines (TSV) for the PPR train relations whose plant and phenotype match exactly."""
    # Phenotype text -> its MeSH search (a fuzzy search is slow; the same phenotypes recur).
    found: dict[str, list] = {}
    lines: list[str] = []
    for document in read_ppr(data / "bench" / "ppr" / "PPR_train_corpus.txt"):
        for sentence in document.sentences:
            for relation in sentence.relations:
                if relation.kind not in ("Increase", "Decrease") or relation.phenotype.type != "Negative_phenotype":
                    continue
                herb = herb_of.get(" ".join(relation.plant.text.casefold().split()))
                if herb is None:
                    continue
                phenotype = relation.phenotype.text
                if phenotype not in found:
                    found[phenotype] = vocabulary.search(phenotype, limit=1)
                hits = found[phenotype]
                if not hits or hits[0].how not in ("name", "synonym") or hits[0].concept.type != "Disease":
                    continue
                kind = "indication" if relation.kind == "Decrease" else "adverse_effect"
                lines.append("\t".join([herb, kind, hits[0].concept.id, sentence.text, f"pmid:{document.pmid}", ""]))
    return lines


def timed(work) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return (time.perf_counter() - started) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    data: Path = args.data
    farmacy = data / "herbs" / "duke_farmacy"
    with tempfile.TemporaryDirectory() as home:
        catalog = load_catalog(data / "mesh" / "mesh_descriptors_2024.jsonl", Path(home))
        store = MetadataStore(f"sqlite:///{home}/bench.db")
        store.create_schema()
        for name in ("thai_herb_names.tsv", "thai_formulations.tsv"):
            with store.transaction() as tx:
                ms, _ = timed(lambda: import_file(tx.connection, REPO / "examples" / "kg" / name, catalog))  # noqa: B023
            emit("kg_import_ms", ms, "ms", file=name)
        with store.transaction() as tx:
            ms, report = timed(lambda: write_herb_catalog(tx.connection, catalog, data / "herbs" / "duke", farmacy))
        emit("kg_herbs_ms", ms, "ms", **report.__dict__)  # type: ignore[attr-defined]
        with store.read() as tx:
            herb_of = {" ".join(n.name.casefold().split()): n.entity_id for n in all_names(tx.connection)
                       if n.lang in ("en", "la") and not n.entity_id.startswith("formulation:")}
        lines = ppr_relations(data, herb_of, catalog.vocabulary)
        relations = Path(home) / "ppr_relations.tsv"
        relations.write_text("subject\trelation\tobject\tevidence\tsource\tpart\n" + "\n".join(lines) + "\n", encoding="utf-8")
        with store.transaction() as tx:
            ms, imported = timed(lambda: import_file(tx.connection, relations, catalog))
        emit("kg_import_ms", ms, "ms", file="ppr_relations.tsv", lines=len(lines), **imported.to_json()["lines"])  # type: ignore[attr-defined]
        icd10 = read_do_xrefs(data / "ontology" / "do_xrefs.tsv")
        activities = duke_activities(data / "herbs" / "duke")
        herbs = sorted({line.split("\t")[0] for line in lines})
        timings: dict[str, list[float]] = {"herb_resource_ms": [], "query_kg_ms": [], "find_contraindications_ms": []}
        paths = 0
        with store.read() as tx:
            connection = tx.connection
            for _ in range(args.runs):
                for herb in herbs:
                    request = QueryKgRequest.model_validate({"start": {"type": "herb", "id": herb}})
                    check = FindContraindicationsRequest(herb_ids=[herb])
                    timings["herb_resource_ms"].append(timed(
                        lambda h=herb: herb_record(connection, h, icd10, activities, catalog.vocabulary,
                                                   lambda taxa: traditional_uses(farmacy, taxa, catalog.vocabulary)))[0])
                    ms, result = timed(lambda r=request: query_kg(connection, r, icd10, catalog.vocabulary))
                    timings["query_kg_ms"].append(ms)
                    paths += len(result.paths)  # type: ignore[attr-defined]
                    timings["find_contraindications_ms"].append(
                        timed(lambda c=check: find_contraindications(connection, c, catalog.vocabulary))[0])
        for name, values in timings.items():
            ordered = sorted(values)
            emit(name, statistics.median(ordered), "ms", stat="p50", herbs=len(herbs), runs=args.runs)
            emit(name, ordered[int(0.95 * (len(ordered) - 1))], "ms", stat="p95", herbs=len(herbs), runs=args.runs)
        emit("query_kg_paths_per_herb", paths / max(1, len(herbs) * args.runs), "paths", herbs=len(herbs))


if __name__ == "__main__":
    main()
