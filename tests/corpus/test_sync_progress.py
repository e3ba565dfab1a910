"""A running sync's progress in its job row (`bio-mcp://sync/{query_key}`), read while it runs, against
the fake E-utilities over the real records, on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import json

import anyio
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.testing.faults import Fault
from tests.corpus.corpus_fixtures import SPREAD, TERM, UNTIL

pytestmark = pytest.mark.anyio

BATCH = 100
# Each EFetch answers this late, so the row holds each batch's counts a while before the next.
EFETCH_DELAY_S = 1.0


async def test_a_running_sync_shows_its_records_planned_fetched_and_stored(make_service, corpus_fakes, database_url) -> None:
    service = make_service(database_url, sync_options=SyncOptions(until=UNTIL, batch_size=BATCH,
                                                                  since=SPREAD[0].date()))
    total = len(corpus_fakes.eutils.records)
    assert total > 2 * BATCH
    corpus_fakes.eutils.inject(Fault.slow(EFETCH_DELAY_S), times=None, path="efetch.fcgi")
    seen: list[dict] = []
    async with anyio.create_task_group() as tasks:
        done = anyio.Event()

        async def sync() -> None:
            await service.sync_delta(SyncDeltaRequest(query_key="slow/key", term=TERM))
            done.set()

        tasks.start_soon(sync)
        while not done.is_set():
            progress = json.loads(await service.sync_progress("slow%2Fkey"))
            if progress["jobs"]:
                seen.append(progress["jobs"][0])
            await anyio.sleep(0.05)
    final = json.loads(await service.sync_progress("slow%2Fkey"))
    assert final["query_key"] == "slow/key" and final["last_edat"] is not None
    [job] = final["jobs"]
    assert job["status"] == "done" and job["planned"] == job["fetched"] == job["inserted"] == total
    assert job["finished_at"] is not None and job["term"] == TERM
    running = [state for state in seen if state["status"] == "running"]
    # Seen while it ran: the plan, then records fetched batch by batch (never past the plan).
    fetched = [state["fetched"] for state in running if state["planned"] == total]
    assert fetched == sorted(fetched) and {BATCH, 2 * BATCH} <= set(fetched)
    assert all(state["fetched"] <= total and state["finished_at"] is None for state in running)
    assert {state["job_id"] for state in seen} == {job["job_id"]}


async def test_a_key_never_synced_has_no_jobs(make_service) -> None:
    service = make_service()
    progress = json.loads(await service.sync_progress("never"))
    assert progress == {"query_key": "never", "last_edat": None, "jobs": []}


async def test_a_sync_that_fails_part_way_ends_failed_with_what_it_had_done(make_service, corpus_fakes) -> None:
    service = make_service(sync_options=SyncOptions(until=UNTIL, batch_size=BATCH, since=SPREAD[0].date()))
    efetches = itertools.count()
    # The first EFetch is answered; every later one fails, retries included.
    corpus_fakes.eutils.inject(corpus_fakes.eutils.server_error(503), times=None, path="efetch.fcgi",
                        when=lambda request: next(efetches) > 0)
    with pytest.raises(BioMcpError) as raised:
        await service.sync_delta(SyncDeltaRequest(query_key="broken", term=TERM))
    assert raised.value.code == ErrorCode.UPSTREAM
    [job] = json.loads(await service.sync_progress("broken"))["jobs"]
    assert job["status"] == "failed" and job["error"] and job["finished_at"] is not None
    assert (job["planned"], job["fetched"]) == (len(corpus_fakes.eutils.records), BATCH)
