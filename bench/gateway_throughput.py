"""Gateway throughput at NCBI's keyed limit: 50 concurrent callers through the real tool path.

Starts the fake E-utilities server, sets an API key (limit 10 requests/s), runs `--calls` tool
calls from `--callers` concurrent callers through the MCP server in-process, and reads the fake's
arrival log. Prints JSON lines: achieved request rate, its share of the limit, the busiest
one-second window, and the share of whole seconds that ran at the limit.

    .venv/bin/python bench/gateway_throughput.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import anyio
from figures import emit
from mcp import Client

from bio_mcp.config import load_settings
from bio_mcp.server.app import build_server
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.testing import run_fakes

LIMIT = 10



async def drive(base_url: str, home: str, callers: int, calls: int) -> list[str]:
    settings = load_settings(NCBI_EUTILS_BASE_URL=base_url, NCBI_API_KEY="bench-key", BIO_MCP_HOME=home,
                             NCBI_TIMEOUT_S=120, BIO_MCP_TOOLSETS="pubmed")
    outcomes: list[str] = []
    queue = list(range(calls))
    async with Runtime(settings) as runtime, Client(build_server(build_toolsets(runtime))) as client:

        async def caller() -> None:
            while queue:
                queue.pop()
                result = await client.call_tool("searchPubMedArticles", {"queryTerm": "asthma"})
                outcomes.append("ok" if not result.is_error else result.meta["error"]["code"])

        async with anyio.create_task_group() as tg:
            for _ in range(callers):
                tg.start_soon(caller)
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--callers", type=int, default=50)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with run_fakes(args.data) as fakes, tempfile.TemporaryDirectory() as home:
        fakes.eutils.limit_rate(enforce=False)
        outcomes = anyio.run(drive, fakes.eutils_base_url, home, args.callers, args.calls)
        arrivals = sorted(a.monotonic for a in fakes.eutils.requests)
        busiest = fakes.eutils.faults.log.busiest_window(1.0)
        violations = sum(a.rate_limited for a in fakes.eutils.requests)
    span = arrivals[-1] - arrivals[0]
    rate = (len(arrivals) - 1) / span
    start = arrivals[0]
    whole_seconds = math.floor(span)
    per_second = [sum(1 for t in arrivals if start + s <= t < start + s + 1) for s in range(whole_seconds)]
    params = {"limit_per_s": LIMIT, "callers": args.callers, "calls": args.calls}
    emit("gateway_request_rate", rate, "requests/s", **params)
    emit("gateway_share_of_limit", rate / LIMIT, "ratio", **params)
    emit("gateway_busiest_1s_window", busiest, "requests", **params)
    emit("gateway_seconds_at_limit_share", sum(n >= LIMIT for n in per_second) / max(len(per_second), 1), "ratio",
         **params)
    emit("gateway_limit_violations", violations, "requests", **params)
    emit("gateway_calls_ok", outcomes.count("ok") / len(outcomes), "ratio", **params)


if __name__ == "__main__":
    main()
