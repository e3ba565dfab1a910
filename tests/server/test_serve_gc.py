"""`bio-mcp serve` keeps what it built at start-up out of the garbage collector's full passes."""

from __future__ import annotations

import gc

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.analyst.indications import load_mesh_index
from bio_mcp.server.process import warm_up_then_freeze
from bio_mcp.server.runtime import Runtime

pytestmark = pytest.mark.anyio


async def test_a_full_collection_after_start_up_no_longer_walks_the_server(bio_home) -> None:
    assert gc.get_freeze_count() == 0
    async with Runtime(load_settings()) as runtime:
        toolsets = runtime.toolsets(["pubmed"])
        try:
            await warm_up_then_freeze(runtime, toolsets)
            frozen = gc.get_freeze_count()
            # What a full pass still walks (gc.get_objects leaves the frozen generation out).
            walked = len(gc.get_objects())
        finally:
            gc.unfreeze()
    assert frozen > 100_000 and walked < frozen / 10


async def test_start_up_builds_the_analysts_mesh_index_before_the_first_question(bio_home, data_dir) -> None:
    load_mesh_index.cache_clear()
    mesh_path = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    async with Runtime(load_settings(BIO_MCP_MESH_PATH=str(mesh_path))) as runtime:
        await runtime.warm_up(runtime.toolsets(["analyst"]))
        # Built then, a question finds it cached instead of building it on its own time budget.
        assert load_mesh_index.cache_info().currsize == 1
        assert runtime.analyst.mesh().lookup("non-small cell lung cancer") == "Carcinoma, Non-Small-Cell Lung"
