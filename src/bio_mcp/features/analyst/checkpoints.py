"""Deterministic checkpoint_id (seed 004 M6) and its resolution back to what an answer referenced.

checkpoint_id = sha256(canonical JSON of {tool versions, registry version, normalised inputs (the
frame less its time budget and fetch policy, and the plan's rendered args), source watermarks,
blob URIs}). Watermarks and blob URIs are content hashes, so the same question over an unchanged
upstream gives the same id whether it was answered from the cache or live.
"""

from __future__ import annotations

from typing import Any

from bio_mcp.canonical import canonical_sha256
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.executor import Execution
from bio_mcp.features.analyst.models import Frame, Plan
from bio_mcp.features.analyst.registry import Registry
from bio_mcp.store import MetadataStore


def checkpoint_document(registry: Registry, frame: Frame, plan: Plan, execution: Execution) -> dict[str, Any]:
    return {
        "tool_versions": registry.tool_versions(),
        "registry_version": registry.registry_version,
        "inputs": {
            "frame": frame.model_dump(mode="json", exclude={"time_budget_ms", "fetch_policy"}),
            "steps": [{"id": s.id, "tool": s.tool, "args": s.args} for s in plan.steps],
        },
        "watermarks": dict(sorted(execution.watermarks().items())),
        "blob_uris": execution.blob_uris(),
        "partial": execution.partial,
    }


def checkpoint_id_of(document: dict[str, Any]) -> str:
    return canonical_sha256(document)


def save_checkpoint(store: MetadataStore, document: dict[str, Any]) -> str:
    checkpoint_id = checkpoint_id_of(document)
    with store.transaction() as tx:
        tx.analyst_checkpoints.put(checkpoint_id, document)
    return checkpoint_id


def resolve_checkpoint(store: MetadataStore, checkpoint_id: str) -> dict[str, Any]:
    """The document a checkpoint_id stands for: versions, inputs, watermarks, blob URIs."""
    with store.read() as tx:
        found = tx.analyst_checkpoints.get(checkpoint_id)
    if found is None:
        raise BioMcpError(ErrorCode.NOT_FOUND, "no such checkpoint", {"checkpoint_id": checkpoint_id})
    return found.document
