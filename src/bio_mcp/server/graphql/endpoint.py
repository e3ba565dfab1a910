"""`/graphql` on the HTTP transport: POST only, behind the same Host and Origin checks and bearer
tokens as `/mcp`.

The evidence page at `/ui` is served by this same server, so its own origin (the validated Host)
is accepted beside MCP_ALLOWED_ORIGINS. No IDE is served: GraphiQL loads from a CDN, and the
machines this runs on may have no internet.
"""

from __future__ import annotations

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry import Schema
from strawberry.asgi import GraphQL

from bio_mcp.server.auth import JwtVerifier

GRAPHQL_PATH = "/graphql"


def _denied(message: str, status: int, **headers: str) -> JSONResponse:
    return JSONResponse({"errors": [{"message": message}]}, status_code=status, headers=headers)


class GraphQLEndpoint:
    """The strawberry ASGI app behind the transport's checks; `verifier` None means auth is disabled."""

    def __init__(self, schema: Schema, security: TransportSecuritySettings, verifier: JwtVerifier | None) -> None:
        self.app: ASGIApp = GraphQL(schema, graphql_ide=None, allow_queries_via_get=False)
        self.security = security
        self.verifier = verifier

    def _checks(self, request: Request) -> TransportSecurityMiddleware:
        host = request.headers.get("host", "")
        own = [f"{request.url.scheme}://{host}"] if host else []
        return TransportSecurityMiddleware(self.security.model_copy(
            update={"allowed_origins": [*self.security.allowed_origins, *own]}))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if request.method != "POST":
            await _denied("POST a GraphQL request as JSON", 405, Allow="POST")(scope, receive, send)
            return
        refused = await self._checks(request).validate_request(request, is_post=True)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if self.verifier is not None:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not token or await self.verifier.verify_token(token.strip()) is None:
                await _denied("a valid bearer token is required", 401, **{"WWW-Authenticate": "Bearer"})(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)
