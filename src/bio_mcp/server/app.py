"""The MCP server: toolsets registered by name on the official SDK's `MCPServer`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult
from pydantic import ConfigDict

from bio_mcp import __version__
from bio_mcp.server.toolset import ToolSpec, Toolset, call_tool

SERVER_NAME = "bio-mcp"
INSTRUCTIONS = (
    "Evidence-grade access to biomedical literature and trials. Tool results carry their data in "
    "structured content; the text content is a short summary. Failures return isError with an "
    "envelope {error: {code, message, details}}; every result has _meta.audit."
)


class _RawArguments(ArgModelBase):
    """Hands the arguments through untouched: `call_tool` validates them against the contract,
    so a bad argument becomes the VALIDATION envelope instead of the SDK's plain-text error."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def _as_sdk_tool(spec: ToolSpec[Any, Any]) -> Tool:
    async def run(arguments: dict[str, Any]) -> CallToolResult:
        return await call_tool(spec, arguments)

    return Tool(
        fn=run,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        parameters=spec.input_schema(),
        fn_metadata=FuncMetadata(arg_model=_RawArguments, output_schema=spec.output_schema()),
        is_async=True,
        annotations=spec.annotations(),
    )


def build_server(
    toolsets: Sequence[Toolset],
    *,
    auth: AuthSettings | None = None,
    token_verifier: TokenVerifier | None = None,
) -> MCPServer[Any]:
    tools = [_as_sdk_tool(spec) for toolset in toolsets for spec in toolset.tools]
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        auth=auth,
        token_verifier=token_verifier,
        warn_on_duplicate_tools=True,
    )
    for toolset in toolsets:
        for resource in toolset.resources:
            server.resource(
                resource.uri, name=resource.name, description=resource.description, mime_type=resource.mime_type
            )(resource.read)
    return server
