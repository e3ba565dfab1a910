"""What `bio-mcp serve` costs a user's machine: time to its first answers and memory once warm.

    python bench/serve_footprint.py                   # every toolset, an empty corpus, a fresh home
    python bench/serve_footprint.py --toolsets pubmed
    python bench/serve_footprint.py --runs 3          # each run a fresh server on a fresh home

Starts the real server over stdio (the SDK's client, as Claude Desktop starts it) on a fresh
BIO_MCP_HOME with the fake E-utilities and ClinicalTrials.gov over the shared real records, and
measures from the spawn: the `initialize` answer, the first `tools/list`, the first PubMed search
(`searchPubMedArticles`, through the fake: it needs no warm-up), the first answer of a corpus tool
(`corpus_checkpoint_get`: the store), the first corpus search (`rag_search`: store, index, embedding
model), then waits
for the server's "warmed up" log line and reads its resident memory (VmRSS) and peak (VmHWM) from
/proc. The run's one cache of compiled vocabularies (BIO_MCP_CACHE_DIR) is fresh too unless
`--warm-cache` names one, so the figures include building it; `--runs 2 --warm-cache EMPTY_FOLDER`
measures a user's first start (run 0) and the start after it (run 1). Prints one JSON line per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import emit
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parent.parent
BIO_MCP = str(Path(sys.executable).with_name("bio-mcp"))



def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def memory_mb(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024, 1)
    return fields


def server_pid(home: Path) -> int:
    """The pid of the bio-mcp serve process whose environment names this home."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if any(part.endswith(b"bio-mcp") for part in cmdline[:2]) and b"serve" in cmdline \
                and f"BIO_MCP_HOME={home}".encode() in environ:
            return int(proc.name)
    raise RuntimeError("the server process was not found")


async def one_run(args: argparse.Namespace, port: int, run: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="bio-mcp-serve-"))
    log = home / "server.log"
    env = {
        "PATH": os.environ["PATH"], "HOME": str(home), "BIO_MCP_HOME": str(home / "data"),
        "BIO_MCP_CACHE_DIR": args.warm_cache or str(home / "cache"), "BIO_MCP_TOOLSETS": args.toolsets,
        "NCBI_EUTILS_BASE_URL": f"http://127.0.0.1:{port}/entrez/eutils",
        "CTGOV_BASE_URL": f"http://127.0.0.1:{port}/api/v2", "LOGS_DIR": str(home / "logs"),
    }
    if "PYTHONPATH" in os.environ:  # a worktree measured with the shared venv's bio-mcp script
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = {"toolsets": args.toolsets, "run": run, "warm_cache": bool(args.warm_cache),
              "load": round(os.getloadavg()[0], 1)}
    started = time.perf_counter()
    with log.open("w") as errlog:
        server = StdioServerParameters(command=BIO_MCP, args=["serve"], env=env)
        async with Client(stdio_client(server, errlog=errlog)) as client:
            emit("serve_initialize", round(time.perf_counter() - started, 3), "s", **params)
            await client.list_tools()
            emit("serve_first_tools_list", round(time.perf_counter() - started, 3), "s", **params)
            calls = [("searchPubMedArticles", {"queryTerm": "asthma", "maxResults": 3}),
                     ("corpus_checkpoint_get", {"query_key": "bench"}),
                     ("rag_search", {"query": "asthma", "top_k": 3})]
            for tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                emit(f"serve_first_{tool}", round(time.perf_counter() - started, 3), "s",
                     ok=not result.is_error, **params)
            while "warmed up" not in log.read_text():
                if time.perf_counter() - started > args.timeout:
                    raise SystemExit(f"no 'warmed up' line within {args.timeout} s: see {log}")
                await asyncio.sleep(0.5)
            emit("serve_warm", round(time.perf_counter() - started, 3), "s", **params)
            await asyncio.sleep(1)
            memory = memory_mb(server_pid(home / "data"))
            emit("serve_rss_warm", memory["VmRSS"], "MB", **params)
            emit("serve_rss_peak", memory["VmHWM"], "MB", **params)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--toolsets", default="pubmed,corpus,analyst,kb,evidence")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--warm-cache", default="", help="a BIO_MCP_CACHE_DIR to reuse (compiled vocabularies)")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    port = free_port()
    fakes = subprocess.Popen([BIO_MCP, "fakes", "--data", args.data, "--port", str(port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        for run in range(args.runs):
            await one_run(args, port, run)
    finally:
        fakes.terminate()
        fakes.wait(10)


if __name__ == "__main__":
    asyncio.run(main())
