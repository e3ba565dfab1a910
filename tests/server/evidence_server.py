"""A real `bio-mcp serve --transport http` over an evidence corpus, for the read-surface tests (GraphQL,
the /ui page): the Thai herb tables and Dr. Duke's constituents imported as the README says, and the
semaglutide records synced from the fake E-utilities through the MCP tool."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bio_mcp.server.auth import mint_token
from tests.server.test_transports import SECRET, authed, server_env, serving_http

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "kg"
SEMAGLUTIDE = "29915538"
SYNC_KEY = "semaglutide"


@dataclass(frozen=True)
class EvidenceServer:
    base: str
    home: Path

    def token(self) -> str:
        return mint_token(SECRET)

    def mcp(self) -> Client:
        return Client(streamable_http_client(self.base + "/mcp", http_client=authed(self.token())))


def _cli(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "bio_mcp.cli", *args], env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


async def _sync(server: EvidenceServer) -> None:
    async with server.mcp() as client:
        synced = await client.call_tool("pubmed_sync_delta", {"query_key": SYNC_KEY, "term": "semaglutide"})
        assert not synced.is_error and synced.structured_content["inserted"] > 0, synced


def evidence_server(fakes, home: Path) -> Iterator[EvidenceServer]:  # type: ignore[no-untyped-def]
    (home / "inbox").mkdir()
    (home / "inbox" / "note.md").write_text(
        "# Semaglutide\n\nSemaglutide lowers body weight in adults with obesity.\n", encoding="utf-8")
    # Warnings only: serving_http keeps the server's stderr in a pipe it reads only on failure, and the
    # benchmark's few hundred calls of INFO lines filled it, which blocked the server mid-write.
    env = server_env(fakes, home, MCP_AUTH_SECRET_KEY=SECRET, BIO_MCP_TOOLSETS="pubmed,corpus,kb,evidence",
                     BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_SYNC_LOOKBACK_DAYS="36500",
                     BIO_MCP_INGEST_ROOTS=str(home / "inbox"), MCP_LOG_LEVEL="warning")
    _cli(env, "kg", "import", str(EXAMPLES / "thai_herb_names.tsv"), str(EXAMPLES / "thai_formulations.tsv"))
    _cli(env, "kg", "herbs")
    with serving_http(env) as base:
        server = EvidenceServer(base, home)
        anyio.run(_sync, server)
        yield server
