"""Herbs the Thai reading names that the user did not ask about, as JSON lines.

    PYTHONPATH=src python bench/thai_herb_hits.py [--show 10]

Every Thai herb name of the shared table (../shared/data/herbs/thai_herb_names.tsv) is asked about
with each of `COMPLAINTS` in `TEMPLATES`, and the query is read as tool.hybrid_search reads it (the
cross-lingual reading, the MeSH linker, `_herb_hits`) over the names a server holds after the
README's steps: the Thai herb names and formulations imported, then the herb catalog (MeSH plants
and Dr. Duke's taxa with their common names). A herb hit is wrong when it is not an entity the asked
herb's Thai name names, or one its own scientific name links to (the MeSH species or family of the
same plant: Andrographis paniculata's species descriptor beside the genus the table names,
Boesenbergia's family Zingiberaceae), counted apart as `thai_herb_hits_of_own_scientific_name`.
Reported twice: with the linker reading `link_text_en` (what the tool does)
and `search_text_en` (the whole search text, herbs' synonyms included: what it did before), so the
figure shows what the synonyms cost. Also: queries whose herb is missing from its own hits.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.features.evidence.hybrid_search import _herb_hits
from bio_mcp.features.kb.language import cross_lingual, load_lexicon, mesh_describer, substance_loanwords
from bio_mcp.graph.herb_catalog import write_herb_catalog
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.graph.kg_import import import_file
from bio_mcp.store import MetadataStore

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
REPO = Path(__file__).resolve().parents[1]
# Common complaints, as people write them (bare, not WordNet's โรค-/อาการ- lemmas).
COMPLAINTS = (
    "ปวดหัว", "ท้องเสีย", "โรคตับ", "เบาหวาน", "ความดันโลหิตสูง", "ไข้หวัด", "ไอ", "ท้องผูก", "นอนไม่หลับ",
    "ปวดข้อ", "โรคหัวใจ", "มะเร็ง", "ไข้", "ปวดท้อง", "คลื่นไส้", "ภูมิแพ้", "หอบหืด", "โรคไต", "อ้วน",
    "ผื่นคัน", "แผล", "ไขมันในเลือดสูง",
)
TEMPLATES = ("{herb}กับ{complaint}", "{herb}รักษา{complaint}ได้ไหม")



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=10, help="wrong hits to print")
    args = parser.parse_args()
    graph = build_graph_indexer(load_settings())
    catalog, linker = graph.catalog, graph.linker
    assert linker is not None
    herbs_file = DATA / "herbs" / "thai_herb_names.tsv"
    with tempfile.TemporaryDirectory() as scratch:
        store = MetadataStore.open(f"sqlite:///{scratch}/kg.db")
        with store.transaction() as tx:
            import_file(tx.connection, herbs_file, catalog)
        with store.transaction() as tx:
            import_file(tx.connection, REPO / "examples" / "kg" / "thai_formulations.tsv", catalog)
        with store.transaction() as tx:
            write_herb_catalog(tx.connection, catalog, DATA / "herbs" / "duke")
        with store.read() as tx:
            lexicon = load_lexicon(tx.connection)
        store.close()
    with herbs_file.open(encoding="utf-8") as handle:
        herbs = sorted({row["thai_name"] for row in csv.DictReader(handle, delimiter="\t")})
    describe, substances = mesh_describer(catalog), substance_loanwords(catalog)
    own_taxa = {
        herb: {mention.entity_id for entity in lexicon.thai.get(herb, ()) for name in lexicon.names[entity]
               if name.kind == "scientific" for mention in linker.link(name.name)}
        for herb in herbs
    }
    queries = [(herb, template.format(herb=herb, complaint=complaint))
               for herb in herbs for complaint in COMPLAINTS for template in TEMPLATES]
    for field in ("link_text_en", "search_text_en"):
        wrong: Counter[tuple[str, str]] = Counter()
        examples: list[dict[str, object]] = []
        missing = wrong_queries = own_rank = 0
        started = time.perf_counter()
        for herb, text in queries:
            query = cross_lingual(text, "th", lexicon, describe, substances)
            linked: dict[str, float] = {}
            for mention in linker.link(getattr(query, field)):
                linked[mention.entity_id] = max(linked.get(mention.entity_id, 0.0), mention.confidence)
            hits = _herb_hits(query, sorted(linked.items()), lexicon, catalog)
            asked = set(lexicon.thai.get(herb, ()))
            stray = [hit for hit in hits if hit.id not in asked and hit.id not in own_taxa[herb]]
            own_rank += sum(hit.id in own_taxa[herb] - asked for hit in hits)
            missing += not asked & {hit.id for hit in hits}
            wrong_queries += bool(stray)
            for hit in stray:
                wrong[(herb, hit.id)] += 1
                if len(examples) < args.show:
                    examples.append({"query": text, "hit": hit.id, "title": hit.title, "score": hit.score})
        elapsed = time.perf_counter() - started
        params = {"linker_reads": field, "queries": len(queries), "herbs": len(herbs), "complaints": len(COMPLAINTS),
                  "load_avg_1m": round(os.getloadavg()[0], 2)}
        emit("thai_wrong_herb_hits", sum(wrong.values()), "hits", **params)
        emit("thai_queries_with_wrong_herb_hits", wrong_queries, "queries", **params)
        emit("thai_herb_hits_of_own_scientific_name", own_rank, "hits", **params)
        emit("thai_queries_missing_their_herb", missing, "queries", **params)
        emit("thai_herb_hits_ms_per_query", round(1000 * elapsed / len(queries), 3), "ms", **params)
        print(json.dumps({"linker_reads": field, "wrong_by_herb": {f"{h} -> {e}": n for (h, e), n in wrong.most_common()},
                          "examples": examples}, ensure_ascii=False))


if __name__ == "__main__":
    main()
