"""`corpus.checkpoint.get` / `.set`: read a sync watermark, or move it by hand (backwards too, audited)."""

from __future__ import annotations

from bio_mcp.features.corpus.models import (
    CheckpointGetRequest,
    CheckpointGetResponse,
    CheckpointSetRequest,
    CheckpointSetResponse,
)
from bio_mcp.store import MetadataStore

MCP_ACTOR = "mcp"


def get_checkpoint(request: CheckpointGetRequest, store: MetadataStore) -> CheckpointGetResponse:
    with store.read() as tx:
        return CheckpointGetResponse(query_key=request.query_key, last_edat=tx.checkpoints.get(request.query_key))


def set_checkpoint(
    request: CheckpointSetRequest, store: MetadataStore, actor: str = MCP_ACTOR, reason: str | None = None
) -> CheckpointSetResponse:
    with store.transaction() as tx:
        tx.checkpoints.set(request.query_key, request.last_edat, actor=actor, reason=reason)
    return CheckpointSetResponse(ok=True)
