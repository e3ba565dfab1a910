"""What a server loads before its first call: with the kb and evidence toolsets, the local embedding
model and the Thai reading besides the corpus, so the first kb.search or Thai query does not wait
seconds for them (4 s and 3.5 s on two cores before). A client that leaves does not wait for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.kb import language
from bio_mcp.search import thai_english
from bio_mcp.search.embeddings import onnx_int8
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.runtime import Runtime
from bio_mcp.store import open_metadata_store

BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")
# The store's busy timeout is 30 s: a warm-up waiting for the write lock runs that long.
EXIT_WITHIN_S = 10
START_WITHIN_S = 90

pytestmark = pytest.mark.anyio


async def test_the_warm_up_loads_the_embedding_model_and_the_thai_reading(
    bio_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(
        BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="onnx", BIO_MCP_GRAPH_LINKING="false",
    )
    # As a fresh server process finds them: nothing loaded yet.
    monkeypatch.setattr(onnx_int8, "_sessions", {})
    language._LEXICONS.clear()
    monkeypatch.setattr(thai_english, "_LOADED", {})

    async with Runtime(settings) as runtime:
        await runtime.warm_up(build_toolsets(runtime, ["kb", "evidence"]))
        assert runtime.corpus.index.embeddings.model_id.startswith("onnx:")
        assert onnx_int8._sessions, "the ONNX session was not loaded"
        assert language._LEXICONS, "the name lexicon was not built"
        assert thai_english._LOADED, "the Thai -> English words were not loaded"
        # Kept in the cache, so the next server reads them back instead of building them.
        assert list(settings.caches.glob("thai-english-*.pickle"))


def test_a_stdio_server_exits_at_once_when_its_client_leaves_during_the_warm_up(bio_home: Path) -> None:
    settings = load_settings(BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_GRAPH_LINKING="false")
    env = {**os.environ, "BIO_MCP_TOOLSETS": "corpus", "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
           "BIO_MCP_GRAPH_LINKING": "false"}
    store = open_metadata_store(settings)
    try:
        # Another process holds the store's write lock (a long sync, say): the server's warm-up
        # waits for it to open the corpus.
        with store.transaction():
            proc = subprocess.Popen([BIO_MCP, "serve"], env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            assert proc.stdin is not None and proc.stderr is not None
            lines = _lines_until_ready(proc)
            time.sleep(2)  # for the warm-up to reach the lock, where it would wait 30 s
            proc.stdin.close()
            try:
                proc.wait(timeout=EXIT_WITHIN_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                pytest.fail(f"still running {EXIT_WITHIN_S} s after its client left")
    finally:
        store.close()
    records = [json.loads(line) for line in lines + proc.stderr.read().splitlines() if line.strip()]
    assert proc.returncode == 0, records
    # It left during the warm-up, which had neither opened the corpus nor given up on it.
    assert not [r for r in records if r["msg"].startswith(("corpus ready", "corpus warm-up failed"))], records


def _lines_until_ready(proc: subprocess.Popen[str]) -> list[str]:
    assert proc.stderr is not None
    lines: list[str] = []
    watchdog = threading.Timer(START_WITHIN_S, proc.kill)  # readline would wait for ever
    watchdog.start()
    try:
        while line := proc.stderr.readline():
            lines.append(line)
            if json.loads(line)["msg"] == "ready":
                return lines
    finally:
        watchdog.cancel()
    pytest.fail("no ready line; stderr so far:\n" + "".join(lines))
