"""The fakes (E-utilities, ClinicalTrials.gov, PubTator3) behind one ASGI app, at the real services'
paths, and ways to run it.

    with run_fakes(data_dir) as fakes:
        settings = {"NCBI_EUTILS_BASE_URL": fakes.eutils_base_url, "CTGOV_BASE_URL": fakes.ctgov_base_url}
        fakes.eutils.inject(fakes.eutils.rate_limited())

`serve_fakes(data_dir, host, port)` blocks serving the same app (the `bio-mcp fakes` command).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from bio_mcp.testing.ctgov_fake import CTGOV_PATH, FakeClinicalTrials
from bio_mcp.testing.eutils_fake import EUTILS_PATH, FakeEutils
from bio_mcp.testing.faults import Receive, Scope, Send
from bio_mcp.testing.literature_fakes import EUROPEPMC_PATH, IDCONV_PATH, UNPAYWALL_PATH, FakeLiterature
from bio_mcp.testing.pubtator3_fake import PUBTATOR3_PATH, FakePubtator3

STARTUP_TIMEOUT_S = 10.0
# Where a test that runs the fakes in another process reads their arrival logs.
ARRIVALS_PATH = "/_fakes/arrivals"


class FakesApp:
    """One ASGI app serving both fakes: /api/v2/* goes to ClinicalTrials.gov, the rest to E-utilities."""

    def __init__(
        self, eutils: FakeEutils, ctgov: FakeClinicalTrials, pubtator3: FakePubtator3, literature: FakeLiterature
    ) -> None:
        self.eutils = eutils
        self.ctgov = ctgov
        self.pubtator3 = pubtator3
        self.literature = literature

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return
        if scope["path"] == ARRIVALS_PATH:
            await self._send_arrivals(send)
            return
        target = self.ctgov.app if scope["path"].startswith(CTGOV_PATH + "/") else self.eutils.app
        if scope["path"].startswith(PUBTATOR3_PATH + "/"):
            target = self.pubtator3.app
        elif scope["path"].startswith((EUROPEPMC_PATH + "/", IDCONV_PATH, UNPAYWALL_PATH + "/")):
            target = self.literature.app
        await target(scope, receive, send)

    async def _send_arrivals(self, send: Send) -> None:
        """Both arrival logs as JSON; `monotonic` is CLOCK_MONOTONIC, comparable across processes."""
        body = json.dumps({
            name: [
                {"monotonic": a.monotonic, "wall": a.wall.isoformat(), "method": a.method, "path": a.path,
                 "status": a.status, "fault": a.fault, "rate_limited": a.rate_limited,
                 "params": [[k, "***" if k == "api_key" else v] for k, v in a.params]}
                for a in fake.requests
            ]
            for name, fake in (("eutils", self.eutils), ("ctgov", self.ctgov), ("pubtator3", self.pubtator3),
                               ("literature", self.literature))
        }).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def reset(self) -> None:
        """Restore both fakes' records and clear their history, faults, settings and arrival logs."""
        self.eutils.reset()
        self.ctgov.reset()
        self.pubtator3.reset()
        self.literature.reset()


def build_fakes_app(
    data_dir: Path, *, eutils: FakeEutils | None = None, ctgov: FakeClinicalTrials | None = None
) -> FakesApp:
    """The fakes on one app at the real paths; pass fakes in to share their records and faults."""
    return FakesApp(eutils or FakeEutils(data_dir), ctgov or FakeClinicalTrials(data_dir), FakePubtator3(data_dir),
                    FakeLiterature(data_dir))


@dataclass(frozen=True)
class RunningFakes:
    """The fakes serving on a loopback port."""

    app: FakesApp
    host: str
    port: int

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def eutils_base_url(self) -> str:
        return self.base_url + EUTILS_PATH

    @property
    def ctgov_base_url(self) -> str:
        return self.base_url + CTGOV_PATH

    @property
    def pubtator3_base_url(self) -> str:
        return self.base_url + PUBTATOR3_PATH

    @property
    def europepmc_base_url(self) -> str:
        return self.base_url + EUROPEPMC_PATH

    @property
    def idconv_base_url(self) -> str:
        return self.base_url + IDCONV_PATH

    @property
    def unpaywall_base_url(self) -> str:
        return self.base_url + UNPAYWALL_PATH

    @property
    def literature(self) -> FakeLiterature:
        return self.app.literature

    @property
    def eutils(self) -> FakeEutils:
        return self.app.eutils

    @property
    def pubtator3(self) -> FakePubtator3:
        return self.app.pubtator3

    @property
    def ctgov(self) -> FakeClinicalTrials:
        return self.app.ctgov

    def reset(self) -> None:
        self.app.reset()


def _listening_socket(host: str, port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it, Nagle and delayed ACKs add ~40 ms to every
    # keep-alive request, which would swamp the latencies tests measure.
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind((host, port))
    return listener


def _server(app: FakesApp, host: str, port: int) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=1,
    )
    return uvicorn.Server(config)


@contextmanager
def run_fakes(
    data_dir: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    app: FakesApp | None = None,
) -> Iterator[RunningFakes]:
    """Serve both fakes on `host`:`port` (0: a free port) in a background thread for the block's duration.

    Pass an already built `app` to reuse its loaded records across several servers.
    """
    app = app or build_fakes_app(data_dir)
    listener = _listening_socket(host, port)
    bound_port = listener.getsockname()[1]
    server = _server(app, host, bound_port)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listener]}, name="bio-mcp-fakes", daemon=True
    )
    thread.start()
    try:
        _wait_started(server, thread)
        yield RunningFakes(app=app, host=host, port=bound_port)
    finally:
        server.should_exit = True
        thread.join(timeout=STARTUP_TIMEOUT_S)
        listener.close()


def _wait_started(server: uvicorn.Server, thread: threading.Thread) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        raise RuntimeError("the fake services did not start")


def serve_fakes(data_dir: Path, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve the fakes until interrupted: E-utilities at /entrez/eutils, ClinicalTrials.gov at /api/v2,
    PubTator3 at /research/pubtator3-api, Europe PMC, the PMC ID Converter and Unpaywall at their real paths."""
    listener = _listening_socket(host, port)
    try:
        _server(build_fakes_app(Path(data_dir)), host, port).run(sockets=[listener])
    finally:
        listener.close()
