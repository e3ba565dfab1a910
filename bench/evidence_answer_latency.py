"""tool.rag_answer latency (P50 / P95), beside kb.search's on the same questions, as JSON lines.

    PYTHONPATH=src python bench/evidence_answer_latency.py --scratch /work/cache/answers/pubmedqa-corpus [--queries 100]

Runs on the PubMedQA + SciFact corpus of `answer_corpus.py` (real abstracts, the shipped ONNX
embedder, the real MeSH linker and graph): the feature function as the tool calls it (retrieval
through kb.search, chunk reads, sentence embedding, MMR, span verification, answer_conf). Questions
are PubMedQA's dev half (items 251 on), after 5 untimed warm-up calls. kb.search alone (top 5) is
timed on the same questions in the same run, so the ratio says what the answer adds on a loaded
machine; the load average is in every line's params.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_corpus import DATA, build, open_context

from bio_mcp.features.evidence.answer import AnswerContext, rag_answer
from bio_mcp.features.evidence.answer_eval import load_pubmedqa
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.search import search_kb

BAR_P95_MS = 350
WARM_UP = 5


def emit(name: str, value: float, unit: str, params: dict[str, object]) -> None:
    print(json.dumps({"name": name, "value": round(value, 2), "unit": unit, "params": params}), flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    built = build(args.scratch, args.data)
    kb = open_context(args.scratch)
    context = AnswerContext(kb, kb.settings.answer_conf_tau)
    questions = [item.question for item in load_pubmedqa(args.data / "bench" / "pubmedqa" / "pqal_dev.json")[250:]]
    questions = questions[: args.queries + WARM_UP]
    answer_ms: list[float] = []
    search_ms: list[float] = []
    for number, question in enumerate(questions):
        started = time.perf_counter()
        await rag_answer(RagAnswerRequest(question=question), context)
        middle = time.perf_counter()
        search_kb(KbSearchRequest(query=question, top_k=5), kb)
        ended = time.perf_counter()
        if number >= WARM_UP:
            answer_ms.append((middle - started) * 1000)
            search_ms.append((ended - middle) * 1000)
    kb.store.close()
    params = {"chunks": built["chunks"], "documents": built["documents"], "model_id": built["model_id"],
              "queries": len(answer_ms), "top_k": 5, "store": "sqlite", "load_avg_1m": round(os.getloadavg()[0], 2)}
    for name, values in (("rag_answer", answer_ms), ("kb_search", search_ms)):
        emit(f"{name}_p50_ms", percentile(values, 0.5), "ms", params)
        emit(f"{name}_p95_ms", percentile(values, 0.95), "ms", {**params, "seed_p95_bar_ms": BAR_P95_MS}
             if name == "rag_answer" else params)
    emit("rag_answer_over_kb_search_p95", percentile(answer_ms, 0.95) / percentile(search_ms, 0.95), "ratio", params)


if __name__ == "__main__":
    asyncio.run(main())
