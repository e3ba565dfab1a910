"""`bio-mcp serve` keeps what it built at start-up out of the garbage collector's full passes."""

from __future__ import annotations

import gc

import pytest

from bio_mcp.config import load_settings
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
