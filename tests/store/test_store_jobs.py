"""Sync job rows: their life cycle and the refusals that keep it honest."""

from __future__ import annotations

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import MetadataStore

TERM = "(GLP-1 receptor agonist) AND obesity"


def test_a_job_runs_then_finishes_with_its_counts(store: MetadataStore) -> None:
    with store.transaction() as tx:
        job = tx.jobs.start(
            "sync_2025-08-17T16:02:10Z",
            "glp1",
            TERM,
            window_start="2025-08-12T15:59:02Z",
            window_end="2025-08-17T16:02:10+00:00",
        )
        assert (job.status, job.finished_at, job.window_end) == ("running", None, "2025-08-17T16:02:10Z")
    counts = {"inserted": 37, "updated": 12, "skipped": 441, "pmids_processed": 490}
    with store.transaction() as tx:
        done = tx.jobs.finish(job.job_id, counts, ["2 PMIDs had no abstract"])
    assert done.status == "done" and done.counts == counts and done.warnings == ["2 PMIDs had no abstract"]
    assert done.finished_at is not None and done.finished_at >= done.started_at


def test_failures_and_listing(store: MetadataStore) -> None:
    with store.transaction() as tx:
        tx.jobs.start("job-a", "glp1", TERM)
        tx.jobs.start("job-b", "glp1", TERM)
        tx.jobs.start("job-c", "other", TERM)
        failed = tx.jobs.fail("job-a", "UPSTREAM: E-utilities returned 429 five times", {"inserted": 3})
        assert (failed.status, failed.counts) == ("failed", {"inserted": 3})
        assert {job.job_id for job in tx.jobs.recent(query_key="glp1")} == {"job-a", "job-b"}
        assert [job.job_id for job in tx.jobs.recent(status="running", query_key="glp1")] == ["job-b"]
        assert tx.jobs.abandon_running("glp1") == ["job-b"]
        assert tx.jobs.abandon_running("glp1") == []
        assert tx.jobs.get("job-c") is not None and tx.jobs.get("job-c").status == "running"  # type: ignore[union-attr]


def test_a_job_ends_once(store: MetadataStore) -> None:
    with store.transaction() as tx:
        tx.jobs.start("job-a", "glp1", TERM)
        tx.jobs.finish("job-a", {})
        with pytest.raises(BioMcpError) as caught:
            tx.jobs.fail("job-a", "late failure")
        assert caught.value.code is ErrorCode.INVARIANT_FAILURE
        with pytest.raises(BioMcpError) as caught:
            tx.jobs.finish("no-such-job", {})
        assert caught.value.code is ErrorCode.NOT_FOUND
        with pytest.raises(BioMcpError) as caught:
            tx.jobs.start("job-b", "glp1", TERM, window_start="last week")
        assert caught.value.code is ErrorCode.VALIDATION


def test_a_running_job_reports_progress_and_a_late_report_never_overwrites_its_end(store: MetadataStore) -> None:
    with store.transaction() as tx:
        tx.jobs.start("job-p", "glp1", TERM)
        assert tx.jobs.progress("job-p", {"planned": 466, "fetched": 200, "inserted": 0})
    with store.read() as tx:
        running = tx.jobs.get("job-p")
    assert running is not None and (running.status, running.counts) == ("running", {"planned": 466, "fetched": 200,
                                                                                     "inserted": 0})
    final = {"planned": 466, "fetched": 466, "inserted": 466}
    with store.transaction() as tx:
        tx.jobs.finish("job-p", final)
        assert not tx.jobs.progress("job-p", {"planned": 466, "fetched": 400, "inserted": 200})
        assert not tx.jobs.progress("no-such-job", final)
    with store.read() as tx:
        done = tx.jobs.get("job-p")
    assert done is not None and (done.status, done.counts) == ("done", final)
