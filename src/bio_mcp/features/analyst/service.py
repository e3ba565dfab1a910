"""Building the `Analyst` from settings, and the one-shot entry points the CLI calls.

    analyst = build_analyst(settings, eutils)     # the server's runtime keeps one per process
    response = await orchestrate(AskRequest(question=...), analyst, today=date.today())
    await analyst.aclose()                        # the CT.gov client and the store; not `eutils`

The E-utilities client is passed in because the runtime shares one (and its rate limit) among
every toolset; the CT.gov client, the stores and the limiters belong to the analyst.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from bio_mcp.config import Settings
from bio_mcp.features.analyst.ask import Analyst, orchestrate, source_limiters
from bio_mcp.features.analyst.cache_clients import AnalystClients
from bio_mcp.features.analyst.checkpoints import resolve_checkpoint
from bio_mcp.features.analyst.models import AskRequest, AskResponse, FetchPolicy
from bio_mcp.features.analyst.registry import load_registry
from bio_mcp.features.analyst.telemetry import Telemetry, build_tracer_provider
from bio_mcp.mesh_files import mesh_path_of
from bio_mcp.sources.ctgov.client import CtgovClient
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.store import open_blob_store, open_metadata_store


def build_analyst(settings: Settings, eutils: EutilsClient, ctgov: CtgovClient | None = None) -> Analyst:
    """`ctgov` is the caller's to close when given (the runtime shares one with the trials tools)."""
    registry = load_registry()
    store = open_metadata_store(settings)
    owns_ctgov = ctgov is None
    ctgov = ctgov or CtgovClient(settings)
    clients = AnalystClients(eutils, ctgov, store, open_blob_store(settings))
    limiters = source_limiters(registry, settings.redis_url)
    provider = build_tracer_provider(settings)

    async def close() -> None:
        if owns_ctgov:
            await clients.aclose()
        for limiter in limiters.values():
            # Only the Redis limiter holds a connection; the RateLimiter protocol has no close.
            closing = getattr(limiter, "aclose", None)
            if closing is not None:
                await closing()
        if provider is not None:
            provider.shutdown()
        store.close()

    return Analyst(
        tools=clients.tools(), registry=registry, store=store, mesh_path=mesh_path_of(settings),
        telemetry=Telemetry(provider), limiters=limiters, close=close, cache_dir=settings.caches,
    )


async def ask_once(
    settings: Settings, question: str, fetch_policy: FetchPolicy = "cache_then_network", time_budget_ms: int = 5000
) -> AskResponse:
    """One question from a fresh process (the CLI): build, ask with today's UTC date, close."""
    request = AskRequest(question=question, fetch_policy=fetch_policy, time_budget_ms=time_budget_ms)
    eutils = EutilsClient(settings)
    try:
        analyst = await asyncio.to_thread(build_analyst, settings, eutils)
        try:
            return await orchestrate(request, analyst, today=datetime.now(UTC).date())
        finally:
            await analyst.aclose()
    finally:
        await eutils.aclose()


def show_checkpoint(settings: Settings, checkpoint_id: str) -> dict[str, Any]:
    """The JSON document a checkpoint_id stands for; NOT_FOUND when it was never stored here."""
    store = open_metadata_store(settings)
    try:
        return resolve_checkpoint(store, checkpoint_id)
    finally:
        store.close()
