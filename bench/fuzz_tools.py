"""Contract fuzzing at scale: N cases per tool, counts per tool and answer code.

Every tool of every toolset gets `--per-tool` cases from its published input schema (valid ones
from hypothesis-jsonschema, and valid ones with one property broken; `tests.support.contract_fuzz`),
called through the wrapper the server uses against the fake E-utilities and ClinicalTrials.gov,
`--callers` at a time. Prints one JSON line per tool and code (name "fuzz_answers"), one per tool
with the contract breaks (schema-invalid input not answered VALIDATION, UNKNOWN, output outside the
output schema), and the totals. The target is 0 UNKNOWN and 0 breaks.

At NCBI's 10 requests/s, 10,000 calls of a tool that asks E-utilities take hours. `--upstream-cap`
replaces the limiters of this process's clients (E-utilities, CT.gov, the analyst's) with ones at
that many starts per second, for the fakes only: a bench parameter, which the settings cannot do.

    PYTHONPATH=src /work/venv/bin/python bench/fuzz_tools.py --data ../shared/data --per-tool 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from bio_mcp.config import TOOLSETS, load_settings
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import ToolSpec, call_tool
from bio_mcp.sources.ratelimit import LocalRateLimiter
from bio_mcp.testing import run_fakes

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test doubles are in tests/support
from figures import emit

from tests.support.contract_fuzz import FuzzCase, check, fuzz_cases, outcome


def generate(spec: ToolSpec[Any, Any], count: int) -> list[FuzzCase]:
    cases: list[FuzzCase] = []

    @settings(
        max_examples=count, deadline=None, database=None, phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=fuzz_cases(spec.input_schema()))
    def collect(case: FuzzCase) -> None:
        cases.append(case)

    collect()
    return cases


async def run_tool(spec: ToolSpec[Any, Any], cases: list[FuzzCase], callers: int) -> tuple[Counter[str], list[str]]:
    codes: Counter[str] = Counter()
    breaks: list[str] = []
    output_schema = spec.output_schema()
    queue = list(reversed(cases))

    async def caller() -> None:
        while queue:
            case = queue.pop()
            result = await call_tool(spec, case.arguments)
            codes[outcome(result)] += 1
            problem = check(case, result, output_schema)
            if problem is not None:
                breaks.append(f"{json.dumps(case.arguments)[:300]}: {problem}")

    await asyncio.gather(*(caller() for _ in range(callers)))
    return codes, breaks


def raise_upstream_caps(runtime: Runtime, per_s: int) -> None:
    eutils = runtime.eutils
    eutils.limiter = eutils.http.limiter = LocalRateLimiter("ncbi", per_s)
    analyst = runtime.analyst
    for source in list(analyst.limiters):
        analyst.limiters[source] = LocalRateLimiter(source, per_s)
    ctgov = analyst.tools["ctgov.search"].__self__.ctgov
    ctgov.limiter = ctgov.http.limiter = LocalRateLimiter("ctgov", per_s)


async def main(data: Path, per_tool: int, callers: int, only: set[str], upstream_cap: int | None) -> None:
    totals: Counter[str] = Counter()
    total_breaks = 0
    with run_fakes(data) as fakes, tempfile.TemporaryDirectory() as home:
        configured = load_settings(
            NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, CTGOV_BASE_URL=fakes.ctgov_base_url,
            NCBI_API_KEY="fuzz-key", CTGOV_RPS=50, NCBI_MAX_RETRIES=0, NCBI_TIMEOUT_S=60,
            BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_HOME=home,
        )
        async with Runtime(configured) as runtime:
            if upstream_cap:
                raise_upstream_caps(runtime, upstream_cap)
            specs = [spec for toolset in build_toolsets(runtime, list(TOOLSETS)) for spec in toolset.tools]
            for spec in sorted(specs, key=lambda s: s.name):
                if only and spec.name not in only:
                    continue
                cases = generate(spec, per_tool)
                started = time.perf_counter()
                codes, breaks = await run_tool(spec, cases, callers)
                params = {"tool": spec.name, "cases": len(cases), "schema_invalid": sum(not c.schema_valid for c in cases),
                          "seconds": round(time.perf_counter() - started, 1), "upstream_cap": upstream_cap}
                for code, count in sorted(codes.items()):
                    emit("fuzz_answers", count, "calls", code=code, **params)
                emit("fuzz_contract_breaks", len(breaks), "calls", examples=breaks[:3], **params)
                totals.update(codes)
                total_breaks += len(breaks)
    emit("fuzz_unknown_total", totals.get("UNKNOWN", 0), "calls", per_tool=per_tool, calls=sum(totals.values()))
    emit("fuzz_contract_breaks_total", total_breaks, "calls", per_tool=per_tool, calls=sum(totals.values()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--per-tool", type=int, default=10_000)
    parser.add_argument("--callers", type=int, default=20)
    parser.add_argument("--tools", default="", help="Comma-separated tool names (default: every tool)")
    parser.add_argument("--upstream-cap", type=int, help="Starts/s for the fakes instead of NCBI's and CT.gov's limits")
    args = parser.parse_args()
    asyncio.run(main(args.data, args.per_tool, args.callers, {t for t in args.tools.split(",") if t}, args.upstream_cap))
