"""Honest corpus answers: a query key bound to its term, a bounded first sync with a per-call record
cap that loses and doubles nothing, future watermarks refused, and rag.search results that carry
title, year and snippet and say when the corpus is empty; on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.models import (
    CheckpointSetRequest,
    RagSearchRequest,
    SyncDeltaRequest,
)
from bio_mcp.features.corpus.search import EMPTY_CORPUS_NOTE, snippet
from bio_mcp.features.corpus.sync import SyncOptions
from tests.corpus.corpus_fixtures import SPREAD, TERM, UNTIL

pytestmark = pytest.mark.anyio


def stored_pmids(service) -> set[str]:
    with service.store.read() as tx:
        return {chunk.pmid for page in tx.chunks.iterate() for chunk in page}


async def test_a_query_key_is_bound_to_its_term(make_service, database_url) -> None:
    service = make_service(database_url)
    await service.sync_delta(SyncDeltaRequest(query_key="k", term="breast cancer"))
    with pytest.raises(BioMcpError) as refused:
        await service.sync_delta(SyncDeltaRequest(query_key="k", term="asthma"))
    assert refused.value.code is ErrorCode.VALIDATION
    assert "'breast cancer'" in refused.value.message and "reset_term" in refused.value.message
    assert refused.value.details["bound_term"] == "breast cancer"
    # The same term again is fine, and the refusal left the watermark alone.
    with service.store.read() as tx:
        before = tx.checkpoints.get("k")
    again = await service.sync_delta(SyncDeltaRequest(query_key="k", term="breast cancer"))
    assert again.inserted == 0 and before is not None


async def test_an_explicit_reset_rebinds_clears_the_watermark_and_is_audited(make_service, corpus_fakes, database_url) -> None:
    service = make_service(database_url)
    first = await service.sync_delta(SyncDeltaRequest(query_key="k", term="breast cancer"))
    reset = await service.sync_delta(SyncDeltaRequest(query_key="k", term="asthma", reset_term=True))
    assert reset.pmids_processed > 0 and any("first sync" in warning for warning in reset.warnings)
    with service.store.read() as tx:
        assert tx.checkpoints.term("k") == "asthma"
        audit = tx.checkpoints.term_audit("k")
    assert len(audit) == 1
    assert (audit[0]["old_term"], audit[0]["new_term"]) == ("breast cancer", "asthma")
    assert audit[0]["old_edat"] == first.max_edat_seen and audit[0]["actor"] == "pubmed.sync_delta"
    with pytest.raises(BioMcpError):
        await service.sync_delta(SyncDeltaRequest(query_key="k", term="breast cancer"))


async def test_a_key_synced_before_binding_is_bound_to_its_last_jobs_term(make_service, database_url) -> None:
    service = make_service(database_url)
    await service.open()
    with service.store.transaction() as tx:
        tx.jobs.start("old-job", "legacy", "asthma", window_start=None, window_end=None)
    with pytest.raises(BioMcpError) as refused:
        await service.sync_delta(SyncDeltaRequest(query_key="legacy", term="cancer"))
    assert refused.value.details["bound_term"] == "asthma"


async def test_a_first_sync_looks_back_a_bounded_time_not_to_the_beginning(make_service, corpus_fakes) -> None:
    # Half the records got EDATs long ago: a first sync with the default look-back must not reach them.
    old = sorted(corpus_fakes.eutils.records, key=int)[::2]
    corpus_fakes.eutils.spread_edats(datetime(1990, 1, 1), datetime(1995, 1, 1), old)
    service = make_service(sync_options=SyncOptions(until=UNTIL, batch_size=100, lookback_days=400))
    first = await service.sync_delta(SyncDeltaRequest(query_key="k", term=TERM))
    assert first.pmids_processed == len(corpus_fakes.eutils.records) - len(old)
    assert stored_pmids(service).isdisjoint(old)
    assert f"from EDAT {(UNTIL - timedelta(days=400)).isoformat()}" in first.warnings[0]
    esearch_floor = min(
        request.param("mindate") for request in corpus_fakes.eutils.faults.log.to("esearch.fcgi") if request.param("mindate")
    )
    assert esearch_floor == (UNTIL - timedelta(days=400)).strftime("%Y/%m/%d")


async def test_the_record_cap_syncs_a_broad_term_across_calls_losing_and_doubling_nothing(
    make_service, corpus_fakes, database_url
) -> None:
    options = SyncOptions(until=UNTIL, batch_size=100, since=SPREAD[0].date())
    service = make_service(database_url, sync_options=options)
    request = SyncDeltaRequest(query_key="capped", term=TERM, max_records=120, overlap_days=0)
    edats = {pmid: record.entrez_date for pmid, record in corpus_fakes.eutils.records.items()}
    calls = []
    while True:
        response = await service.sync_delta(request)
        calls.append(response)
        with service.store.read() as tx:
            watermark = tx.checkpoints.get("capped")
        assert watermark == response.max_edat_seen
        # Everything at or below the watermark's day is stored; nothing after it was committed.
        stored = stored_pmids(service)
        day = datetime.fromisoformat(watermark.removesuffix("Z")).date()
        assert {pmid for pmid, edat in edats.items() if edat.date() <= day} == stored
        if not response.more_to_sync:
            break
        assert response.pmids_processed <= 120
        assert any("record cap (120)" in warning and "call again" in warning for warning in response.warnings)
    assert len(calls) >= 4
    assert sum(call.inserted for call in calls) == len(edats) and sum(call.updated for call in calls) == 0

    # One uncapped call of the same term over the same store finds exactly what the capped calls stored.
    whole = await service.sync_delta(
        SyncDeltaRequest(query_key="whole", term=TERM, max_records=100_000)
    )
    assert not whole.more_to_sync
    assert (whole.inserted, whole.updated, whole.skipped) == (0, 0, len(edats))


async def test_a_future_watermark_is_refused(make_service, database_url) -> None:
    service = make_service(database_url)
    tomorrow = (datetime.now().astimezone() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    with pytest.raises(BioMcpError) as refused:
        await service.checkpoint_set(CheckpointSetRequest(query_key="k", last_edat=tomorrow))
    assert refused.value.code is ErrorCode.VALIDATION and "future" in refused.value.message
    assert (await service.checkpoint_set(CheckpointSetRequest(query_key="k", last_edat="2024-06-01T00:00:00Z"))).ok


async def test_search_on_an_empty_corpus_says_how_to_fill_it(make_service) -> None:
    service = make_service()
    response = await service.search(RagSearchRequest(query="breast cancer"))
    assert response.results == [] and response.note == EMPTY_CORPUS_NOTE
    assert "pubmed.sync_delta" in response.note and "bio-mcp sync" in response.note


async def test_search_results_carry_title_year_and_a_snippet(make_service, corpus_fakes, database_url) -> None:
    service = make_service(database_url)
    await service.sync_delta(SyncDeltaRequest(query_key="all", term=TERM))
    response = await service.search(RagSearchRequest(query="tamoxifen breast cancer", top_k=5))
    # No record names tamoxifen: the results are about breast cancer, and the note says so.
    assert response.results and response.unmatched_terms == ["tamoxifen"]
    assert response.note == "No document mentions tamoxifen; the results below match only 'breast cancer'."
    for result in response.results:
        record = corpus_fakes.eutils.record(result.doc_id.removeprefix("pmid:")).article
        assert result.title and result.title.rstrip(".") in record.title
        assert result.year is not None and 1900 < result.year <= date.today().year
        assert result.snippet and len(result.snippet) <= 300
    assert any(word in response.results[0].snippet.lower() for word in ("tamoxifen", "breast", "cancer"))
    nothing = await service.search(RagSearchRequest(query="zzzzqqqq"))
    assert nothing.results == [] and "documents" in nothing.note and "sync" not in nothing.note


def test_snippet_starts_near_the_first_query_word() -> None:
    text = " ".join(["filler"] * 100) + " the tamoxifen arm " + " ".join(["tail"] * 100)
    cut = snippet(text, "tamoxifen")
    assert "tamoxifen" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 282
    assert snippet("short text", "x") == "short text"
