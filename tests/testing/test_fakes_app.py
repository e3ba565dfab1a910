"""Both fakes on one port at the real services' paths: in-process for tests, and as a blocking server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from bio_mcp.testing import build_fakes_app, run_fakes


def test_one_port_serves_both_services_at_their_real_paths(running_fakes, fakes) -> None:
    assert fakes.eutils_base_url == f"http://127.0.0.1:{fakes.port}/entrez/eutils"
    assert fakes.ctgov_base_url == f"http://127.0.0.1:{fakes.port}/api/v2"
    with httpx2.Client(timeout=10) as client:
        assert client.get(f"{fakes.eutils_base_url}/einfo.fcgi").status_code == 200
        assert client.get(f"{fakes.ctgov_base_url}/studies/NCT03630471").status_code == 200
        assert client.get(f"{fakes.base_url}/entrez/eutils/nothing.fcgi").status_code == 404
    assert [arrival.path for arrival in fakes.eutils.requests] == [
        "/entrez/eutils/einfo.fcgi",
        "/entrez/eutils/nothing.fcgi",
    ]
    assert [arrival.path for arrival in fakes.ctgov.requests] == ["/api/v2/studies/NCT03630471"]


def test_run_fakes_can_share_an_app_between_servers(data_dir: Path, fakes_app) -> None:
    with run_fakes(data_dir, app=fakes_app) as first, run_fakes(data_dir, app=fakes_app) as second:
        assert first.port != second.port and first.eutils is second.eutils
        with httpx2.Client(timeout=10) as client:
            assert client.get(f"{second.ctgov_base_url}/version").status_code == 200
    fakes_app.reset()


def test_build_fakes_app_exposes_both_fakes(data_dir: Path, fakes_app) -> None:
    app = build_fakes_app(data_dir, eutils=fakes_app.eutils, ctgov=fakes_app.ctgov)
    assert app.eutils is fakes_app.eutils and app.ctgov is fakes_app.ctgov


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_fakes_blocks_serving_both_services(data_dir: Path) -> None:
    port = _free_port()
    code = f"from bio_mcp.testing import serve_fakes; serve_fakes({str(data_dir)!r}, '127.0.0.1', {port})"
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx2.get(
                    f"http://127.0.0.1:{port}/entrez/eutils/einfo.fcgi", params={"db": "pubmed"}, timeout=2
                )
                break
            except httpx2.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    errors = server.stderr.read().decode() if server.stderr else ""
                    pytest.fail(f"serve_fakes did not come up: {errors}")
                time.sleep(0.1)
        assert response.status_code == 200 and b"<DbName>pubmed</DbName>" in response.content
        assert (
            httpx2.get(
                f"http://127.0.0.1:{port}/api/v2/studies", params={"pageSize": 1}, timeout=5
            ).status_code
            == 200
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
