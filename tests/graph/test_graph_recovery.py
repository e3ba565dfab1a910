"""A sync killed mid-run leaves the graph and the corpus in agreement (they commit in one
transaction), and the rerun completes both; so does a sync whose EFetch fails while the batch
before is committing; a new document version replaces its sections and mentions."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
from dataclasses import replace
from datetime import date
from pathlib import Path

import anyio
import pytest
import sqlalchemy as sa

from bio_mcp.errors import BioMcpError
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.records import corpus_document
from bio_mcp.features.corpus.sync import commit_documents
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.sources.ncbi.parsers import parse_efetch
from bio_mcp.store import MetadataStore, open_metadata_store
from bio_mcp.store.schema import chunks, documents, kg_edges, kg_mentions, kg_nodes
from bio_mcp.testing.faults import Fault
from tests.corpus.corpus_fixtures import SPREAD, TERM, UNTIL, corpus_settings

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]

SYNC_SCRIPT = textwrap.dedent(
    f"""
    import asyncio
    from datetime import date
    from bio_mcp.config import load_settings
    from bio_mcp.features.corpus.models import SyncDeltaRequest
    from bio_mcp.features.corpus.service import sync_once
    from bio_mcp.features.corpus.sync import SyncOptions

    options = SyncOptions(until=date.fromisoformat("{UNTIL.isoformat()}"), batch_size=10, max_window_days=31,
                          since=date.fromisoformat("{SPREAD[0].date().isoformat()}"))
    asyncio.run(sync_once(load_settings(), SyncDeltaRequest(query_key="killed", term="{TERM}"), options, embed=False))
    """
)


def agreement(store: MetadataStore) -> tuple[int, int]:
    """Asserts the graph holds exactly the corpus's documents and chunks; returns their counts."""
    with store.read() as tx:
        connection = tx.connection
        pmids = list(connection.execute(sa.select(documents.c.pmid)).scalars())
        chunk_rows = connection.execute(sa.select(chunks.c.pmid, chunks.c.chunk_id, chunks.c.uuid)).all()
        graph_docs = set(connection.execute(sa.select(kg_nodes.c.id).where(kg_nodes.c.label == "Document")).scalars())
        graph_sections = {
            row.id: row.chunk_uuid
            for row in connection.execute(sa.select(kg_nodes.c.id, kg_nodes.c.chunk_uuid).where(kg_nodes.c.label == "Section"))
        }
        mention_sources = set(connection.execute(sa.select(kg_mentions.c.src)).scalars())
        has_section = connection.execute(sa.select(sa.func.count()).where(kg_edges.c.type == "HAS_SECTION")).scalar_one()
    assert graph_docs == {document_node_id(pubmed_source_uri(pmid)) for pmid in pmids}
    assert graph_sections == {section_node_id(pubmed_source_uri(r.pmid), r.chunk_id): r.uuid for r in chunk_rows}
    assert mention_sources <= set(graph_sections) and has_section == len(graph_sections)
    return len(pmids), len(chunk_rows)


async def test_a_sync_killed_mid_run_leaves_graph_and_corpus_in_agreement(make_graph_service, corpus_fakes, bio_home) -> None:
    settings = corpus_settings(bio_home, corpus_fakes)
    env = {
        **os.environ,
        "BIO_MCP_HOME": str(settings.home),
        "NCBI_EUTILS_BASE_URL": corpus_fakes.eutils_base_url,
        "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
        "NCBI_API_KEY": "test-key",
        # The subprocess writes documents, sections and topics; the linker's cold build is not under test.
        "BIO_MCP_GRAPH_LINKING": "false",
    }
    corpus_fakes.eutils.latency_s = 0.05
    process = await anyio.open_process([sys.executable, "-c", SYNC_SCRIPT], env=env, cwd=REPO)
    store = open_metadata_store(settings)
    try:
        with anyio.fail_after(300):
            while True:
                with store.read() as tx:
                    if tx.documents.count() >= 120:
                        break
                assert process.returncode is None, "the sync subprocess ended before it was killed"
                await anyio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        with anyio.fail_after(10):
            await process.wait()
        corpus_fakes.eutils.latency_s = 0.0
        stored, _ = agreement(store)
        assert 0 < stored < len(corpus_fakes.eutils.records)

        service = make_graph_service()
        await service.sync_delta(SyncDeltaRequest(query_key="killed", term=TERM))
        total, _ = agreement(service.store)
        assert total == len(corpus_fakes.eutils.records)
        with service.store.read() as tx:
            mentioned = tx.connection.execute(
                sa.select(sa.func.count(sa.distinct(kg_mentions.c.document_id)))
            ).scalar_one()
        # The rerun linked what it wrote; the killed run's documents are skipped as unchanged.
        assert 0 < mentioned <= total - stored
    finally:
        if process.returncode is None:
            process.kill()
        await process.aclose()
        store.close()


async def test_an_efetch_failing_mid_window_fails_the_sync_once_the_batch_in_flight_commits(
    make_graph_service, corpus_fakes
) -> None:
    service = make_graph_service()
    efetches = 0

    def third_and_later(_request) -> bool:
        nonlocal efetches
        efetches += 1
        return efetches >= 3

    # The third EFetch (and its retries) fail while the first batch is committing and the second is
    # being annotated.
    corpus_fakes.eutils.inject(Fault.http_status(500), times=None, path="efetch.fcgi", when=third_and_later)
    with pytest.raises(BioMcpError):
        await service.sync_delta(SyncDeltaRequest(query_key="failing", term=TERM))
    stored, _ = agreement(service.store)
    with service.store.read() as tx:
        [job] = tx.jobs.recent(query_key="failing")
        watermark = tx.checkpoints.get("failing")
        mentioned = tx.connection.execute(
            sa.select(sa.func.count(sa.distinct(kg_mentions.c.document_id)))
        ).scalar_one()
    # The batch whose transaction was in flight committed, with its graph, and the job row counts it;
    # the one not yet committed is the next sync's (the watermark did not move).
    assert stored == 100 and job.status == "failed" and job.counts["pmids_processed"] == stored
    assert 0 < mentioned <= stored
    assert watermark is None


def test_a_new_version_replaces_the_documents_sections_and_mentions(store_url, tmp_path, data_dir, graph_indexer) -> None:
    import gzip

    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        articles = parse_efetch(handle.read())
    article = next(a for a in articles if a.abstract_sections and len(a.abstract_text or "") > 1200 and a.mesh_headings)
    store = MetadataStore.open(store_url, lock_dir=tmp_path / "locks")
    try:
        index = CorpusIndex(store, None, HashEmbeddings())

        def commit(source) -> None:
            document = corpus_document(source, date(2025, 1, 15))
            commit_documents(index, [replace(document, mentions=graph_indexer.link(document.chunks))], graph_indexer)

        commit(article)
        doc_id = document_node_id(pubmed_source_uri(article.pmid))
        with store.read() as tx:
            before = set(tx.connection.execute(sa.select(kg_nodes.c.id).where(kg_nodes.c.document_id == doc_id)).scalars())
        assert len(before) > 1
        revised = article.model_copy(
            update={"abstract_sections": [], "abstract_text": "Acetaminophen overdose causes acute liver failure."}
        )
        commit(revised)
        agreement(store)
        with store.read() as tx:
            after = set(tx.connection.execute(sa.select(kg_nodes.c.id).where(kg_nodes.c.document_id == doc_id)).scalars())
            mentioned = set(
                tx.connection.execute(
                    sa.select(kg_mentions.c.dst).where(kg_mentions.c.document_id == doc_id)
                ).scalars()
            )
            version = tx.connection.execute(sa.select(kg_nodes.c.version).where(kg_nodes.c.id == doc_id)).scalar_one()
            topics = tx.connection.execute(
                sa.select(sa.func.count()).where(kg_edges.c.type == "HAS_TOPIC", kg_edges.c.src == doc_id)
            ).scalar_one()
        assert version == "2" and len(after) == 1 and after <= before
        assert "mesh:D000082" in mentioned and topics > 0
    finally:
        store.close()
