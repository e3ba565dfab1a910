"""The real `bio-mcp serve` process: a ready line, one Ctrl-C to stop, JSON-only stderr.

Each test starts the command as a user would (stdin a pipe, as MCP clients spawn it, or a
terminal), waits for its ``ready`` line, sends one SIGINT, and expects a clean exit within
seconds. Deprecation warnings are switched on for the child (`-W default::DeprecationWarning`,
which prints every one, even from libraries) and none may appear on its stderr.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

STOP_WITHIN_S = 10
START_WITHIN_S = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(home: Path, args: list[str], stdin: int, **env: str) -> subprocess.Popen[bytes]:
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_"))}
    # The run's one cache of the compiled MeSH linker (tests/conftest.py).
    child_env["BIO_MCP_CACHE_DIR"] = os.environ["BIO_MCP_CACHE_DIR"]
    child_env.update({"BIO_MCP_HOME": str(home), **env})
    return subprocess.Popen(
        [sys.executable, "-W", "default::DeprecationWarning", "-m", "bio_mcp.cli", "serve", *args],
        env=child_env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _read_until_ready(proc: subprocess.Popen[bytes]) -> list[str]:
    """stderr lines up to and including the first `ready` record."""
    assert proc.stderr is not None
    lines: list[str] = []
    buffer = b""
    deadline = time.monotonic() + START_WITHIN_S
    while time.monotonic() < deadline:
        readable, _, _ = select.select([proc.stderr], [], [], 0.5)
        if not readable:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(proc.stderr.fileno(), 65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            lines.append(line.decode())
            if '"msg": "ready"' in lines[-1]:
                return lines
    proc.kill()
    pytest.fail("no ready line; stderr so far:\n" + "\n".join(lines) + buffer.decode())


def _stop(proc: subprocess.Popen[bytes]) -> list[str]:
    proc.send_signal(signal.SIGINT)
    try:
        _, rest = proc.communicate(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"still running {STOP_WITHIN_S} s after one SIGINT")
    assert proc.returncode == 0
    return rest.decode().splitlines()


def _records(lines: list[str]) -> list[dict]:
    assert not [line for line in lines if "DeprecationWarning" in line or "Traceback" in line], lines
    records = []
    for line in lines:
        if line.strip():
            records.append(json.loads(line))  # every stderr line is a JSON log record
    return records


@pytest.mark.parametrize("stdin_kind", ["pipe", "terminal"])
def test_stdio_prints_ready_and_stops_on_the_first_ctrl_c(bio_home: Path, stdin_kind: str) -> None:
    if stdin_kind == "pipe":
        proc = _start(bio_home, [], subprocess.PIPE, BIO_MCP_TOOLSETS="pubmed")
        keep_open = None
    else:
        keep_open, terminal = pty.openpty()
        proc = _start(bio_home, [], terminal, BIO_MCP_TOOLSETS="pubmed")
        os.close(terminal)
    try:
        before = _read_until_ready(proc)
        after = _stop(proc)
    finally:
        if keep_open is not None:
            os.close(keep_open)
    records = _records(before + after)
    ready = [r for r in records if r["msg"] == "ready"]
    assert len(ready) == 1 and ready[0]["transport"] == "stdio" and ready[0]["tools"] > 0
    assert [r["signal"] for r in records if r["msg"] == "stopping"] == ["SIGINT"]


def test_http_logs_are_json_lines_and_one_ctrl_c_stops_it(bio_home: Path) -> None:
    port = _free_port()
    proc = _start(
        bio_home, ["--transport", "http", "--port", str(port)], subprocess.DEVNULL,
        BIO_MCP_TOOLSETS="pubmed", MCP_AUTH_DISABLED="true",
    )
    before = _read_until_ready(proc)
    assert httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["status"] == "ok"
    records = _records(before + _stop(proc))
    loggers = {r["logger"] for r in records}
    assert "uvicorn.error" in loggers  # uvicorn's own lines come through the same JSON handler
    ready = next(r for r in records if r["msg"] == "ready")
    assert ready["url"] == f"http://127.0.0.1:{port}/mcp"
    assert any(r["msg"].startswith("Finished server process") for r in records)
