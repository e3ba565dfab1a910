"""The graph indexer a sync uses with relation extraction on: the real MeSH vocabulary, the linker
with BC5CDR's training pairs, and the plant relation extractor trained on PPR's training split.
Registered in tests/conftest.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.eval.ppr import read_ppr
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.relations import train_extractor


@pytest.fixture(scope="session")
def indexer(data_dir: Path, linker_cache: Path) -> GraphIndexer:
    mesh = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    linker = load_linker_from(mesh, data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt", linker_cache)
    catalog = load_catalog(mesh, linker_cache)
    extractor = train_extractor(read_ppr(data_dir / "bench" / "ppr" / "PPR_train_corpus.txt"), linker,
                                catalog.vocabulary, data_dir / "herbs" / "duke")
    return GraphIndexer(catalog, linker, [extractor])
