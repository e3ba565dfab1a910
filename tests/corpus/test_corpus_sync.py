"""pubmed.sync_delta end to end against the fake E-utilities over the real records, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date

import pytest
from lxml import etree

from bio_mcp.features.corpus.models import (
    CheckpointGetRequest,
    RagGetRequest,
    RagSearchRequest,
    SyncDeltaRequest,
)
from bio_mcp.store.timestamps import parse_iso_utc
from tests.corpus.corpus_fixtures import SPREAD, TERM

pytestmark = pytest.mark.anyio


def store_chunk_uuids(service) -> set[str]:
    with service.store.read() as tx:
        return {chunk.uuid for page in tx.chunks.iterate() for chunk in page}


def shorten_abstract(xml: str, pmid: str) -> bytes:
    """The record with a one-sentence abstract and DateRevised advanced: a new version with fewer chunks."""
    element = etree.fromstring(xml.encode())
    abstract = element.find(".//Abstract")
    for child in list(abstract):
        abstract.remove(child)
    etree.SubElement(abstract, "AbstractText").text = "A much shorter abstract after revision."
    revised = element.find(".//DateRevised")
    for tag, value in (("Year", "2025"), ("Month", "01"), ("Day", "10")):
        revised.find(tag).text = value
    return etree.tostring(element)


async def test_first_sync_inserts_replay_skips_and_revisions_update(make_service, corpus_fakes, database_url) -> None:
    service = make_service(database_url)
    request = SyncDeltaRequest(query_key="all", term=TERM)
    total = len(corpus_fakes.eutils.records)

    first = await service.sync_delta(request)
    assert (first.inserted, first.updated, first.skipped, first.pmids_processed) == (total, 0, 0, total)
    assert first.max_edat_seen is not None and first.max_edat_seen.startswith("2024-12")
    assert any("pending embedding" in warning for warning in first.warnings)
    checkpoint = await service.checkpoint_get(CheckpointGetRequest(query_key="all"))
    assert checkpoint.last_edat == first.max_edat_seen

    # BM25 serves the new chunks right after the sync, before any embedding.
    hits = await service.search(RagSearchRequest(query="breast cancer", top_k=5))
    assert hits.results and all(result.sim is None and result.bm25 is not None for result in hits.results)

    # A replay of the whole range re-sees everything and changes nothing.
    with service.store.transaction() as tx:
        tx.checkpoints.set("all", "1900-01-01T00:00:00Z", actor="test")
    replay = await service.sync_delta(request)
    assert (replay.inserted, replay.updated, replay.skipped) == (0, 0, total)

    # The overlap window (watermark - 5 days) re-sees the last days' records without duplicates.
    with service.store.transaction() as tx:
        tx.checkpoints.advance("all", first.max_edat_seen, "test")
    overlap = await service.sync_delta(request)
    last = parse_iso_utc(first.max_edat_seen)
    expected = [r for r in corpus_fakes.eutils.records.values() if (last.date() - r.entrez_date.date()).days <= 5]
    assert overlap.pmids_processed == len(expected) > 0
    assert overlap.skipped == overlap.pmids_processed and overlap.inserted == 0
    with service.store.read() as tx:
        assert tx.documents.count() == total

    # A revision (LR advanced, text changed) bumps the version and replaces the chunks everywhere.
    with service.store.read() as tx:
        multi = next(
            pmid for pmid in sorted(corpus_fakes.eutils.records, key=int)
            if len(tx.chunks.for_document(pmid)) >= 3
        )
        old_uuids = {chunk.uuid for chunk in tx.chunks.for_document(multi)}
    titled = max(corpus_fakes.eutils.records, key=int)
    corpus_fakes.eutils.revise(titled, lr=date(2025, 1, 10))
    corpus_fakes.eutils.add_record(shorten_abstract(corpus_fakes.eutils.record(multi).xml(), multi))
    with service.store.transaction() as tx:
        tx.checkpoints.set("all", "2024-01-01T00:00:00Z", actor="test", reason="backfill")
    revised = await service.sync_delta(request)
    assert (revised.updated, revised.inserted, revised.skipped) == (2, 0, total - 2)
    document = await service.get(RagGetRequest(doc_id=f"pmid:{multi}"))
    assert document.version == 2 and document.lr == "2025-01-10T00:00:00Z"
    assert (await service.get(RagGetRequest(doc_id=f"pmid:{titled}"))).title.endswith("[Revised 2025-01-10]")
    with service.store.read() as tx:
        new_chunks = tx.chunks.for_document(multi)
    assert len(new_chunks) == 1 and "much shorter abstract" in new_chunks[0].text
    removed = old_uuids - {new_chunks[0].uuid}
    bm25_uuids, vector_uuids = service.index.uuids()
    assert not removed & bm25_uuids and not removed & vector_uuids
    assert bm25_uuids == store_chunk_uuids(service)

    # After the embedding writer drains, search is hybrid and both indexes hold every chunk.
    assert await service.drain() > 0
    hybrid = await service.search(RagSearchRequest(query="breast cancer", top_k=5))
    assert any(result.sim is not None for result in hybrid.results)
    bm25_uuids, vector_uuids = service.index.uuids()
    assert bm25_uuids == vector_uuids == store_chunk_uuids(service)
    with service.store.read() as tx:
        jobs = tx.jobs.recent(query_key="all")
    assert [job.status for job in jobs] == ["done"] * 4


async def test_quality_bias_weights_scores_by_quality_within_0_1(make_service, database_url) -> None:
    service = make_service(database_url)
    await service.sync_delta(SyncDeltaRequest(query_key="q", term=TERM))
    await service.drain()
    plain = await service.search(RagSearchRequest(query="randomized trial of treatment", top_k=20, quality_bias=False))
    biased = await service.search(RagSearchRequest(query="randomized trial of treatment", top_k=20))
    scores = {result.doc_id: result.score for result in plain.results}
    for result in biased.results:
        if result.doc_id in scores:
            # The relevance times (1 + 0.1 q / 8) / 1.1: 1 at the best quality, so never above 1.
            factor = (1 + 0.1 * (result.quality or 0) / 8) / 1.1
            assert result.score == pytest.approx(scores[result.doc_id] * factor) and 0 <= result.score <= 1
    assert [r.score for r in biased.results] == sorted((r.score for r in biased.results), reverse=True)
    assert all(r.quality is not None for r in biased.results)


async def test_windows_advance_the_watermark_in_steps(make_service, corpus_fakes) -> None:
    from bio_mcp.features.corpus.sync import SyncOptions
    from tests.corpus.corpus_fixtures import UNTIL

    service = make_service(sync_options=SyncOptions(until=UNTIL, batch_size=50, max_window_days=31, since=SPREAD[0].date()))
    response = await service.sync_delta(SyncDeltaRequest(query_key="steps", term=TERM))
    with service.store.read() as tx:
        audit = tx.checkpoints.audit("steps")
    assert len(audit) >= 10 and all(entry.kind == "auto" for entry in audit)
    assert [entry.new_edat for entry in audit] == sorted(entry.new_edat for entry in audit)
    assert audit[-1].new_edat == response.max_edat_seen
