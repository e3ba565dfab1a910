"""The tool registry (seed 004 §3.3): versions, p95 and rate caps per tool, frozen per release.

It is a data file so a release pins it; its version and the tool versions go into every
checkpoint_id, so a changed registry cannot be mistaken for an unchanged answer.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bio_mcp.errors import BioMcpError, ErrorCode

REGISTRY_PATH = Path(__file__).with_name("registry.json")


class ToolSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    source: str
    p95_ms: int = Field(gt=0)
    rps_cap: float = Field(gt=0)


class Registry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    registry_version: str
    map_concurrency: int = Field(default=4, ge=1, le=64)
    tools: dict[str, ToolSpec]

    def tool(self, name: str) -> ToolSpec:
        spec = self.tools.get(name)
        if spec is None:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, f"tool {name!r} is not in the registry", {"tools": sorted(self.tools)})
        return spec

    def source_rps(self, source: str) -> float:
        """The tightest cap of the source's tools: they share one upstream, so one limit."""
        caps = [spec.rps_cap for spec in self.tools.values() if spec.source == source]
        if not caps:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, f"no tool of source {source!r} in the registry")
        return min(caps)

    def sources(self) -> list[str]:
        return sorted({spec.source for spec in self.tools.values()})

    def tool_versions(self) -> dict[str, str]:
        return {name: spec.version for name, spec in sorted(self.tools.items())}


@lru_cache(maxsize=4)
def load_registry(path: Path = REGISTRY_PATH) -> Registry:
    try:
        return Registry.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise BioMcpError(ErrorCode.INVARIANT_FAILURE, f"cannot load the tool registry at {path}", {"error": str(exc)[:300]}) from None
