"""A graph built once per module from the real recorded records (parsed, chunked, linked with the
real MeSH linker, committed through `commit_documents`, like a sync batch), on SQLite and PostgreSQL.
Registered in tests/conftest.py."""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import corpus_document
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.sources.ncbi.parsers import parse_efetch
from bio_mcp.store import MetadataStore

TODAY = date(2025, 1, 15)


def fill(store: MetadataStore, data_dir: Path, graph: GraphIndexer) -> None:
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        articles = parse_efetch(handle.read())
    documents = {}
    for article in articles:
        document = corpus_document(article, TODAY)
        documents[article.pmid] = replace(document, mentions=graph.link(document.chunks))
    index = CorpusIndex(store, None, HashEmbeddings())
    batch = list(documents.values())
    for start in range(0, len(batch), 100):
        commit_documents(index, batch[start : start + 100], graph)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def graph_store(
    request: pytest.FixtureRequest, data_dir: Path, tmp_path_factory: pytest.TempPathFactory, graph_indexer
) -> Iterator[MetadataStore]:
    """A metadata store holding the real records and their graph (built once per module and dialect)."""
    folder = tmp_path_factory.mktemp("graph-store")
    cleanup = None
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'store.sqlite3'}"
    else:
        base = request.getfixturevalue("postgres_url")
        schema = f"t_{uuid.uuid4().hex[:12]}"
        engine = sa.create_engine(base)
        with engine.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        url = f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"

        def cleanup() -> None:
            with engine.begin() as connection:
                connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            engine.dispose()

    store = MetadataStore.open(url, lock_dir=folder / "locks")
    try:
        fill(store, data_dir, graph_indexer)
        yield store
    finally:
        store.close()
        if cleanup is not None:
            cleanup()
