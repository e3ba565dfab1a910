"""Seed 003's read surfaces over gRPC (`evidence.proto`; stubs generated beside it and committed).

grpcio is the `grpc` extra: `serve_grpc_beside` says how to install it when a gRPC port is asked for
without it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.logs import get_logger, log_event

if TYPE_CHECKING:
    from bio_mcp.config import Settings
    from bio_mcp.server.runtime import Runtime
    from bio_mcp.server.toolset import Toolset

log = get_logger("grpc")
INSTALL_HINT = "pip install 'bio-mcp[grpc]'"


async def serve_grpc_beside(settings: Settings, runtime: Runtime, toolsets: list[Toolset], port: int) -> Any:
    """Starts the gRPC server on MCP_HTTP_HOST:port over the MCP transport's evidence toolset (its
    own when the MCP transport serves none) and returns it (`await server.stop(grace)`)."""
    try:
        from bio_mcp.server.grpc.service import start_grpc_server
    except ImportError as exc:
        if exc.name is not None and not exc.name.startswith(("grpc", "google")):
            raise
        raise BioMcpError(
            ErrorCode.VALIDATION, f"the gRPC server (--grpc-port, BIO_MCP_GRPC_PORT) needs grpcio: {INSTALL_HINT}",
            {"missing": exc.name},
        ) from None
    evidence = next((toolset for toolset in toolsets if toolset.name == "evidence"), None)
    if evidence is None:
        from bio_mcp.server.composition import build_toolsets

        evidence = build_toolsets(runtime, ["evidence"])[0]
    server, bound = await start_grpc_server(settings, evidence, settings.http_host, port)
    log_event(log, logging.INFO, "grpc ready", url=f"{settings.http_host}:{bound}", service="biomcp.evidence.v1.Evidence")
    return server
