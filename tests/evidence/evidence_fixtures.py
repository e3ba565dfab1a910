"""Evidence fixtures (registered in tests/conftest.py): a corpus of the real PPR abstracts (medicinal plants) written through the corpus's
own write path, linked with the real MeSH linker into its graph, and the Thai herb names of the real
herb table in kg_names."""

from __future__ import annotations

import csv
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bio_mcp.config import Settings, load_settings
from bio_mcp.eval import corpus_fill
from bio_mcp.eval.corpus_fill import fill_scratch_corpus
from bio_mcp.eval.ppr import read_ppr
from bio_mcp.features.corpus.records import CorpusDocument
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.indexer import GraphIndexer, build_graph_indexer
from bio_mcp.graph.names import EntityName, write_names
from bio_mcp.sources.ncbi.client import EutilsClient

ANDROGRAPHIS = "mesh:D035685"
ANDROGRAPHIS_PAPER = "25553378"  # PPR dev: "Andrographolide and analogues in cancer prevention."


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def herb_names(data_dir: Path) -> list[EntityName]:
    """Thai, English and scientific names of the real herb table, under MeSH ids or herb:<slug>."""
    with (data_dir / "herbs" / "thai_herb_names.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    names = []
    for row in rows:
        entity = f"mesh:{row['mesh_ui']}" if row["mesh_ui"] else f"herb:{_slug(row['scientific_name'])}"
        source = "thai_herb_names.tsv"
        names += [
            EntityName(entity, "th", row["thai_name"], "common", source),
            EntityName(entity, "en", row["english_name"], "common", source),
            EntityName(entity, "en", row["scientific_name"], "scientific", source),
        ]
    return names


def ppr_documents(data_dir: Path, split: str = "dev") -> list[CorpusDocument]:
    """The PPR abstracts under their PMIDs: the first sentence is the title."""
    return corpus_fill.ppr_documents(read_ppr(data_dir / "bench" / "ppr" / f"PPR_{split}_corpus.txt"))


@pytest.fixture(scope="session")
def sync_graph(data_dir: Path, linker_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> GraphIndexer:
    """The graph writer a server's sync uses (`build_graph_indexer`): the MeSH linker with BC5CDR's
    training pairs and the relation extractors (plant relations fitted on PPR's training split,
    chemical-induced diseases with BC5CDR's priors)."""
    settings = load_settings(
        BIO_MCP_HOME=str(tmp_path_factory.mktemp("sync-graph-home")), BIO_MCP_CACHE_DIR=str(linker_cache),
        BIO_MCP_MESH_PATH=str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"),
        BIO_MCP_LINKER_TRAINING=str(data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt"),
        BIO_MCP_RELATIONS_TRAINING=str(data_dir / "bench" / "ppr" / "PPR_train_corpus.txt"),
        BIO_MCP_DUKE_DIR=str(data_dir / "herbs" / "duke"),
    )
    graph = build_graph_indexer(settings)
    assert graph.extractors, "the sync's graph writer has no relation extractor"
    return graph


def evidence_settings(home: Path, **extra: object) -> Settings:
    return load_settings(BIO_MCP_HOME=str(home), BIO_MCP_EMBEDDINGS_PROVIDER="hash", **extra)


@pytest.fixture(scope="module")
async def herbal_corpus(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, graph_indexer: GraphIndexer
) -> AsyncIterator[CorpusService]:
    """PPR dev abstracts in a corpus (store, index, graph, hash vectors) with the herb names written.
    Tests read it; a test that writes builds its own."""
    settings = evidence_settings(tmp_path_factory.mktemp("herbal-home"))
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False, graph=graph_indexer)
    await service.open()
    fill_scratch_corpus(service.index, ppr_documents(data_dir), settings.embeddings_batch_size, graph=graph_indexer)
    with service.store.transaction() as tx:
        write_names(tx.connection, herb_names(data_dir))
    yield service
    await service.aclose()
    await eutils.aclose()


@pytest.fixture
def retrieval(herbal_corpus: CorpusService) -> KbRetrieval:
    return KbRetrieval(herbal_corpus)
