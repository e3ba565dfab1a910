"""`orchestrate`: question to frame to plan to execution to cited answer with a checkpoint_id."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.checkpoints import checkpoint_document, save_checkpoint
from bio_mcp.features.analyst.executor import Executor, Tool
from bio_mcp.features.analyst.frame import parse_frame
from bio_mcp.features.analyst.indications import MeshIndex, load_mesh_index
from bio_mcp.features.analyst.models import AskRequest, AskResponse, Trace
from bio_mcp.features.analyst.plan import plan_from_frame
from bio_mcp.features.analyst.registry import Registry
from bio_mcp.features.analyst.synth import synthesize
from bio_mcp.features.analyst.telemetry import Telemetry, trace_id_of
from bio_mcp.sources.ratelimit import RateLimiter, build_rate_limiter
from bio_mcp.store import MetadataStore

NO_MESH_NOTE = (
    "MeSH descriptors are not installed (`bio-mcp data install-mesh FILE` or BIO_MCP_MESH_PATH): indications "
    "are searched as typed, without synonyms."
)


@dataclass
class Analyst:
    """What `orchestrate` needs, built once per process and shared by every question.

    `close` releases what the builder opened for it (the CT.gov client, the store); tests that
    assemble an Analyst from parts they own leave it empty.
    """

    tools: Mapping[str, Tool]
    registry: Registry
    store: MetadataStore
    mesh_path: Path | None
    telemetry: Telemetry
    limiters: Mapping[str, RateLimiter]
    close: Callable[[], Awaitable[None]] | None = None
    # Where the MeSH vocabulary's pickle is kept (BIO_MCP_CACHE_DIR): the one the graph reads too.
    cache_dir: Path | None = None

    def mesh(self) -> MeshIndex:
        return load_mesh_index(self.mesh_path, self.cache_dir) if self.mesh_path is not None else MeshIndex({})

    async def aclose(self) -> None:
        if self.close is not None:
            await self.close()


def source_limiters(registry: Registry, redis_url: str | None) -> dict[str, RateLimiter]:
    """One limiter per source at the registry's cap (shared through Redis when it is configured)."""
    return {
        source: build_rate_limiter(f"analyst-{source}", registry.source_rps(source), redis_url, None)
        for source in registry.sources()
    }


async def orchestrate(request: AskRequest, analyst: Analyst, *, today: date) -> AskResponse:
    # Off the event loop: the first call builds the index (the server's warm-up usually has).
    mesh = await asyncio.to_thread(analyst.mesh)
    # Off the loop too: a Thai question is read with dictionaries loaded on first use.
    frame = await asyncio.to_thread(
        parse_frame, request.question, mesh=mesh, fetch_policy=request.fetch_policy,
        time_budget_ms=request.time_budget_ms,
    )
    plan = plan_from_frame(frame, analyst.registry, today=today, mesh=mesh)
    with analyst.telemetry.question(frame.intent) as span:
        execution = await Executor(analyst.tools, analyst.registry, analyst.limiters, analyst.telemetry).run(
            plan, frame.fetch_policy
        )
        trace_id = trace_id_of(span)
    if execution.nothing_fetched_because_upstream_failed():
        sources = sorted({failure.source for failure in execution.failures})
        raise BioMcpError(
            ErrorCode.UPSTREAM,
            f"Nothing could be fetched: {' and '.join(sources)} failed, so there is no answer (not an empty one)",
            {"failures": [failure.model_dump() for failure in execution.failures]},
        )
    if analyst.mesh_path is None and frame.entities.indication:
        execution.notes.append(NO_MESH_NOTE)
    answer = synthesize(frame, execution)
    checkpoint_id = await asyncio.to_thread(
        save_checkpoint, analyst.store, checkpoint_document(analyst.registry, frame, plan, execution)
    )
    return AskResponse(
        answer=answer,
        checkpoint_id=checkpoint_id,
        failures=execution.failures,
        trace=Trace(
            trace_id=trace_id, frame=frame, plan=plan, steps=execution.traces,
            elapsed_ms=execution.elapsed_ms, partial=execution.partial, notes=execution.notes,
        ),
    )
