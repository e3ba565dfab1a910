"""How a feature function becomes an MCP tool: contract validation, error envelope, audit.

A `ToolSpec` names a pure async feature function with its pydantic input and output models.
`call_tool` is the one wrapper every tool goes through: it validates the arguments against the
contract, runs the function under a correlation id, maps any `BioMcpError` (and anything
unexpected) to seed 000's error envelope, and attaches `_meta.audit` (seed 003).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
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

log = get_logger("tools")

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=ToolOutput)

# Text content is for a person skimming a transcript; structured content carries the data.
MAX_TEXT_CHARS = 1500


@dataclass(frozen=True)
class ToolSpec(Generic[InT, OutT]):
    name: str
    description: str
    input_model: type[InT]
    output_model: type[OutT]
    run: Callable[[InT], Awaitable[OutT]]
    summarize: Callable[[OutT], str]
    # Seed 003 tools carry the audit in their body as well as in _meta.
    audit_in_body: bool = False
    read_only: bool = True
    title: str | None = None

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema(by_alias=True)

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.json_schema()

    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title, read_only_hint=self.read_only, destructive_hint=False,
            idempotent_hint=True, open_world_hint=True,
        )


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


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1] + "…"


def error_result(spec: ToolSpec[Any, Any], arguments: Any, error: BioMcpError, started: float) -> CallToolResult:
    envelope = error.envelope()
    audit = audit_record(arguments, envelope, (time.perf_counter() - started) * 1000, "error")
    return CallToolResult(
        content=[TextContent(type="text", text=_short(json.dumps(envelope, ensure_ascii=False)))],
        structured_content=envelope,
        is_error=True,
        _meta={"audit": audit.model_dump()},
    )


async def call_tool(spec: ToolSpec[Any, Any], arguments: dict[str, Any]) -> CallToolResult:
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
            return CallToolResult(
                content=[TextContent(type="text", text=_short(spec.summarize(output)))],
                structured_content=body,
                _meta={"audit": audit.model_dump(), "correlation_id": cid},
            )
        except BioMcpError as error:
            log_event(log, INFO, "tool error", tool=spec.name, code=error.code.value, message=error.message)
            return error_result(spec, arguments, error, started)
        except Exception as exc:  # the last line of defence: a client never sees a stack trace
            log.log(ERROR, "tool crashed", exc_info=exc, extra={"fields": {"tool": spec.name}})
            unknown = BioMcpError(ErrorCode.UNKNOWN, f"{spec.name} failed unexpectedly; see the server log",
                                  {"correlation_id": cid})
            return error_result(spec, arguments, unknown, started)
