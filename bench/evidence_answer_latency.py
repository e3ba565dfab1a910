"""tool.rag_answer and tool.hybrid_search latency (P50 / P95), beside kb.search's, as JSON lines.

    PYTHONPATH=src python bench/evidence_answer_latency.py --scratch /work/cache/answers/pubmedqa-corpus [--queries 100] [--chunks 100000]

Runs on the PubMedQA + SciFact corpus of `answer_corpus.py` (real abstracts, the shipped ONNX
embedder, the real MeSH linker and graph; `--chunks` grows it with copies of the SciFact documents):
the feature function as the tool calls it (the question's rewrite, retrieval through kb.search,
chunk reads, sentence embedding, MMR, span verification, answer_conf). Questions are PubMedQA's dev half (items 251 on),
after 5 untimed warm-up calls. Per question, in the same run: rag_answer, kb.search alone (top 5),
tool.hybrid_search with the question (English), and tool.hybrid_search with a Thai query (one of the
Thai herb names of `examples/kg/thai_herb_names.tsv`, imported into the graph as `bio-mcp kg import`
does, and a Thai word), so the ratios say what each adds on a loaded machine. Each call's process
CPU time is kept beside its wall time (the CPU time is what the call itself cost, whatever else the
machine ran); the load average is in every line's params.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_corpus import DATA, build, open_context
from evidence_search_latency import THAI_WORDS
from figures import emit

from bio_mcp.eval.pubmedqa import load_pubmedqa
from bio_mcp.features.evidence.answer import AnswerContext, rag_answer
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.evidence.hybrid_search import HybridSearchRequest, hybrid_search
from bio_mcp.features.evidence.language import CrossLingualRewriter
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.search import KbContext, search_kb
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.graph.kg_import import import_file
from bio_mcp.graph.names import all_names

BAR_P95_MS = 350
WARM_UP = 5
HERB_NAMES = Path(__file__).resolve().parents[1] / "examples" / "kg" / "thai_herb_names.tsv"



def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def thai_queries(kb: KbContext, catalog: MeshCatalog, count: int) -> list[str]:
    """`count` Thai queries (a herb's Thai name and a Thai word) once the herb table is imported."""
    with kb.store.transaction() as tx:
        import_file(tx.connection, HERB_NAMES, catalog)
    with kb.store.read() as tx:
        names = sorted({name.name for name in all_names(tx.connection) if name.lang == "th"})
    rng = np.random.default_rng(9)
    return [f"{names[int(rng.integers(len(names)))]}{THAI_WORDS[int(rng.integers(len(THAI_WORDS)))]}"
            for _ in range(count)]


def timed(call: Callable[[], object], wall: list[float], cpu: list[float]) -> None:
    started, started_cpu = time.perf_counter(), time.process_time()
    call()
    wall.append((time.perf_counter() - started) * 1000)
    cpu.append((time.process_time() - started_cpu) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--chunks", type=int, help="build the corpus with copies up to this many chunks")
    args = parser.parse_args()
    built = build(args.scratch, args.data, args.chunks)
    kb = open_context(args.scratch)
    catalog = build_graph_indexer(kb.settings).catalog
    # The question rewritten as the tool's AnswerService does (Thai names to English ones).
    context = AnswerContext(kb, kb.settings.answer_conf_tau, rewriter=CrossLingualRewriter(kb.store, catalog))
    questions = [item.question for item in load_pubmedqa(args.data / "bench" / "pubmedqa" / "pqal_dev.json")[250:]]
    questions = questions[: args.queries + WARM_UP]
    thai = thai_queries(kb, catalog, len(questions))
    loop = asyncio.new_event_loop()
    runs: dict[str, Callable[[int], object]] = {
        "rag_answer": lambda n: loop.run_until_complete(rag_answer(RagAnswerRequest(question=questions[n]), context)),
        "kb_search": lambda n: search_kb(KbSearchRequest(query=questions[n], top_k=5), kb),
        "hybrid_search_en": lambda n: hybrid_search(HybridSearchRequest(query=questions[n], lang="en", top_k=5), kb,
                                                    catalog),
        "hybrid_search_th": lambda n: hybrid_search(HybridSearchRequest(query=thai[n], lang="th", top_k=5), kb,
                                                    catalog),
    }
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for number in range(len(questions)):
        for name, run in runs.items():
            if number < WARM_UP:
                run(number)
            else:
                timed(lambda r=run, n=number: r(n), wall[name], cpu[name])  # type: ignore[misc]
    loop.close()
    kb.store.close()
    params = {"chunks": built["chunks"], "documents": built["documents"],
              "distinct_documents": built.get("distinct_documents", built["documents"]), "model_id": built["model_id"],
              "queries": len(wall["rag_answer"]), "top_k": 5, "store": "sqlite",
              "load_avg_1m": round(os.getloadavg()[0], 2)}
    for name in runs:
        bar = {"seed_p95_bar_ms": BAR_P95_MS} if name != "kb_search" else {}
        emit(f"{name}_p50_ms", percentile(wall[name], 0.5), "ms", params)
        emit(f"{name}_p95_ms", percentile(wall[name], 0.95), "ms", {**params, **bar})
        emit(f"{name}_cpu_p50_ms", percentile(cpu[name], 0.5), "ms", params)
        emit(f"{name}_cpu_p95_ms", percentile(cpu[name], 0.95), "ms", params)
    for name in ("rag_answer", "hybrid_search_en", "hybrid_search_th"):
        emit(f"{name}_over_kb_search_p95", percentile(wall[name], 0.95) / percentile(wall["kb_search"], 0.95), "ratio",
             params)


if __name__ == "__main__":
    main()
