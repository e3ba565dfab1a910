"""The real `bio-mcp serve` process over stdio and over Streamable HTTP, driven by the SDK's client."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import jwt
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bio_mcp.server.auth import mint_token

pytestmark = pytest.mark.anyio

SECRET = "s" * 40
BIO_MCP = str(Path(sys.executable).parent / "bio-mcp")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(fakes, home: Path, **extra: str) -> dict[str, str]:
    # No setting leaks in from the developer's shell (as in tests/conftest.py's bio_home).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_", "CTGOV_")) and k not in ("DATABASE_URL", "REDIS_URL")}
    # The run's one cache of the compiled MeSH linker (tests/conftest.py).
    env["BIO_MCP_CACHE_DIR"] = os.environ["BIO_MCP_CACHE_DIR"]
    env.update({"NCBI_EUTILS_BASE_URL": fakes.eutils_base_url, "BIO_MCP_HOME": str(home),
                "BIO_MCP_TOOLSETS": "pubmed", **extra})
    return env


async def test_stdio_session_lists_and_calls_tools(fakes, bio_home) -> None:
    params = StdioServerParameters(command=BIO_MCP, args=["serve"], env=server_env(fakes, bio_home))
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "searchPubMedArticles" in names
        result = await client.call_tool("searchPubMedArticles", {"queryTerm": "asthma", "fetchBriefSummaries": 1})
        assert not result.is_error and result.structured_content["totalFound"] > 0
        assert result.meta["audit"]["status"] == "ok"


@contextlib.contextmanager
def serving_http(env: dict[str, str]):
    """A real `bio-mcp serve --transport http` process; yields its base URL."""
    port = free_port()
    proc = subprocess.Popen([BIO_MCP, "serve", "--transport", "http", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    # Generous: a loaded CI machine takes seconds to import the server.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx2.TransportError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the HTTP server did not start: " + proc.stderr.read().decode()[-2000:])
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def http_server(running_fakes, tmp_path_factory):
    """One server for the module: its tests only send requests, and each start took 2-3 s."""
    home = tmp_path_factory.mktemp("http-server")
    logs = home / "logs"
    env = server_env(running_fakes, home, MCP_AUTH_SECRET_KEY=SECRET, MCP_ALLOWED_ORIGINS="https://app.example.org",
                     LOGS_DIR=str(logs))
    with serving_http(env) as base:
        yield base, logs


def authed(token: str, **headers: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", **headers}, timeout=30)


async def test_http_session_with_a_valid_token_on_both_paths(http_server) -> None:
    base, logs = http_server
    token = mint_token(SECRET)
    for path in ("/mcp", "/_mcp"):
        async with Client(streamable_http_client(base + path, http_client=authed(token))) as client:
            result = await client.call_tool("fetchArticleDetails", {"pmids": ["29915538"]})
            assert not result.is_error and result.structured_content["articles"][0]["pmid"] == "29915538"
            resources = {str(r.uri) for r in (await client.list_resources()).resources}
            assert "pubmed-connect://info" in resources
    log_text = "".join(p.read_text() for p in logs.glob("*.jsonl"))
    assert "tool ok" in log_text and token not in log_text and SECRET not in log_text


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize(
    "case", ["missing", "bad_signature", "expired", "not_a_jwt", "year_3000", "lives_25_hours", "issued_long_ago"]
)
async def test_http_rejects_bad_tokens_with_401(http_server, case) -> None:
    base, _ = http_server
    headers = dict(MCP_HEADERS)
    now = int(time.time())
    lifetimes = {"year_3000": (now, 32503680000), "lives_25_hours": (now, now + 25 * 3600),
                 "issued_long_ago": (now - 10 * 86400, now + 3600)}
    if case in lifetimes:
        iat, exp = lifetimes[case]
        headers["Authorization"] = "Bearer " + jwt.encode({"sub": "d", "iat": iat, "exp": exp}, SECRET, "HS256")
    elif case == "bad_signature":
        headers["Authorization"] = "Bearer " + mint_token("x" * 40)
    elif case == "expired":
        headers["Authorization"] = "Bearer " + jwt.encode({"sub": "d", "exp": int(time.time()) - 60}, SECRET, "HS256")
    elif case == "not_a_jwt":
        headers["Authorization"] = "Bearer abc.def"
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(base + "/mcp", json=INITIALIZE, headers=headers)
    assert response.status_code == 401
    assert "www-authenticate" in response.headers


async def test_http_foreign_origin_is_403_and_allowed_origin_gets_cors(http_server) -> None:
    base, _ = http_server
    headers = {**MCP_HEADERS, "Authorization": "Bearer " + mint_token(SECRET)}
    async with httpx2.AsyncClient(timeout=10) as http:
        foreign = await http.post(base + "/mcp", json=INITIALIZE, headers={**headers, "Origin": "https://evil.example"})
        allowed = await http.post(base + "/mcp", json=INITIALIZE, headers={**headers, "Origin": "https://app.example.org"})
        preflight = await http.options(base + "/mcp", headers={
            "Origin": "https://app.example.org", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,mcp-session-id"})
    assert foreign.status_code == 403
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example.org"
    assert "mcp-session-id" in allowed.headers["access-control-expose-headers"].lower()
    assert preflight.status_code == 200


def test_http_refuses_to_start_without_auth_unless_loopback_opt_out(fakes, bio_home) -> None:
    env = server_env(fakes, bio_home)
    no_auth = subprocess.run([BIO_MCP, "serve", "--transport", "http", "--port", str(free_port())],
                             env=env, capture_output=True, timeout=30)
    assert no_auth.returncode != 0 and b"requires bearer auth" in no_auth.stderr
    public = subprocess.run([BIO_MCP, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", str(free_port())],
                            env={**env, "MCP_AUTH_DISABLED": "true"}, capture_output=True, timeout=30)
    assert public.returncode != 0 and b"only allowed on a loopback" in public.stderr
    assert b"Traceback" not in no_auth.stderr + public.stderr


def test_bad_configuration_is_a_clear_error(bio_home) -> None:
    result = subprocess.run([BIO_MCP, "serve"], env={**os.environ, "NCBI_REQUEST_DELAY_MS": "fast"},
                            capture_output=True, timeout=30)
    assert result.returncode == 2
    assert b"NCBI_REQUEST_DELAY_MS" in result.stderr and b"Traceback" not in result.stderr


async def test_http_accepts_a_token_just_within_the_maximum_lifetime(http_server) -> None:
    base, _ = http_server
    now = int(time.time())
    token = jwt.encode({"sub": "d", "iat": now, "exp": now + 23 * 3600}, SECRET, "HS256")
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(base + "/mcp", json=INITIALIZE,
                                   headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})
    assert response.status_code == 200


def test_token_command_refuses_a_lifetime_past_the_maximum(bio_home) -> None:
    env = {**os.environ, "MCP_AUTH_SECRET_KEY": SECRET}
    refused = subprocess.run([BIO_MCP, "token", "--ttl", str(25 * 3600)], env=env, capture_output=True, timeout=30)
    assert refused.returncode != 0 and not refused.stdout
    assert b"MCP_AUTH_MAX_TOKEN_LIFETIME_S" in refused.stderr and b"Traceback" not in refused.stderr
    raised = subprocess.run([BIO_MCP, "token", "--ttl", str(25 * 3600)], capture_output=True, timeout=30,
                            env={**env, "MCP_AUTH_MAX_TOKEN_LIFETIME_S": str(48 * 3600)})
    claims = jwt.decode(raised.stdout.decode().strip(), SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 25 * 3600


def test_token_command_mints_a_verifiable_token(bio_home) -> None:
    result = subprocess.run([BIO_MCP, "token", "--subject", "alice", "--ttl", "60"],
                            env={**os.environ, "MCP_AUTH_SECRET_KEY": SECRET}, capture_output=True, timeout=30)
    claims = jwt.decode(result.stdout.decode().strip(), SECRET, algorithms=["HS256"])
    assert claims["sub"] == "alice" and claims["exp"] - claims["iat"] == 60


async def test_static_tokens_advertise_no_oauth_metadata(http_server) -> None:
    base, _ = http_server
    async with httpx2.AsyncClient(timeout=10) as http:
        for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
                     "/.well-known/oauth-authorization-server"):
            assert (await http.get(base + path)).status_code == 404, path
        unauthorized = await http.post(base + "/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert unauthorized.status_code == 401
    assert "resource_metadata" not in unauthorized.headers["www-authenticate"]


def test_an_external_issuer_is_named_in_protected_resource_metadata(fakes, bio_home) -> None:
    issuer = "https://login.example.org/realms/bio"
    env = server_env(fakes, bio_home, MCP_AUTH_SECRET_KEY=SECRET, MCP_AUTH_ISSUER=issuer)
    with serving_http(env) as base:
        metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
        for url in (metadata_url, f"{base}/.well-known/oauth-protected-resource"):
            metadata = httpx2.get(url, timeout=10)
            assert metadata.status_code == 200, url
            body = metadata.json()
            assert body["resource"] == f"{base}/mcp" and body["authorization_servers"] == [issuer]
            assert body["scopes_supported"] == ["bio-mcp"] and body["bearer_methods_supported"] == ["header"]
        assert httpx2.get(f"{base}/.well-known/oauth-authorization-server", timeout=10).status_code == 404
        unauthorized = httpx2.post(base + "/mcp", json=INITIALIZE, headers=MCP_HEADERS, timeout=10)
        assert unauthorized.status_code == 401
        assert f'resource_metadata="{metadata_url}"' in unauthorized.headers["www-authenticate"]
        token = mint_token(SECRET, issuer=issuer)
        accepted = httpx2.post(base + "/mcp", json=INITIALIZE, timeout=10,
                               headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})
        assert accepted.status_code == 200
        wrong_issuer = httpx2.post(base + "/mcp", json=INITIALIZE, timeout=10,
                                   headers={**MCP_HEADERS, "Authorization": f"Bearer {mint_token(SECRET)}"})
        assert wrong_issuer.status_code == 401
