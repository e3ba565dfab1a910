"""The gRPC side of the contract tests: the Evidence service on a free loopback port over a toolset, its
generated client with a bearer token, and the comparison with the MCP JSON (minus latency and nulls)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("grpc") is None:  # the grpc extra, which the test extra installs
    if os.environ.get("BIO_MCP_STRICT") == "1":
        pytest.fail("required for CI but missing: grpcio (the grpc extra)", pytrace=False)
    pytest.skip("grpcio is not installed (the grpc extra)", allow_module_level=True)

# The test modules take grpc and the stubs from here, after the check above.
import grpc

from bio_mcp.audit import audit_record
from bio_mcp.config import load_settings
from bio_mcp.server.auth import mint_token
from bio_mcp.server.grpc import evidence_pb2 as pb
from bio_mcp.server.grpc import evidence_pb2_grpc as pb_grpc
from bio_mcp.server.grpc.messages import json_of, message_of
from bio_mcp.server.grpc.service import AUDIT_METADATA, start_grpc_server
from bio_mcp.server.toolset import Toolset

__all__ = ["AUDIT_METADATA", "SECRET", "bearer", "comparable", "evidence_over_grpc", "grpc", "json_of", "message_of",
           "pb", "pb_grpc", "resource_audit_ok"]

SECRET = "grpc-contract-tests-secret-0123456789abcdef"
Metadata = tuple[tuple[str, str], ...]


def bearer(token: str) -> Metadata:
    return (("authorization", f"Bearer {token}"),)


@asynccontextmanager
async def evidence_over_grpc(
    toolset: Toolset, home: Path, *, auth: bool = True
) -> AsyncIterator[tuple[pb_grpc.EvidenceStub, Metadata]]:
    """The generated client of a server over `toolset` (bearer auth on unless `auth` is False, the
    loopback-only MCP_AUTH_DISABLED), and a good token's metadata."""
    settings = load_settings(BIO_MCP_HOME=str(home), MCP_AUTH_SECRET_KEY=SECRET, MCP_AUTH_DISABLED=not auth)
    server, port = await start_grpc_server(settings, toolset, "127.0.0.1", 0)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield pb_grpc.EvidenceStub(channel), bearer(mint_token(SECRET))
    finally:
        await server.stop(None)


def comparable(value: Any) -> Any:
    """JSON without latency (the one field two runs of a call may differ in) and without nulls (proto3
    has no null: an unset optional field is the MCP JSON's null)."""
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items() if key != "latency_ms" and item is not None}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def resource_audit_ok(audit: dict[str, Any], arguments: dict[str, Any], mcp: dict[str, Any]) -> bool:
    """The audit a gRPC resource reply carries is seed 003's for these arguments and the MCP JSON."""
    expected = audit_record(arguments, mcp, 0, "ok")
    return (audit["in_hash"], audit["out_hash"], audit["seed"], audit["status"]) == (
        expected.in_hash, expected.out_hash, expected.seed, "ok")
