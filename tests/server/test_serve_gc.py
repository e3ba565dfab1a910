"""`bio-mcp serve` keeps what it built at start-up out of the garbage collector's full passes, and
collects young objects less often from then on."""

from __future__ import annotations

import gc

import pytest

from bio_mcp.collector import YOUNG_THRESHOLD
from bio_mcp.config import load_settings
from bio_mcp.features.analyst.indications import load_mesh_index
from bio_mcp.server.composition import build_toolsets
from bio_mcp.server.process import warm_up_then_freeze
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio


async def test_a_full_collection_after_start_up_no_longer_walks_the_server(bio_home) -> None:
    assert gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    async with Runtime(load_settings()) as runtime:
        toolsets = build_toolsets(runtime, ["pubmed"])
        try:
            await warm_up_then_freeze(runtime, toolsets)
            frozen = gc.get_freeze_count()
            # What a full pass still walks (gc.get_objects leaves the frozen generation out).
            walked = len(gc.get_objects())
            settled = gc.get_threshold()
        finally:
            gc.unfreeze()
            gc.set_threshold(*thresholds)
    assert frozen > 100_000 and walked < frozen / 10
    assert settled == (YOUNG_THRESHOLD, *thresholds[1:]) and YOUNG_THRESHOLD > thresholds[0]


async def test_start_up_builds_the_analysts_mesh_index_before_the_first_question(bio_home, data_dir) -> None:
    load_mesh_index.cache_clear()
    mesh_path = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    async with Runtime(load_settings(BIO_MCP_MESH_PATH=str(mesh_path))) as runtime:
        await runtime.warm_up(build_toolsets(runtime, ["analyst"]))
        # Built then, a question finds it cached instead of building it on its own time budget.
        assert load_mesh_index.cache_info().currsize == 1
        assert runtime.analyst.mesh().lookup("non-small cell lung cancer") == "Carcinoma, Non-Small-Cell Lung"


async def test_bio_mcp_sync_settles_the_collector_once_its_corpus_and_linker_are_open(
    bio_home, fakes, monkeypatch
) -> None:
    """`bio-mcp sync` is a long-lived process too (a large sync runs for minutes): without the
    freeze, full collections walked the MeSH linker four times in a 3,000-record sync (1.1 s)."""
    from datetime import date

    from bio_mcp.features.corpus import service
    from bio_mcp.features.corpus.models import SyncDeltaRequest
    from bio_mcp.features.corpus.sync import SyncOptions

    settled: list[bool] = []
    monkeypatch.setattr(service.CorpusService, "sync_delta", _recording_sync(settled))
    monkeypatch.setattr(service, "settle_collector", lambda: settled.append(True))
    settings = load_settings(BIO_MCP_HOME=str(bio_home), NCBI_EUTILS_BASE_URL=fakes.eutils_base_url,
                             BIO_MCP_EMBEDDINGS_PROVIDER="hash", NCBI_API_KEY="test-key")
    options = SyncOptions(since=date(2024, 1, 1), until=date(2024, 1, 2))
    await service.sync_once(settings, SyncDeltaRequest(query_key="gc", term="asthma"), options, embed=False)
    # Settled once, after open (the linker and indexes are loaded) and before the sync.
    assert settled == [True, False]


def _recording_sync(settled: list[bool]):
    from bio_mcp.features.corpus.service import CorpusService

    original = CorpusService.sync_delta

    async def sync_delta(self, request, options=None):
        # False marks the sync's start; the store is open by then.
        assert self._store is not None
        settled.append(False)
        return await original(self, request, options)

    return sync_delta
