"""How a feature function becomes an MCP tool: contract validation, error envelope, audit.

A `ToolSpec` names a pure async feature function with its pydantic input and output models.
`call_tool` is the one wrapper every tool goes through: it validates the arguments against the
contract, runs the function under a correlation id, maps any `BioMcpError` (and anything
unexpected) to seed 000's error envelope, and attaches `_meta.audit` (seed 003).

The text content carries the whole answer as Markdown (the tool's `summarize`, else the generic
JSON renderer) within the text budget; a failed call carries the envelope as JSON text and in
`_meta.error`, never as structured content, which would violate the tool's output schema.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from logging import ERROR, INFO
from typing import Any, Generic, TypeVar

from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ValidationError

from bio_mcp.audit import audit_record
from bio_mcp.errors import BioMcpError, ErrorCode, validation_error_details
from bio_mcp.input_schema import schema_violations
from bio_mcp.logs import correlation_scope, get_logger, log_event
from bio_mcp.models import ToolOutput
from bio_mcp.server.markdown import ScratchPut, fit_text, render_json

log = get_logger("tools")

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=ToolOutput)

DEFAULT_TEXT_BUDGET = 65_536
# The protocol version negotiated with the client of the request being served (the server sets it;
# resources read it).
negotiated_protocol_version: ContextVar[str | None] = ContextVar("negotiated_protocol_version", default=None)


@dataclass(frozen=True)
class CallContext:
    """What every call shares: the text budget (characters) and where overflow goes."""

    text_budget: int = DEFAULT_TEXT_BUDGET
    put_scratch: ScratchPut | None = None


@dataclass(frozen=True)
class ToolSpec(Generic[InT, OutT]):
    name: str
    description: str
    input_model: type[InT]
    output_model: type[OutT]
    run: Callable[[InT], Awaitable[OutT]]
    # Renders the whole result as compact Markdown; None uses the generic JSON renderer.
    summarize: Callable[[OutT], str] | None = None
    # Seed 003 tools carry the audit in their body as well as in _meta.
    audit_in_body: bool = False
    read_only: bool = True
    title: str | None = None
    # False for tools that touch only local state (the corpus, the graph, caches).
    open_world: bool = True
    # A seed's older names of the same tool: calls by them always work; they are listed as tools of
    # their own only when the server lists legacy names (BIO_MCP_LEGACY_TOOL_NAMES).
    legacy_names: tuple[str, ...] = ()

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema(by_alias=True)

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.json_schema()

    def annotations(self) -> ToolAnnotations:
        # The title is the tool's own (`Tool.title`); a second copy here would cost every listing.
        # The destructive and idempotent hints mean something only for a tool that writes (the spec).
        writes = not self.read_only
        return ToolAnnotations(
            read_only_hint=self.read_only, destructive_hint=False if writes else None,
            idempotent_hint=True if writes else None, open_world_hint=self.open_world,
        )

    def render(self, output: OutT, body: dict[str, Any]) -> str:
        if self.summarize is not None:
            return self.summarize(output)
        return render_json(body, self.title or self.name)


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    name: str
    description: str
    mime_type: str
    read: Callable[..., Awaitable[str | bytes]]


@dataclass
class Toolset:
    name: str
    tools: list[ToolSpec[Any, Any]] = field(default_factory=list)
    resources: list[ResourceSpec] = field(default_factory=list)


def error_result(
    arguments: Any, error: BioMcpError, started: float, correlation_id: str | None = None, audit_in_body: bool = False
) -> CallToolResult:
    """isError with the envelope as JSON text and in `_meta.error`; no structured content.

    Seed 003's tools also put the audit beside the error in the text: `{"error": ..., "audit": ...}`.
    """
    envelope = error.envelope()
    audit = audit_record(arguments, envelope, (time.perf_counter() - started) * 1000, "error")
    meta: dict[str, Any] = {"audit": audit.model_dump(), "error": envelope["error"]}
    if correlation_id:
        meta["correlation_id"] = correlation_id
    text = {**envelope, "audit": audit.model_dump()} if audit_in_body else envelope
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(text, ensure_ascii=False))],
        is_error=True,
        _meta=meta,
    )


async def call_tool(
    spec: ToolSpec[Any, Any], arguments: dict[str, Any], context: CallContext | None = None
) -> CallToolResult:
    context = context or CallContext()
    started = time.perf_counter()
    with correlation_scope() as cid:
        try:
            violations = schema_violations(spec.input_model, arguments)
            if violations:
                raise BioMcpError(ErrorCode.VALIDATION, f"invalid arguments for {spec.name}", violations)
            try:
                request = spec.input_model.model_validate(arguments)
            except ValidationError as exc:
                raise BioMcpError(
                    ErrorCode.VALIDATION, f"invalid arguments for {spec.name}", validation_error_details(exc)
                ) from None
            output = await spec.run(request)
            body = output.to_json()
            audit = audit_record(arguments, body, (time.perf_counter() - started) * 1000, "ok")
            if spec.audit_in_body:
                body["audit"] = audit.model_dump()
            log_event(log, INFO, "tool ok", tool=spec.name, latency_ms=audit.latency_ms, in_hash=audit.in_hash)
            text = await fit_text(spec.render(output, body), context.text_budget, context.put_scratch)
            return CallToolResult(
                content=[TextContent(type="text", text=text)],
                structured_content=body,
                _meta={"audit": audit.model_dump(), "correlation_id": cid},
            )
        except BioMcpError as error:
            log_event(log, INFO, "tool error", tool=spec.name, code=error.code.value, message=error.message)
            return error_result(arguments, error, started, cid, spec.audit_in_body)
        except Exception as exc:  # the last line of defence: a client never sees a stack trace
            log.log(ERROR, "tool crashed", exc_info=exc, extra={"fields": {"tool": spec.name}})
            unknown = BioMcpError(ErrorCode.UNKNOWN, f"{spec.name} failed unexpectedly; see the server log",
                                  {"correlation_id": cid})
            return error_result(arguments, unknown, started, cid, spec.audit_in_body)
