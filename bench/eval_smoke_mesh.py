"""`tool.eval.run {"set": "smoke"}` on a fresh install (an empty corpus, so the smoke set is built
from the installed MeSH), timed end to end through the Evaluator, as JSON lines: wall and CPU
seconds of the run (the set, the scratch corpus indexed with the configured embeddings, the
queries), the figures, and the load average beside them.

    .venv/bin/python bench/eval_smoke_mesh.py [--max-queries 50] [--mode hybrid|bm25]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.eval_sets import MESH_SMOKE_DOCUMENTS
from bio_mcp.features.evidence.evaluation import EvalRunRequest, Evaluator
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.sources.ncbi.client import EutilsClient


async def run(max_queries: int, mode: str) -> None:
    with tempfile.TemporaryDirectory(prefix="bio-mcp-smoke-") as home:
        settings = load_settings(BIO_MCP_HOME=home)
        eutils = EutilsClient(settings)
        corpus = CorpusService(settings, eutils, embed_in_background=False)
        retrieval = KbRetrieval(corpus)
        try:
            await retrieval.context()  # the server's start (store, index, graph), not the evaluation
            wall, cpu = time.perf_counter(), time.process_time()
            result = await Evaluator(corpus, retrieval).run(
                EvalRunRequest(set="smoke", params={"max_queries": max_queries, "mode": mode}))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            retrieval.close()
            await corpus.aclose()
            await eutils.aclose()
    dataset = result.datasets[0]
    params = {"queries": dataset.queries, "documents": dataset.documents or MESH_SMOKE_DOCUMENTS, "mode": mode,
              "embeddings": settings.embeddings_provider, "load_1m": round(os.getloadavg()[0], 2),
              "source": "MeSH" if "MeSH" in dataset.description else "local corpus"}
    emit("eval_smoke_wall_s", wall, "s", **params)
    emit("eval_smoke_cpu_s", cpu, "s", **params)
    for metric in result.metrics:
        if metric.value is not None:
            emit(f"eval_smoke_{metric.name}", metric.value, "ratio", **params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-queries", type=int, default=50)
    parser.add_argument("--mode", choices=("hybrid", "bm25"), default="hybrid")
    args = parser.parse_args()
    asyncio.run(run(args.max_queries, args.mode))


if __name__ == "__main__":
    main()
