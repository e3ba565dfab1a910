"""A small real corpus for tool.rag_answer: PubMedQA abstracts among SciFact distractors, committed
with their MeSH-linked graph and embedded by the shipped model (built once per test worker, read by
every module that asks tool.rag_answer about PubMedQA)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bio_mcp.config import Settings, load_settings
from bio_mcp.eval.corpus_fill import fill_scratch_corpus, pubmedqa_documents, scifact_documents
from bio_mcp.eval.pubmedqa import PubMedQaItem, load_pubmedqa
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.evidence.answer import AnswerContext
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.search import KbContext
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.store import open_metadata_store

PUBMEDQA_ITEMS = 16
DISTRACTORS = 120
# PubMedQA (tune half), both labelled no, for the verdict tests (tests/evidence/test_rag_answer_focus.py).
# "Can you deliver accurate tidal volume by manual resuscitator?": "The manual resuscitator is not a
# suitable device for accurate ventilation."
RESUSCITATOR = "18843057"
# "Does a colonoscopy after acute diverticulitis affect its management?": only two of its sentences
# name both colonoscopy and diverticulitis (the conclusion's).
COLONOSCOPY = "22186742"


def answer_settings(home: Path, **extra: object) -> Settings:
    return load_settings(BIO_MCP_HOME=str(home), **extra)


@pytest.fixture(scope="session")
def pubmedqa(data_dir: Path) -> list[PubMedQaItem]:
    return load_pubmedqa(data_dir / "bench" / "pubmedqa" / "pqal_dev.json")[:PUBMEDQA_ITEMS]


def fill_answer_home(home: Path, items: list[PubMedQaItem], data_dir: Path) -> Path:
    """A corpus of these PubMedQA abstracts among the SciFact distractors, its graph linked, in `home`."""
    settings = answer_settings(home)
    documents = pubmedqa_documents(items) + scifact_documents(data_dir / "bench" / "scifact" / "corpus.jsonl",
                                                              DISTRACTORS)
    store = open_metadata_store(settings)
    try:
        index = CorpusIndex(store, index_folder(settings), build_embeddings(settings))
        fill_scratch_corpus(index, documents, settings.embeddings_batch_size, graph=build_graph_indexer(settings))
    finally:
        store.close()
    return home


def open_answer_context(home: Path) -> Iterator[AnswerContext]:
    """The corpus in `home` as tool.rag_answer reads it, its index in memory (tests may delete from it)."""
    settings = answer_settings(home)
    store = open_metadata_store(settings)
    index = CorpusIndex(store, None, build_embeddings(settings))
    index.reconcile()
    graph = build_graph_indexer(settings)
    kb = KbContext(settings, store, index, ProviderRegistry(settings), graph.linker, graph.catalog)
    yield AnswerContext(kb, settings.answer_conf_tau)
    store.close()


@pytest.fixture(scope="session")
def answer_home(tmp_path_factory: pytest.TempPathFactory, data_dir: Path, pubmedqa: list[PubMedQaItem]) -> Path:
    """The first PubMedQA items' abstracts and the two labelled no, among the distractors (tests only
    read it)."""
    items = load_pubmedqa(data_dir / "bench" / "pubmedqa" / "pqal_dev.json")
    chosen = pubmedqa + [item for item in items if item.pmid in (RESUSCITATOR, COLONOSCOPY)]
    return fill_answer_home(tmp_path_factory.mktemp("answer-home"), chosen, data_dir)


@pytest.fixture
def answer_context(answer_home: Path) -> Iterator[AnswerContext]:
    yield from open_answer_context(answer_home)
