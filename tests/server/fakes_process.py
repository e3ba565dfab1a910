"""The fakes in a process of their own and where their requests arrived (registered in tests/conftest.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import httpx2
import pytest

from bio_mcp.testing.fakes_app import ARRIVALS_PATH
from tests.support.wire_arrivals import WireCapture, capture_permitted


@pytest.fixture
def fakes_process(data_dir: Path) -> Iterator[str]:
    """The fakes in a process of their own, so their arrival clock is not held up by this test's GIL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([str(Path(sys.executable).parent / "bio-mcp"), "fakes", "--data", str(data_dir),
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx2.get(base + ARRIVALS_PATH, timeout=1)
            break
        except httpx2.TransportError:
            time.sleep(0.1)
    yield base
    proc.terminate()
    proc.wait(timeout=10)


@contextmanager
def receiving_end(base_url: str) -> Iterator[Callable[[list[dict]], list[float]]]:
    """When the requests to the fake at `base_url` arrived: as the kernel stamped them on the
    loopback interface when this process may capture it (CAP_NET_RAW), else as the fake's own
    arrival log has them. The log is stamped when the fake's event loop gets to a request, which on
    a busy machine is tens of milliseconds late and bunched (bench/ratelimit_replicas.py measures
    both), so it can show a full second's worth of starts closer together than they arrived."""
    port = int(base_url.rsplit(":", 1)[1])
    capture = WireCapture(port) if capture_permitted() else None
    with capture or nullcontext():
        yield lambda arrivals: capture.times() if capture else [a["monotonic"] for a in arrivals]
