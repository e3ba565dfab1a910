"""The legacy REST surface and JSON answers of the real `bio-mcp serve --transport http` process:
`/mcp/tools` with Deprecation and Warning headers only behind MCP_HTTP_LEGACY_REST_ENABLED, the
legacy `search_documentation` tool, and Streamable HTTP on /mcp and /_mcp unchanged beside them."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bio_mcp.server.auth import mint_token
from tests.server.test_transports import (
    BIO_MCP,
    INITIALIZE,
    MCP_HEADERS,
    SECRET,
    authed,
    free_port,
    server_env,
)

pytestmark = pytest.mark.anyio


def start(env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([BIO_MCP, "serve", "--transport", "http", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx2.TransportError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the HTTP server did not start: " + proc.stderr.read().decode()[-2000:])
    yield base
    proc.terminate()
    proc.wait(timeout=10)


def kb_env(fakes, home: Path, **extra: str) -> dict[str, str]:
    return server_env(fakes, home, MCP_AUTH_SECRET_KEY=SECRET, BIO_MCP_TOOLSETS="pubmed,kb",
                      BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_GRAPH_LINKING="false", **extra)


@pytest.fixture
def legacy_server(fakes, bio_home) -> Iterator[str]:
    yield from start(kb_env(fakes, bio_home, MCP_HTTP_LEGACY_REST_ENABLED="true",
                            MCP_HTTP_STREAMABLE_JSON_RESPONSE="true"))


@pytest.fixture
def default_server(fakes, bio_home) -> Iterator[str]:
    yield from start(kb_env(fakes, bio_home))


def assert_deprecated(response: httpx2.Response) -> None:
    assert response.headers["deprecation"] == "true"
    assert response.headers["warning"].startswith("299 ") and "/_mcp" in response.headers["warning"]


async def test_legacy_rest_lists_and_calls_tools_with_deprecation_headers(legacy_server) -> None:
    base = legacy_server
    async with authed(mint_token(SECRET)) as http:
        listed = await http.get(base + "/mcp/tools")
        assert listed.status_code == 200
        assert_deprecated(listed)
        names = {tool["name"] for tool in listed.json()["tools"]}
        assert {"search_documentation", "kb.search", "kb.retrieve_evidence", "searchPubMedArticles"} <= names

        found = await http.post(base + "/mcp/tools/searchPubMedArticles", json={"queryTerm": "asthma"})
        assert found.status_code == 200
        assert_deprecated(found)
        body = found.json()
        assert not body.get("isError") and body["structuredContent"]["totalFound"] > 0
        assert body["_meta"]["audit"]["status"] == "ok" and body["content"][0]["type"] == "text"

        legacy = await http.post(base + "/mcp/tools/search_documentation", json={"query": "aspirin", "verbosity": "full"})
        assert legacy.status_code == 200
        assert_deprecated(legacy)
        assert legacy.json()["structuredContent"]["diagnostics"]["retrieval"]["provider"] == "hash"

        invalid = await http.post(base + "/mcp/tools/search_documentation", json={"query": "aspirin", "top_k": 99})
        assert invalid.json()["isError"] and invalid.json()["_meta"]["error"]["code"] == "VALIDATION"
        missing = await http.post(base + "/mcp/tools/nope", json={})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
        assert_deprecated(missing)
        garbage = await http.post(base + "/mcp/tools/kb.search", content=b"[1, 2]")
        assert garbage.status_code == 400

    async with httpx2.AsyncClient(timeout=10) as anonymous:
        denied = await anonymous.get(base + "/mcp/tools")
        assert denied.status_code == 401 and "www-authenticate" in denied.headers
        assert_deprecated(denied)


async def test_streamable_http_answers_json_and_still_serves_both_paths(legacy_server) -> None:
    base = legacy_server
    headers = {**MCP_HEADERS, "Authorization": "Bearer " + mint_token(SECRET)}
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(base + "/mcp", json=INITIALIZE, headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["result"]["serverInfo"]["name"] == "bio-mcp"
    for path in ("/mcp", "/_mcp"):
        async with Client(streamable_http_client(base + path, http_client=authed(mint_token(SECRET)))) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"search_documentation", "kb_search"} <= names


async def test_without_the_flags_there_is_no_legacy_surface_and_answers_are_sse(default_server) -> None:
    base = default_server
    token = mint_token(SECRET)
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
    async with authed(token) as http:
        assert (await http.get(base + "/mcp/tools")).status_code in (404, 405)
        assert (await http.post(base + "/mcp/tools/kb.search", json={"query": "x"})).status_code in (404, 405)
        response = await http.post(base + "/mcp", json=INITIALIZE, headers=headers)
    assert response.headers["content-type"].startswith("text/event-stream")
    async with Client(streamable_http_client(base + "/_mcp", http_client=authed(token))) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert "kb_search" in names and "search_documentation" not in names
