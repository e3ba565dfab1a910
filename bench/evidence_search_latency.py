"""tool.hybrid_search latency (English and Thai queries) on a corpus of N chunks, as JSON lines.

    PYTHONPATH=src python bench/evidence_search_latency.py --sizes 100000 --scratch /tmp/evidence-latency

The corpus and graph are `kb_search_latency.build`'s (N one-section documents, Zipf vocabulary,
10 MENTIONS per section to 5,000 synthetic entities, hash-provider vectors; a built corpus is reused
from `--scratch`). On top, the 32 real Thai herb names of `--herbs` (the herb table) are written to
kg_names as the Thai names of the 32 most-mentioned synthetic entities, each with that entity's
synthetic name as its English name, so a Thai query is segmented, matched to a herb, expanded to
English and searched exactly as a real one, against hub entities (the worst case for the boost).

Per size it times, after a warm-up (the first Thai query builds the name lexicon and pythainlp's
dictionary): kb.search alone (snippet; the engine hybrid_search goes through), tool.hybrid_search
with English queries (6 words + an entity name) and with Thai queries (a herb name + a Thai word),
P50 / P95 / P99 each, with seed 002's `full` bar (350 ms P95) and the ratio to kb.search in the same
run (on a shared, loaded machine the ratio says more than the milliseconds; the load average is in
every line's params).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import emit
from kb_search_latency import ENTITIES, MENTIONS_PER_SECTION, build
from search_latency import Synthetic

from bio_mcp.features.evidence.hybrid_search import HybridSearchRequest, hybrid_search
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.search import search_kb
from bio_mcp.graph.names import EntityName, write_names

SEED_P95_BAR_MS = 350
THAI_WORDS = ("รักษา", "ป้องกัน", "ลดไข้", "แก้ไอ", "บำรุง")  # treat, prevent, reduce fever, relieve cough, tonic



def timed(run: Callable[[str], object], queries: list[str], warm: int = 10) -> list[float]:
    for query in queries[:warm]:
        run(query)
    samples = []
    for query in queries:
        started = time.perf_counter()
        run(query)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--herbs", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data" / "herbs"
                        / "thai_herb_names.tsv")
    args = parser.parse_args()
    with args.herbs.open(encoding="utf-8") as handle:
        thai_names = list(dict.fromkeys(row["thai_name"] for row in csv.DictReader(handle, delimiter="\t")))
    for size in (int(s) for s in args.sizes.split(",")):
        folder = args.scratch / f"n{size}"
        folder.mkdir(parents=True, exist_ok=True)
        synthetic = Synthetic(seed=7)
        (context, english), timings = build(size, folder, synthetic)
        linker_names = context.linker.names  # type: ignore[union-attr]
        by_id = {entity: name for name, entity in linker_names.items()}
        # build() draws entities with a Zipf law over their index: the first ids are the hubs.
        hubs = sorted(by_id, key=lambda entity: int(entity.removeprefix("mesh:D")))[: len(thai_names)]
        names = [EntityName(entity, "th", thai, "common", "bench") for entity, thai in zip(hubs, thai_names, strict=False)]
        names += [EntityName(entity, "en", by_id[entity], "common", "bench") for entity in hubs]
        with context.store.transaction() as tx:
            write_names(tx.connection, names)
        rng = np.random.default_rng(size)
        thai = [f"{thai_names[int(rng.integers(len(thai_names)))]}{THAI_WORDS[int(rng.integers(len(THAI_WORDS)))]}"
                for _ in range(args.queries)]
        params = {"chunks": size, "mentions_per_section": MENTIONS_PER_SECTION, "entities": ENTITIES, "top_k": 8,
                  "store": "sqlite", "embeddings": "hash"}
        for name, value in timings.items():
            emit(f"evidence_search_build_{name}", value, "s", params)
        runs = {
            "kb_search": lambda q, c=context: search_kb(KbSearchRequest(query=q, top_k=8), c),
            "hybrid_search_en": lambda q, c=context: hybrid_search(HybridSearchRequest(query=q, lang="en", top_k=8), c, None),
            "hybrid_search_th": lambda q, c=context: hybrid_search(HybridSearchRequest(query=q, lang="th", top_k=8), c, None),
        }
        queries = {"kb_search": english[: args.queries], "hybrid_search_en": english[: args.queries],
                   "hybrid_search_th": thai}
        samples = {name: timed(run, queries[name]) for name, run in runs.items()}
        load = round(os.getloadavg()[0], 1)
        for name, values in samples.items():
            for q in (50, 95, 99):
                emit(f"{name}_p{q}_ms", float(np.percentile(values, q)), "ms",
                     params | {"queries": len(values), "seed_p95_bar_ms": SEED_P95_BAR_MS, "load_avg_1m": load})
        for name in ("hybrid_search_en", "hybrid_search_th"):
            for q in (50, 95):
                ratio = float(np.percentile(samples[name], q) / np.percentile(samples["kb_search"], q))
                emit(f"{name}_over_kb_search_p{q}", ratio, "ratio", params | {"load_avg_1m": load})
        context.store.close()


if __name__ == "__main__":
    main()
