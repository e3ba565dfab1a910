"""Several real processes sharing one Redis keep NCBI's limit as the fake E-utilities counts it.

Each process runs the real E-utilities client with many concurrent calls while a background task
stalls its event loop now and then (a busy replica), which is what used to let a request that
left late land next to the following one. The check is at the fake, in a process of its own, as
the kernel stamped the requests' arrival (or the fake's own log without CAP_NET_RAW; see
`receiving_end`): never more than the limit in any sliding one-second window.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from types import SimpleNamespace

import httpx2
import pytest

from bio_mcp.sources.ratelimit import limiter_key
from bio_mcp.testing.fakes_app import ARRIVALS_PATH
from bio_mcp.testing.faults import busiest_window
from tests.server.fakes_process import receiving_end

DRIVER = r"""
import asyncio, json, os, random, sys, time
from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError
from bio_mcp.sources.ncbi.client import EutilsClient

async def main() -> None:
    client = EutilsClient(load_settings())
    calls = int(os.environ["CALLS"])
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    done = asyncio.Event()

    async def stall() -> None:
        rng = random.Random(os.getpid())
        while not done.is_set():
            await asyncio.sleep(rng.uniform(0, 0.05))
            time.sleep(rng.uniform(0.02, 0.08))  # the loop is busy: nothing else runs

    async def one() -> str:
        try:
            await client.einfo()
            return "ok"
        except BioMcpError as exc:
            return exc.code.value

    staller = asyncio.create_task(stall())
    outcomes = await asyncio.gather(*(one() for _ in range(calls)))
    done.set()
    await staller
    await client.aclose()
    print(json.dumps(outcomes), flush=True)

asyncio.run(main())
"""


@pytest.mark.parametrize(("keyed", "limit", "calls"), [(True, 10, 15), (False, 3, 5)], ids=["api_key", "no_key"])
def test_processes_sharing_redis_never_exceed_the_limit_at_the_receiver(
    fakes_process, redis_url, bio_home, keyed, limit, calls
) -> None:
    import redis

    api_key = f"test-{uuid.uuid4().hex}" if keyed else None
    prefix = f"bio-mcp:ratelimit:ncbi:{limiter_key(api_key)}"
    store = redis.Redis.from_url(redis_url)
    store.delete(f"{prefix}:starts", f"{prefix}:last")
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "REDIS_"))}
    env.update({"NCBI_EUTILS_BASE_URL": fakes_process + "/entrez/eutils", "REDIS_URL": redis_url,
                "NCBI_TIMEOUT_S": "120", "CALLS": str(calls), "BIO_MCP_HOME": str(bio_home)})
    if api_key:
        env["NCBI_API_KEY"] = api_key
    drivers = [subprocess.Popen([sys.executable, "-c", DRIVER], env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True) for _ in range(3)]
    for driver in drivers:
        assert driver.stdout.readline().strip() == "ready"
    outcomes = []
    with receiving_end(fakes_process) as arrival_times:
        for driver in drivers:
            driver.stdin.write("go\n")
            driver.stdin.flush()
        for driver in drivers:
            out, _ = driver.communicate(timeout=180)
            outcomes += json.loads(out.strip().splitlines()[-1])
    arrivals = httpx2.get(fakes_process + ARRIVALS_PATH, timeout=10).json()["eutils"]
    assert outcomes == ["ok"] * (3 * calls)
    assert len(arrivals) == 3 * calls
    times = arrival_times(arrivals)
    assert len(times) == 3 * calls
    assert busiest_window([SimpleNamespace(monotonic=t) for t in times], 1.0) <= limit
