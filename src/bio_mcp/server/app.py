"""The MCP server: toolsets registered by name on the official SDK's `MCPServer`.

Tool names: Claude Desktop and claude.ai withhold a server's tools when one name fails
`^[a-zA-Z0-9_-]{1,64}$`, so tools are listed under portable names (each dot of a seed name
becomes an underscore) unless `BIO_MCP_TOOL_NAMES=seed`; a call by either spelling works, and a
call to an unknown tool answers the VALIDATION envelope naming the tools there are.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ConfigDict

from bio_mcp import __version__
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.server.listed_schema import TOOL_SCHEMA_URI, listed_input_schema, listed_output_schema
from bio_mcp.server.prompts import register_prompts
from bio_mcp.server.sampling import current_request
from bio_mcp.server.scratch_pages import scratch_page
from bio_mcp.server.toolset import (
    CallContext,
    ResourceSpec,
    Toolset,
    ToolSpec,
    call_tool,
    error_result,
    negotiated_protocol_version,
)
from bio_mcp.store.scratch import SCRATCH_URI_PREFIX

SERVER_NAME = "bio-mcp"
INSTRUCTIONS = (
    "Evidence-grade access to biomedical literature and trials. Each tool result carries its whole answer "
    "as Markdown text (within a size budget; what was cut is named with a bio-mcp://scratch/ URI to read) "
    "and its data as structured content. Failures return isError with the JSON envelope "
    "{error: {code, message, details}} as text; every result has _meta.audit."
)
PORTABLE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ToolNames = Literal["portable", "seed"]

def portable_name(name: str) -> str:
    return name.replace(".", "_")


def listed_name(name: str, style: ToolNames) -> str:
    return name if style == "seed" else portable_name(name)


@dataclass(frozen=True)
class ServerOptions:
    """Server-wide behaviour the runtime decides: tool name style, legacy names, text budget, the
    scratch resource."""

    tool_names: ToolNames = "portable"
    legacy_tool_names: bool = False
    call_context: CallContext = field(default_factory=CallContext)
    read_scratch: Callable[[str], Awaitable[str]] | None = None


class _RawArguments(ArgModelBase):
    """Hands the arguments through untouched: `call_tool` validates them against the contract,
    so a bad argument becomes the VALIDATION envelope instead of the SDK's plain-text error."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def _as_sdk_tool(spec: ToolSpec[Any, Any], name: str, context: CallContext, legacy_of: str | None = None) -> Tool:
    async def run(arguments: dict[str, Any]) -> CallToolResult:
        return await call_tool(spec, arguments, context)

    description = spec.description if legacy_of is None else f"Legacy name of {legacy_of}. {spec.description}"
    return Tool(
        fn=run,
        name=name,
        title=spec.title,
        description=description,
        parameters=listed_input_schema(spec.input_schema()),
        fn_metadata=FuncMetadata(arg_model=_RawArguments, output_schema=listed_output_schema(spec.output_schema())),
        is_async=True,
        annotations=spec.annotations(),
    )


class BioMcpServer(MCPServer[Any]):
    """`MCPServer` that accepts every spelling of a tool name and answers unknown tools with the envelope."""

    def __init__(self, *args: Any, aliases: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._aliases = aliases

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        started = time.perf_counter()
        listed = self._aliases.get(name)
        if listed is None:
            available = sorted(set(self._aliases.values()))
            error = BioMcpError(ErrorCode.VALIDATION, f"unknown tool {name!r}; available tools: {', '.join(available)}",
                                {"tool": name, "available": available})
            return error_result(arguments, error, started)
        return await super().call_tool(listed, arguments, context)


async def _remember_request(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Resources read the negotiated protocol version; tools that sample read the request."""
    version = negotiated_protocol_version.set(ctx.protocol_version)
    request = current_request.set(ctx)
    try:
        return await call_next(ctx)
    finally:
        current_request.reset(request)
        negotiated_protocol_version.reset(version)


def _as_resource_reader(read: Callable[..., Awaitable[str | bytes]]) -> Callable[..., Awaitable[str]]:
    """Text (JSON) contents, and a missing or failing resource as the SDK's resource error."""

    @functools.wraps(read)
    async def reader(**params: Any) -> str:
        try:
            content = await read(**params)
        except BioMcpError as error:
            if error.code == ErrorCode.NOT_FOUND:
                raise ResourceNotFoundError(error.message) from None
            raise ResourceError(f"{error.code.value}: {error.message}") from None
        return content.decode() if isinstance(content, bytes) else content

    return reader


def scratch_resources(read_scratch: Callable[[str], Awaitable[str]], page_size: int) -> list[ResourceSpec]:
    """A scratch text's first page (the whole text when it fits one) and its further pages."""

    async def first_page(scratch_id: str) -> str:
        return scratch_page(await read_scratch(scratch_id), scratch_id, 1, page_size)

    async def nth_page(scratch_id: str, page: str) -> str:
        if not page.isdigit():
            raise BioMcpError(ErrorCode.NOT_FOUND, f"no page {page!r}: pages are numbered from 1")
        return scratch_page(await read_scratch(scratch_id), scratch_id, int(page), page_size)

    return [
        ResourceSpec(
            SCRATCH_URI_PREFIX + "{scratch_id}", "scratchText",
            "The full text of a tool result part that was too large to return inline (named in that result); "
            "a text longer than a result's budget is served in pages, each ending with a line naming the next",
            "text/plain", first_page,
        ),
        ResourceSpec(
            SCRATCH_URI_PREFIX + "{scratch_id}/{page}", "scratchTextPage",
            "Page n (from 1) of a scratch text that is served in pages", "text/plain", nth_page,
        ),
    ]


def tool_schema_resource(specs: Sequence[ToolSpec[Any, Any]], style: ToolNames) -> ResourceSpec:
    """Each tool's full input and output schemas, with every field's description (the listing's are
    compacted: `listed_schema.py`), by any of the tool's names."""
    by_name = {alias: spec for spec in specs for alias in (spec.name, portable_name(spec.name), *spec.legacy_names)}

    async def read(name: str) -> str:
        spec = by_name.get(name)
        if spec is None:
            raise BioMcpError(ErrorCode.NOT_FOUND, f"no tool {name!r}; tools/list names them")
        return json.dumps({"name": listed_name(spec.name, style), "inputSchema": spec.input_schema(),
                           "outputSchema": spec.output_schema()}, ensure_ascii=False)

    return ResourceSpec(TOOL_SCHEMA_URI, "toolSchema",
                        "A tool's full input and output schemas, with the description of every result field",
                        "application/json", read)


def _tool_names(specs: Sequence[ToolSpec[Any, Any]], options: ServerOptions) -> tuple[list[tuple[ToolSpec[Any, Any], str, str | None]], dict[str, str]]:
    """The tools to list (spec, listed name, the name it is a legacy name of) and every accepted
    spelling with the listed name it calls."""
    listed: list[tuple[ToolSpec[Any, Any], str, str | None]] = []
    aliases: dict[str, str] = {}
    for spec in specs:
        name = listed_name(spec.name, options.tool_names)
        listed.append((spec, name, None))
        aliases |= {spec.name: name, portable_name(spec.name): name}
        for legacy in spec.legacy_names:
            if options.legacy_tool_names:
                listed.append((spec, legacy, name))
                aliases[legacy] = legacy
            else:
                aliases[legacy] = name
    return listed, aliases


def build_server(
    toolsets: Sequence[Toolset],
    *,
    options: ServerOptions | None = None,
    auth: AuthSettings | None = None,
    token_verifier: TokenVerifier | None = None,
) -> MCPServer[Any]:
    options = options or ServerOptions()
    specs = [spec for toolset in toolsets for spec in toolset.tools]
    listed, aliases = _tool_names(specs, options)
    tools = [_as_sdk_tool(spec, name, options.call_context, legacy_of) for spec, name, legacy_of in listed]
    server = BioMcpServer(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        auth=auth,
        token_verifier=token_verifier,
        warn_on_duplicate_tools=True,
        aliases=aliases,
        middleware=[_remember_request],
    )
    resources = [resource for toolset in toolsets for resource in toolset.resources]
    resources.append(tool_schema_resource(specs, options.tool_names))
    if options.read_scratch is not None:
        resources += scratch_resources(options.read_scratch, options.call_context.text_budget)
    for resource in resources:
        server.resource(
            resource.uri, name=resource.name, description=resource.description, mime_type=resource.mime_type
        )(_as_resource_reader(resource.read))
    register_prompts(server, {spec.name: listed_name(spec.name, options.tool_names) for spec in specs})
    return server
