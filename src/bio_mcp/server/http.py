"""The Streamable HTTP transport: /mcp (and /_mcp), bearer JWTs, Origin and Host checks, CORS, /healthz;
beside MCP, seed 003's GraphQL read surface at /graphql and the evidence page at /ui built on it.

Stateless Streamable HTTP, so any replica behind a load balancer can serve any request. Bearer
authentication is mandatory; the only opt-out (MCP_AUTH_DISABLED=true) is refused unless the
server listens on a loopback address, and it is announced on every start.

OAuth metadata: this server is never an authorization server. With static bearer tokens it
advertises nothing (a client then just sends its token). With an external issuer
(MCP_AUTH_ISSUER) it serves RFC 9728 protected-resource metadata naming that issuer, at
`/.well-known/oauth-protected-resource/mcp` (and at the bare well-known path), and every 401
carries the `resource_metadata` hint, so an OAuth client (the Inspector's, Claude's) can find it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.logs import get_logger
from bio_mcp.server.app import ServerOptions, build_server
from bio_mcp.server.auth import DEFAULT_SCOPES, JwtVerifier
from bio_mcp.server.graphql.endpoint import GRAPHQL_PATH, GraphQLEndpoint
from bio_mcp.server.graphql.schema import build_schema
from bio_mcp.server.legacy_rest import legacy_routes
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.ui.pages import UI_PATH, evidence_page

log = get_logger("http")

MCP_PATH = "/mcp"
MCP_ALIAS = "/_mcp"  # seed 002's path, served by the same endpoint
PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class PathAlias:
    """Serves `alias` exactly as `target`."""

    def __init__(self, app: ASGIApp, alias: str, target: str) -> None:
        self.app = app
        self.alias = alias
        self.target = target

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].rstrip("/") == self.alias:
            scope = {**scope, "path": self.target, "raw_path": self.target.encode()}
        await self.app(scope, receive, send)


class PathMounts:
    """Serves each path prefix of `mounts` by its own app (the prefix as its root_path, as Starlette's
    Mount does) and everything else, lifespan included, by `app`."""

    def __init__(self, app: ASGIApp, mounts: dict[str, ASGIApp]) -> None:
        self.app = app
        self.mounts = mounts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for prefix, mounted in self.mounts.items():
                path = scope["path"]
                if path == prefix or path.startswith(prefix + "/"):
                    await mounted({**scope, "root_path": scope.get("root_path", "") + prefix}, receive, send)
                    return
        await self.app(scope, receive, send)


def _allowed_hosts(settings: Settings) -> list[str]:
    hosts = [f"{settings.http_host}:{settings.http_port}", "127.0.0.1:*", "localhost:*", "[::1]:*"]
    return hosts + settings.allowed_hosts


def public_base_url(settings: Settings) -> str:
    return settings.public_url or f"http://{settings.http_host}:{settings.http_port}"


def auth_settings(settings: Settings) -> AuthSettings:
    """Resource-server settings: protected-resource metadata only when an external issuer exists."""
    resource = f"{public_base_url(settings)}{MCP_PATH}"
    return AuthSettings(
        # Required by the SDK's model; published only through the protected-resource metadata.
        issuer_url=settings.auth_issuer or public_base_url(settings),
        resource_server_url=resource if settings.auth_issuer else None,
        required_scopes=list(DEFAULT_SCOPES),
        # The verifier checks the audience itself (MCP_AUTH_AUDIENCE).
        validate_token_resource=False,
    )


def build_http_app(settings: Settings, toolsets: Sequence[Toolset], options: ServerOptions | None = None) -> ASGIApp:
    base_url = public_base_url(settings)
    if settings.auth_disabled:
        if not is_loopback(settings.http_host):
            raise BioMcpError(
                ErrorCode.VALIDATION,
                f"MCP_AUTH_DISABLED is only allowed on a loopback address, not {settings.http_host}",
            )
        log.warning(
            "AUTHENTICATION IS DISABLED (MCP_AUTH_DISABLED=true): anyone who can reach "
            f"{base_url}{MCP_PATH} can call every tool. Development use only."
        )
        server = build_server(toolsets, options=options)
        verifier: JwtVerifier | None = None
    else:
        if not settings.auth_secret_key and not settings.auth_jwks_url:
            raise BioMcpError(
                ErrorCode.VALIDATION,
                "the HTTP transport requires bearer auth: set MCP_AUTH_SECRET_KEY (>= 32 chars) or "
                "MCP_AUTH_JWKS_URL; for loopback development only, MCP_AUTH_DISABLED=true",
            )
        verifier = JwtVerifier(
            settings.auth_secret_key, settings.auth_jwks_url, settings.auth_audience, settings.auth_issuer,
            max_lifetime_s=settings.auth_max_token_lifetime_s,
        )
        server = build_server(toolsets, options=options, auth=auth_settings(settings), token_verifier=verifier)

    @server.custom_route("/healthz", methods=["GET"])
    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__})

    if settings.http_legacy_rest_enabled:
        for route in legacy_routes(toolsets, verifier):
            server.custom_route(route.path, methods=sorted(route.methods or []))(route.endpoint)

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=_allowed_hosts(settings),
        allowed_origins=settings.allowed_origins,
    )
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=settings.http_json_response,
        stateless_http=True,
        transport_security=security,
        host=settings.http_host,
    )
    aliased: ASGIApp = PathAlias(app, MCP_ALIAS, MCP_PATH)
    schema = build_schema(toolsets)
    if schema is not None:
        aliased = PathMounts(aliased, {GRAPHQL_PATH: GraphQLEndpoint(schema, security, verifier),
                                       UI_PATH: evidence_page()})
    if settings.auth_issuer and not settings.auth_disabled:
        aliased = PathAlias(aliased, PROTECTED_RESOURCE_PATH, PROTECTED_RESOURCE_PATH + MCP_PATH)
    cors = CORSMiddleware(
        aliased,
        allow_origins=settings.allowed_origins,
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID"],
        expose_headers=["Mcp-Session-Id"],
    )
    return cors
