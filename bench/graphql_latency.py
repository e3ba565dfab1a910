"""GraphQL latency beside the MCP tool's for the same calls (seed 003's read surfaces), as JSON lines.

    PYTHONPATH=src:. python bench/graphql_latency.py --data ../shared/data --calls 40

Builds the evidence corpus of the read-surface tests (tests/server/evidence_server.py): the Thai herb
tables and Dr. Duke's constituents imported, the semaglutide records synced from the fake
E-utilities, served by a real `bio-mcp serve --transport http` process. Then, per surface, it
alternates the same call `--calls` times over MCP (the SDK's client on one Streamable HTTP session)
and over GraphQL (httpx2 POSTs to /graphql asking for the whole answer, as the contract tests do),
after `--warm` warm-up calls of each, and prints the client-side P50 / P95 of each and their P50
ratio (GraphQL / MCP). Both go through the same `call_tool` (or resource read) in the same server,
so the ratio is the price of the transport and its serialisation. The load average is in the params.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from figures import emit

from bio_mcp.testing import run_fakes
from tests.server.evidence_server import SEMAGLUTIDE, EvidenceServer, evidence_server
from tests.server.graphql_client import INTROSPECT, schema_types, whole_answer

# surface: (MCP tool, or resource URI with {}, GraphQL root field, arguments)
CALLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "hybridSearch": ("tool_hybrid_search", "hybridSearch", {"query": "semaglutide body weight", "top_k": 5}),
    "ragAnswer": ("tool_rag_answer", "ragAnswer", {"question": "Does semaglutide reduce body weight?"}),
    "queryKg": ("tool_query_kg", "queryKg", {"start": {"type": "herb", "id": "garlic"}, "max_depth": 2, "max_paths": 10}),
    "findContraindications": ("tool_find_contraindications", "findContraindications", {"herb_ids": ["garlic"]}),
    "traverse": ("graph_traverse", "traverse", {"seed_ids": [f"pmid:{SEMAGLUTIDE}"], "max_depth": 2, "max_nodes": 50}),
    "herb": ("kg://herb/{id}", "herb", {"id": "garlic"}),
    "paper": ("paper://pmid/{pmid}", "paper", {"pmid": SEMAGLUTIDE}),
}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def timed(call: Callable[[], Awaitable[None]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def measure(server: EvidenceServer, calls: int, warm: int) -> None:
    token = server.token()
    headers = {"Authorization": f"Bearer {token}"}
    async with server.mcp() as client, httpx2.AsyncClient(timeout=120, headers=headers) as http:
        types = schema_types((await http.post(server.base + "/graphql", json={"query": INTROSPECT})).json())
        for surface, (target, field, arguments) in CALLS.items():
            query = whole_answer(types, field, arguments)

            async def over_mcp(target: str = target, arguments: dict[str, Any] = arguments) -> None:
                if "://" in target:
                    await client.read_resource(target.format(**arguments))
                else:
                    result = await client.call_tool(target, arguments)
                    assert not result.is_error, result.content

            async def over_graphql(query: str = query) -> None:
                response = await http.post(server.base + "/graphql", json={"query": query})
                assert response.status_code == 200 and "errors" not in response.json(), response.text

            for _ in range(warm):
                await over_mcp()
                await over_graphql()
            mcp_ms: list[float] = []
            graphql_ms: list[float] = []
            for _ in range(calls):
                mcp_ms.append(await timed(over_mcp))
                graphql_ms.append(await timed(over_graphql))
            params = {"surface": surface, "calls": calls, "warm": warm, "loadavg_1m": round(os.getloadavg()[0], 2),
                      "transport": "http"}
            for name, values in (("mcp", mcp_ms), ("graphql", graphql_ms)):
                emit(f"read_surface_{name}_p50", percentile(values, 0.5), "ms", params)
                emit(f"read_surface_{name}_p95", percentile(values, 0.95), "ms", params)
            emit("read_surface_graphql_over_mcp_p50", statistics.median(graphql_ms) / statistics.median(mcp_ms),
                 "ratio", params)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--warm", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("BIO_MCP_CACHE_DIR", tempfile.mkdtemp(prefix="bio-mcp-bench-cache-"))
    with run_fakes(args.data) as fakes, tempfile.TemporaryDirectory() as home:
        for server in evidence_server(fakes, Path(home)):
            anyio.run(measure, server, args.calls, args.warm)


if __name__ == "__main__":
    main()
