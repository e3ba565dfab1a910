"""Seed 002's legacy REST surface, behind MCP_HTTP_LEGACY_REST_ENABLED: `GET /mcp/tools` lists the
tools, `POST /mcp/tools/{name}` calls one with a JSON object of arguments.

Every answer carries `Deprecation: true`, a `Warning: 299` naming the Streamable HTTP endpoint to
move to, and a `Link` to it. Calls go through the same `call_tool` as MCP (contract validation,
error envelope, audit), and need the same bearer token as `/mcp` unless auth is disabled.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bio_mcp.server.auth import JwtVerifier
from bio_mcp.server.toolset import Toolset, ToolSpec, call_tool

LEGACY_PREFIX = "/mcp/tools"
SUCCESSOR = "/_mcp"
DEPRECATION_HEADERS = {
    "Deprecation": "true",
    "Warning": f'299 bio-mcp "The /mcp/tools REST API is deprecated; use the Streamable HTTP MCP endpoint {SUCCESSOR}"',
    "Link": f'<{SUCCESSOR}>; rel="successor-version"',
}


def _answer(body: Any, status: int = 200, **headers: str) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={**DEPRECATION_HEADERS, **headers})


def _error(code: str, message: str, status: int, **headers: str) -> JSONResponse:
    return _answer({"error": {"code": code, "message": message, "details": None}}, status, **headers)


def legacy_routes(toolsets: Sequence[Toolset], verifier: JwtVerifier | None) -> list[Route]:
    """The REST routes over `toolsets`' tools; `verifier` None means auth is disabled."""
    # The seeds' legacy tool names (search_documentation) are this surface's own: always listed here.
    specs: dict[str, ToolSpec[Any, Any]] = {
        name: spec for toolset in toolsets for spec in toolset.tools for name in (spec.name, *spec.legacy_names)
    }

    async def authorised(request: Request) -> JSONResponse | None:
        if verifier is None:
            return None
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token or await verifier.verify_token(token.strip()) is None:
            return _error("UNAUTHORIZED", "a valid bearer token is required", 401, **{"WWW-Authenticate": "Bearer"})
        return None

    async def list_tools(request: Request) -> JSONResponse:
        denied = await authorised(request)
        if denied is not None:
            return denied
        return _answer({"tools": [
            {"name": name, "title": spec.title, "description": spec.description,
             "inputSchema": spec.input_schema(), "outputSchema": spec.output_schema()}
            for name, spec in specs.items()
        ]})

    async def call(request: Request) -> JSONResponse:
        denied = await authorised(request)
        if denied is not None:
            return denied
        name = request.path_params["name"]
        spec = specs.get(name)
        if spec is None:
            return _error("NOT_FOUND", f"no tool {name!r}; GET {LEGACY_PREFIX} lists them", 404)
        try:
            arguments = json.loads(await request.body() or b"{}")
        except ValueError:
            return _error("VALIDATION", "the request body must be a JSON object of arguments", 400)
        if not isinstance(arguments, dict):
            return _error("VALIDATION", "the request body must be a JSON object of arguments", 400)
        result = await call_tool(spec, arguments)
        body = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return _answer(body, 200)

    return [
        Route(LEGACY_PREFIX, list_tools, methods=["GET"]),
        Route(LEGACY_PREFIX + "/{name}", call, methods=["POST"]),
    ]
