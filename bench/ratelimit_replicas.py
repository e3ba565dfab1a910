"""NCBI's limit across replicas, measured where it counts: at the receiving end.

Starts the fake E-utilities server in a process of its own, then for each mode (with an API key,
limit 10/s; without, limit 3/s) starts `--replicas` real `bio-mcp serve --transport http`
processes sharing one Redis (`REDIS_URL`), and drives each with `--callers` concurrent callers
that call `fetchArticleDetails` (one EFetch per call) over Streamable HTTP for `--duration`
seconds. A caller answered RATE_LIMIT pauses `--backoff` seconds before its next call, as a
client should. Then reads the fake's arrival log (`GET /_fakes/arrivals`) and prints JSON lines:

- `achieved_rate_share`: request starts per second at the fake while the callers keep every
  replica saturated (after `--warmup` s, until the callers stop), as a share of the cap (target
  >= 0.95);
- `busiest_window`: the most arrivals in any sliding one-second window (must be <= the cap);
- `tightest_span_s`: the shortest time covering cap+1 consecutive arrivals (must be >= 1 s);
- `calls`: call outcomes (ok, RATE_LIMIT, ...).

Each is measured at two points of the receiving end (`params.at`): `app`, the fake's own arrival
log, stamped when its event loop gets to the request (late, and in bunches, when the fake's process
waits for a CPU); and `wire` (`--wire`, needs CAP_NET_RAW), the kernel's receive timestamp of each
request's first segment on the loopback interface, read through an AF_PACKET socket: when the
bytes reached the receiving host, whatever its processes were doing. `stamp_delay_ms` is how much
later the app stamped than the wire (i-th request at one with the i-th at the other).

    /work/venv/bin/python bench/ratelimit_replicas.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import anyio
import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test doubles are in tests/support
from figures import emit

from tests.support.wire_arrivals import WireCapture, capture_permitted

BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")
PMIDS = ["29915538", "20412080", "22351513", "22528466"]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2025-06-18"}


# Messages of the errors other than RATE_LIMIT, to tell what went wrong.
MESSAGES: Counter[str] = Counter()



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx2.get(url, timeout=2).status_code == 200:
                return
        except httpx2.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_", "REDIS_"))}


def busiest_window(times: list[float], window: float = 1.0) -> int:
    best, j = 0, 0
    for i, t in enumerate(times):
        while t - times[j] >= window:
            j += 1
        best = max(best, i - j + 1)
    return best


def tightest_span(times: list[float], limit: int) -> float | None:
    spans = [times[i + limit] - times[i] for i in range(len(times) - limit)]
    return min(spans) if spans else None


async def call(client: httpx2.AsyncClient, url: str, pmid: str, request_id: int) -> str:
    payload = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
               "params": {"name": "fetchArticleDetails", "arguments": {"pmids": [pmid]}}}
    response = await client.post(url, json=payload, headers=MCP_HEADERS)
    if response.status_code != 200:
        return f"HTTP_{response.status_code}"
    text = response.text
    if "text/event-stream" in response.headers.get("content-type", ""):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    message = json.loads(text)
    if "error" in message:
        return "JSONRPC_ERROR"
    result = message["result"]
    if result.get("isError"):
        error = result["_meta"]["error"]
        if error["code"] not in ("RATE_LIMIT",):
            MESSAGES[f"{error['code']}: {error['message']}"] += 1
        return error["code"]
    return "ok"


async def warm(urls: list[str]) -> None:
    """One call per replica first, so the measured part does not include loading the server."""
    async with httpx2.AsyncClient(timeout=120) as client:
        for index, url in enumerate(urls):
            await call(client, url, PMIDS[0], index)


async def drive(urls: list[str], callers: int, duration_s: float, backoff_s: float) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    end = time.monotonic() + duration_s
    counter = iter(range(10**9))

    async def caller(client: httpx2.AsyncClient, url: str, index: int) -> None:
        while time.monotonic() < end:
            try:
                outcome = await call(client, url, PMIDS[index % len(PMIDS)], next(counter))
            except httpx2.HTTPError as exc:
                outcome = type(exc).__name__
            outcomes[outcome] += 1
            if outcome != "ok":
                await anyio.sleep(backoff_s)

    limits = httpx2.Limits(max_connections=callers, max_keepalive_connections=callers)
    clients = [httpx2.AsyncClient(timeout=120, limits=limits) for _ in urls]
    try:
        async with anyio.create_task_group() as tg:
            for client, url in zip(clients, urls, strict=True):
                for index in range(callers):
                    tg.start_soon(caller, client, url, index)
    finally:
        for client in clients:
            await client.aclose()
    return outcomes


def run_mode(args: argparse.Namespace, fakes_port: int, keyed: bool, home: Path) -> None:
    fakes_base = f"http://127.0.0.1:{fakes_port}"
    limit = 10 if keyed else 3
    api_key = f"bench-{uuid.uuid4().hex}" if keyed else None
    clear_limiter(args.redis, api_key)
    replicas = []
    urls = []
    for index in range(args.replicas):
        port = free_port()
        env = clean_env()
        env.update({
            "NCBI_EUTILS_BASE_URL": fakes_base + "/entrez/eutils", "REDIS_URL": args.redis,
            "BIO_MCP_HOME": str(home / f"replica{index}"), "BIO_MCP_TOOLSETS": "pubmed",
            "MCP_AUTH_DISABLED": "true", "MCP_LOG_LEVEL": "warning",
        })
        if api_key:
            env["NCBI_API_KEY"] = api_key
        if args.margin_ms is not None:
            env["NCBI_RATE_MARGIN_MS"] = str(args.margin_ms)
        replicas.append(subprocess.Popen([BIO_MCP, "serve", "--transport", "http", "--port", str(port)], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        urls.append(f"http://127.0.0.1:{port}/mcp")
    try:
        for url in urls:
            wait_http(url.removesuffix("/mcp") + "/healthz")
        anyio.run(warm, urls)
        with WireCapture(fakes_port) if args.wire else nullcontext() as capture:
            started = time.monotonic()
            outcomes = anyio.run(drive, urls, args.callers, args.duration, args.backoff)
            ended = time.monotonic()
    finally:
        for proc in replicas:
            proc.send_signal(signal.SIGTERM)
        for proc in replicas:
            proc.wait(timeout=20)
    arrivals = httpx2.get(fakes_base + "/_fakes/arrivals", timeout=30).json()["eutils"]
    stamped = {"app": sorted(a["monotonic"] for a in arrivals if started <= a["monotonic"] <= ended + 30)}
    if capture is not None:
        stamped["wire"] = [t for t in capture.times() if started <= t <= ended + 30]
    mode = "api_key" if keyed else "no_key"
    if args.arrivals_out:
        args.arrivals_out.mkdir(parents=True, exist_ok=True)
        (args.arrivals_out / f"arrivals_{mode}.json").write_text(json.dumps(
            {"started": started, "ended": ended, **stamped}))
    params = {"mode": mode, "cap_per_s": limit, "replicas": args.replicas, "callers_per_replica": args.callers,
              "duration_s": args.duration, "warmup_s": args.warmup, "margin_ms": args.margin_ms,
              "load_avg_1m": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()}
    for at, times in stamped.items():
        report(times, started, args, limit, {**params, "at": at})
    if "wire" in stamped and len(stamped["wire"]) == len(stamped["app"]):
        delays = sorted((app - wire) * 1000 for app, wire in zip(stamped["app"], stamped["wire"], strict=True))
        emit("stamp_delay_ms", {q: round(delays[int(q * (len(delays) - 1))], 2) for q in (0.5, 0.9, 0.99, 1.0)},
             "ms from the wire to the fake's stamp, quantiles", **params)
    emit("calls", dict(sorted(outcomes.items())), "call outcomes", **params, errors=dict(MESSAGES))
    MESSAGES.clear()


def report(times: list[float], started: float, args: argparse.Namespace, limit: int, params: dict) -> None:
    # Saturated from the warm-up's end until the callers stop calling; queued calls drain after.
    measured = [t for t in times if started + args.warmup <= t <= started + args.duration]
    rate = len(measured) / (args.duration - args.warmup)
    emit("achieved_rate", round(rate, 3), "requests/s", **params)
    emit("achieved_rate_share", round(rate / limit, 4), "share of cap", **params)
    emit("busiest_window", busiest_window(times), "requests in any 1 s window", **params, requests=len(times))
    span = tightest_span(times, limit)
    emit("tightest_span_s", round(span, 4) if span is not None else None, f"s covering {limit + 1} arrivals", **params)


def clear_limiter(redis_url: str, api_key: str | None) -> None:
    import redis

    from bio_mcp.sources.ratelimit import limiter_key

    client = redis.Redis.from_url(redis_url)
    prefix = f"bio-mcp:ratelimit:ncbi:{limiter_key(api_key)}"
    client.delete(f"{prefix}:starts", f"{prefix}:last")
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--callers", type=int, default=50)
    parser.add_argument("--duration", type=float, default=40.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--backoff", type=float, default=1.0)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--modes", default="api_key,no_key")
    parser.add_argument("--fakes-nice", type=int, default=-10,
                        help="Niceness of the fake's process (negative needs privileges; 0 leaves it)")
    parser.add_argument("--arrivals-out", type=Path, help="Folder to write each mode's arrival times to")
    parser.add_argument("--margin-ms", type=int, help="NCBI_RATE_MARGIN_MS for the replicas (default: theirs)")
    parser.add_argument("--wire", action=argparse.BooleanOptionalAction, default=capture_permitted(),
                        help="Also stamp arrivals at the wire (AF_PACKET; default: when permitted)")
    args = parser.parse_args()
    port = free_port()
    # The fake stamps an arrival when its event loop gets to the request; on a busy machine a
    # starved receiver would stamp several at once. A higher priority keeps its clock honest.
    fakes = subprocess.Popen([BIO_MCP, "fakes", "--data", str(args.data), "--port", str(port)],
                             env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=lambda: os.nice(args.fakes_nice) if args.fakes_nice else None)
    try:
        wait_http(f"http://127.0.0.1:{port}/_fakes/arrivals")
        with tempfile.TemporaryDirectory() as home:
            for mode in args.modes.split(","):
                run_mode(args, port, mode == "api_key", Path(home))
    finally:
        fakes.terminate()
        fakes.wait(timeout=20)


if __name__ == "__main__":
    main()
