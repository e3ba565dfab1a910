"""The `Evidence` gRPC service (evidence.proto): seed 003's read surfaces on grpc.aio.

Every call goes through what the MCP transport uses, so both answer alike: a tool's through
`call_tool` (contract validation, the error envelope, the audit), a resource's through its reader
with the same audit added. Bearer tokens come as call metadata (`authorization: Bearer <token>`) and
are checked by the HTTP transport's verifier; a failure is a gRPC status whose details are the MCP
error text: `{"error": {"code", "message", "details"}, "audit": {...}}`.
"""

from __future__ import annotations

import json
import time
from logging import ERROR, INFO
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf.message import Message

from bio_mcp.audit import audit_record
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.evidence.evaluation import REPORT_JSON_URI
from bio_mcp.features.evidence.herbs import HERB_URI
from bio_mcp.features.evidence.papers import PAPER_URI
from bio_mcp.logs import get_logger, log_event
from bio_mcp.server.auth import DEFAULT_SCOPES, JwtVerifier
from bio_mcp.server.grpc import evidence_pb2 as pb
from bio_mcp.server.grpc import evidence_pb2_grpc as pb_grpc
from bio_mcp.server.grpc.messages import arguments_of, message_of
from bio_mcp.server.http import is_loopback
from bio_mcp.server.toolset import CallContext, Toolset, call_tool

log = get_logger("grpc")

M = TypeVar("M", bound=Message)

STATUS_OF = {
    ErrorCode.VALIDATION: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorCode.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ErrorCode.RATE_LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ErrorCode.UPSTREAM: grpc.StatusCode.UNAVAILABLE,
    ErrorCode.ENTREZ: grpc.StatusCode.UNAVAILABLE,
    ErrorCode.WEAVIATE: grpc.StatusCode.UNAVAILABLE,
    ErrorCode.STORE: grpc.StatusCode.INTERNAL,
    ErrorCode.EMBEDDINGS: grpc.StatusCode.INTERNAL,
    ErrorCode.INVARIANT_FAILURE: grpc.StatusCode.INTERNAL,
    ErrorCode.UNKNOWN: grpc.StatusCode.UNKNOWN,
}
# Where the audit of a failed call also travels, beside the details (trailing metadata).
AUDIT_METADATA = "bio-mcp-audit"


def status_of(code: str) -> grpc.StatusCode:
    return STATUS_OF.get(ErrorCode(code), grpc.StatusCode.UNKNOWN)


class EvidenceService(pb_grpc.EvidenceServicer):
    """One servicer per server over the evidence toolset the MCP transport serves."""

    def __init__(self, toolset: Toolset, verifier: JwtVerifier | None) -> None:
        self._tools = {spec.name: spec for spec in toolset.tools}
        self._resources = {resource.uri: resource for resource in toolset.resources}
        self._verifier = verifier
        # The text rendering of a result is the MCP client's; no scratch store is written for it here.
        self._context = CallContext(put_scratch=None)

    async def GetHerb(self, request: pb.HerbRequest, context: grpc.aio.ServicerContext) -> pb.Herb:
        return await self._resource(HERB_URI, "id", request, context, pb.Herb)

    async def GetPaper(self, request: pb.PaperRequest, context: grpc.aio.ServicerContext) -> pb.Paper:
        return await self._resource(PAPER_URI, "pmid", request, context, pb.Paper)

    async def GetEvalReport(self, request: pb.EvalReportRequest, context: grpc.aio.ServicerContext) -> pb.EvalReport:
        return await self._resource(REPORT_JSON_URI, "report_id", request, context, pb.EvalReport)

    async def QueryKg(self, request: pb.QueryKgRequest, context: grpc.aio.ServicerContext) -> pb.QueryKgResponse:
        return await self._tool("tool.query_kg", request, context, pb.QueryKgResponse)

    async def HybridSearch(
        self, request: pb.HybridSearchRequest, context: grpc.aio.ServicerContext
    ) -> pb.HybridSearchResponse:
        return await self._tool("tool.hybrid_search", request, context, pb.HybridSearchResponse)

    async def RagAnswer(self, request: pb.RagAnswerRequest, context: grpc.aio.ServicerContext) -> pb.RagAnswerResponse:
        return await self._tool("tool.rag_answer", request, context, pb.RagAnswerResponse)

    async def FindContraindications(
        self, request: pb.FindContraindicationsRequest, context: grpc.aio.ServicerContext
    ) -> pb.FindContraindicationsResponse:
        return await self._tool("tool.find_contraindications", request, context, pb.FindContraindicationsResponse)

    async def EvalRun(self, request: pb.EvalRunRequest, context: grpc.aio.ServicerContext) -> pb.EvalRunResponse:
        return await self._tool("tool.eval.run", request, context, pb.EvalRunResponse)

    async def _authorize(self, context: grpc.aio.ServicerContext) -> None:
        if self._verifier is None:
            return
        metadata = {key.lower(): value for key, value in context.invocation_metadata() or ()}
        scheme, _, token = str(metadata.get("authorization", "")).partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "authentication required: send the metadata 'authorization: Bearer <token>'")
        access = await self._verifier.verify_token(token.strip())
        if access is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid or expired bearer token")
        missing = sorted(set(DEFAULT_SCOPES) - set(access.scopes))
        if missing:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"the token lacks the scope(s) {', '.join(missing)}")

    async def _tool(self, name: str, request: Message, context: grpc.aio.ServicerContext, reply: type[M]) -> M:
        await self._authorize(context)
        spec = self._tools[name]
        started = time.perf_counter()
        arguments = arguments_of(request)
        result = await call_tool(spec, arguments, self._context)
        meta = result.meta or {}
        if result.is_error:
            await _abort(context, meta["error"], meta["audit"], name)
        body = result.structured_content or {}
        try:
            return message_of(body, reply)
        except (TypeError, ValueError) as exc:  # a result the proto cannot hold: test_grpc_fields's drift
            log.log(ERROR, "grpc reply does not fit its message", exc_info=exc, extra={"fields": {"tool": name}})
            envelope = BioMcpError(ErrorCode.UNKNOWN, f"{name}'s result does not fit {reply.DESCRIPTOR.full_name}; "
                                   "see the server log").envelope()
            audit = audit_record(arguments, envelope, (time.perf_counter() - started) * 1000, "error")
            await _abort(context, envelope["error"], audit.model_dump(), name)

    async def _resource(
        self, uri: str, parameter: str, request: Message, context: grpc.aio.ServicerContext, reply: type[M]
    ) -> M:
        await self._authorize(context)
        started = time.perf_counter()
        arguments = arguments_of(request)
        value = str(arguments.get(parameter, ""))
        try:
            if not value.strip():
                raise BioMcpError(ErrorCode.VALIDATION, f"{parameter} is required", {"field": parameter})
            body: dict[str, Any] = json.loads(await self._resources[uri].read(**{parameter: value}))
            audit = audit_record(arguments, body, (time.perf_counter() - started) * 1000, "ok")
            message = message_of({**body, "audit": audit.model_dump()}, reply)
        except BioMcpError as error:
            failure = error
        except Exception as exc:  # as call_tool: a client never sees a stack trace
            log.log(ERROR, "grpc read crashed", exc_info=exc, extra={"fields": {"resource": uri}})
            failure = BioMcpError(ErrorCode.UNKNOWN, f"reading {uri} failed unexpectedly; see the server log")
        else:
            log_event(log, INFO, "grpc read ok", resource=uri, latency_ms=audit.latency_ms, in_hash=audit.in_hash)
            return message
        envelope = failure.envelope()
        audit = audit_record(arguments, envelope, (time.perf_counter() - started) * 1000, "error")
        await _abort(context, envelope["error"], audit.model_dump(), uri)


async def _abort(context: grpc.aio.ServicerContext, error: dict[str, Any], audit: dict[str, Any], what: str) -> NoReturn:
    log_event(log, INFO, "grpc error", call=what, code=error["code"], message=error["message"])
    audit_text = json.dumps(audit, sort_keys=True)
    details = json.dumps({"error": error, "audit": audit}, ensure_ascii=False, default=str)
    context.set_trailing_metadata(((AUDIT_METADATA, audit_text),))
    await context.abort(status_of(error["code"]), details)


def grpc_verifier(settings: Settings, host: str) -> JwtVerifier | None:
    """The HTTP transport's rules: bearer tokens required, unless MCP_AUTH_DISABLED on a loopback address."""
    if settings.auth_disabled:
        if not is_loopback(host):
            raise BioMcpError(ErrorCode.VALIDATION,
                              f"MCP_AUTH_DISABLED is only allowed on a loopback address, not {host}")
        log.warning(f"AUTHENTICATION IS DISABLED (MCP_AUTH_DISABLED=true): anyone who can reach the gRPC port on "
                    f"{host} can call every surface. Development use only.")
        return None
    if not settings.auth_secret_key and not settings.auth_jwks_url:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            "the gRPC server requires bearer auth: set MCP_AUTH_SECRET_KEY (>= 32 chars) or MCP_AUTH_JWKS_URL; "
            "for loopback development only, MCP_AUTH_DISABLED=true",
        )
    return JwtVerifier(settings.auth_secret_key, settings.auth_jwks_url, settings.auth_audience, settings.auth_issuer,
                       max_lifetime_s=settings.auth_max_token_lifetime_s)


async def start_grpc_server(settings: Settings, toolset: Toolset, host: str, port: int) -> tuple[grpc.aio.Server, int]:
    """Serves `toolset` (the evidence toolset) on host:port (0: any free port); returns the server and its port."""
    server = grpc.aio.server()
    pb_grpc.add_EvidenceServicer_to_server(EvidenceService(toolset, grpc_verifier(settings, host)), server)
    try:
        bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError:  # grpcio raises where it once returned 0
        bound = 0
    if bound == 0:
        raise BioMcpError(ErrorCode.VALIDATION, f"the gRPC server could not listen on {host}:{port} (in use?)",
                          {"host": host, "port": port})
    await server.start()
    return server, bound
