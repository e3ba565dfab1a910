"""End-to-end latency of `analyst.ask` for the three demo questions, cold and warm, as JSON lines.

    .venv/bin/python bench/analyst_latency.py [--data ../shared/data] [--runs 10] [--latency-ms 300]

The fake E-utilities and ClinicalTrials.gov run in-process (`run_fakes`) over the real recorded
records, each request delayed by --latency-ms, with their rate limits enforced (NCBI without a key:
3/s; CT.gov: 2/s) so a client that overran them would see 429s, which are counted. The analyst is
built as the server builds it (SQLite store and filesystem blobs in BIO_MCP_HOME, MeSH, default
rate settings). Cold: every run and question gets a fresh BIO_MCP_HOME. Warm: the same question
again in that home. Each run builds its own analyst, whose rate limiters start empty, so runs are
spaced by one rate window (untimed): back to back, one run's requests would count against the
next's window at the fake and end in 429s no single server process would cause. Questions are the
ones tests/analyst/test_ask_end_to_end.py explains.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

import anyio
from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.features.analyst.ask import orchestrate
from bio_mcp.features.analyst.indications import load_mesh_index
from bio_mcp.features.analyst.models import AskRequest
from bio_mcp.features.analyst.service import build_analyst
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import RunningFakes, run_fakes

QUESTIONS = {
    "indication_phase_trials": ("active phase 2/3 trials in non-small cell lung cancer", date(2026, 8, 11)),
    "recent_pubs_by_topic": ("recent publications on GLP-1 and type 2 diabetes", date(2018, 7, 1)),
    "trials_with_pubs": (
        "Phase 3 Phelan-McDermid syndrome trials that are recruiting and their publications", date(2026, 8, 11)
    ),
}
NCBI_RPS_WITHOUT_KEY = 3
CTGOV_RPS = 2
RATE_WINDOW_S = 1.0



def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def one_run(fakes: RunningFakes, mesh_path: Path, question: str, today: date, warm_repeats: int) -> tuple[float, list[float], bool]:
    """Cold seconds, warm seconds, and whether every warm answer came wholly from the cache."""
    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(
            BIO_MCP_HOME=home, NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, CTGOV_BASE_URL=fakes.ctgov_base_url,
            BIO_MCP_MESH_PATH=str(mesh_path),
        )
        eutils = EutilsClient(settings)
        analyst = build_analyst(settings, eutils)
        try:
            request = AskRequest(question=question)
            started = time.perf_counter()
            cold = await orchestrate(request, analyst, today=today)
            cold_s = time.perf_counter() - started
            if cold.trace.partial:
                raise RuntimeError(f"cold answer was partial: {cold.trace.notes}")
            warm_s: list[float] = []
            all_hits = True
            for _ in range(warm_repeats):
                started = time.perf_counter()
                warm = await orchestrate(request, analyst, today=today)
                warm_s.append(time.perf_counter() - started)
                all_hits = all_hits and all(step.cache_hit for step in warm.trace.steps)
            return cold_s, warm_s, all_hits
        finally:
            await analyst.aclose()
            await eutils.aclose()


async def bench(fakes: RunningFakes, mesh_path: Path, runs: int, warm_repeats: int, latency_ms: int) -> None:
    fakes.eutils.latency_s = fakes.ctgov.latency_s = latency_ms / 1000
    fakes.eutils.limit_rate(per_second=NCBI_RPS_WITHOUT_KEY, enforce=True)
    fakes.ctgov.limit_rate(per_second=CTGOV_RPS, enforce=True)
    all_cold: list[float] = []
    all_warm: list[float] = []
    for intent, (question, today) in QUESTIONS.items():
        cold: list[float] = []
        warm: list[float] = []
        hits = True
        for _ in range(runs):
            await anyio.sleep(RATE_WINDOW_S)
            cold_s, warm_s, all_hits = await one_run(fakes, mesh_path, question, today, warm_repeats)
            cold.append(cold_s)
            warm.extend(warm_s)
            hits = hits and all_hits
        params = {"intent": intent, "runs": runs, "upstream_latency_ms": latency_ms}
        for label, values in (("cold", cold), ("warm", warm)):
            emit(f"analyst_{label}_p50", statistics.median(values) * 1000, "ms", params)
            emit(f"analyst_{label}_p95", percentile(values, 0.95) * 1000, "ms", params)
        emit("analyst_warm_all_cache_hits", float(hits), "bool", params)
        all_cold += cold
        all_warm += warm
    params = {"intents": len(QUESTIONS), "runs": runs, "upstream_latency_ms": latency_ms}
    emit("analyst_cold_p50", statistics.median(all_cold) * 1000, "ms", params)
    emit("analyst_cold_p95", percentile(all_cold, 0.95) * 1000, "ms", params)
    emit("analyst_warm_p50", statistics.median(all_warm) * 1000, "ms", params)
    emit("analyst_warm_p95", percentile(all_warm, 0.95) * 1000, "ms", params)
    for source, fake, limit in (("ncbi", fakes.eutils, NCBI_RPS_WITHOUT_KEY), ("ctgov", fakes.ctgov, CTGOV_RPS)):
        rejected = [arrival for arrival in fake.requests if arrival.status == 429]
        emit("upstream_429_responses", float(len(rejected)), "count",
             params | {"source": source, "requests": len(fake.requests), "enforced_rps": limit})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warm-repeats", type=int, default=5)
    parser.add_argument("--latency-ms", type=int, default=300)
    args = parser.parse_args()
    mesh_path = args.data / "mesh" / "mesh_descriptors_2024.jsonl"
    load_mesh_index(mesh_path)  # loaded once per process, as in the server: not part of a question
    with run_fakes(args.data) as fakes:
        anyio.run(bench, fakes, mesh_path, args.runs, args.warm_repeats, args.latency_ms)


if __name__ == "__main__":
    main()
