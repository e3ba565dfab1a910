"""The composition root: a process's `Runtime` (its settings and shared clients) turned into the
toolsets it serves and the server-wide options. The one place that knows every toolset by name
(`config.TOOLSETS` lists the same names for validating settings; a test keeps the two equal), so
the runtime knows no toolset and a toolset knows no transport."""

from __future__ import annotations

from collections.abc import Callable

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.server.app import ServerOptions
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import CallContext, Toolset
from bio_mcp.server.toolsets.analyst import analyst_toolset
from bio_mcp.server.toolsets.corpus import corpus_toolset
from bio_mcp.server.toolsets.evidence import evidence_toolset
from bio_mcp.server.toolsets.kb import kb_toolset
from bio_mcp.server.toolsets.pubmed import pubmed_toolset

# A later toolset plugs in with one line here (and its name in config.TOOLSETS).
FACTORIES: dict[str, Callable[[Runtime], Toolset]] = {
    "pubmed": pubmed_toolset,
    "corpus": corpus_toolset,
    "analyst": analyst_toolset,
    "kb": kb_toolset,
    "evidence": evidence_toolset,
}


def build_toolsets(runtime: Runtime, names: list[str] | None = None) -> list[Toolset]:
    """The toolsets `names` asks for (default: the settings' BIO_MCP_TOOLSETS), over `runtime`'s clients."""
    chosen = names or runtime.settings.toolsets
    unknown = [name for name in chosen if name not in FACTORIES]
    if unknown:
        raise BioMcpError(ErrorCode.VALIDATION, f"unknown toolset(s) {unknown}; available: {sorted(FACTORIES)}")
    return [FACTORIES[name](runtime) for name in chosen]


def server_options(runtime: Runtime) -> ServerOptions:
    """Tool name style, legacy names, the text budget and the scratch resource, from the settings."""
    settings = runtime.settings
    return ServerOptions(
        tool_names=settings.tool_names,
        legacy_tool_names=settings.legacy_tool_names or settings.http_legacy_rest_enabled,
        call_context=CallContext(settings.text_budget, runtime.put_scratch),
        read_scratch=runtime.read_scratch,
    )
