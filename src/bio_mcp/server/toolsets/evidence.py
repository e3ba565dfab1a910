"""The `evidence` toolset (seed 003): herb knowledge, cited answers, contraindications, ingestion,
evaluation. Every tool carries the seed's audit in its body as well as in `_meta`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec

if TYPE_CHECKING:
    from bio_mcp.server.runtime import Runtime


def evidence_toolset(runtime: Runtime) -> Toolset:
    tools: list[ToolSpec[Any, Any]] = []
    resources: list[ResourceSpec] = []
    return Toolset(name="evidence", tools=tools, resources=resources)
