"""The EDAT window splitter: a window over ESearch's 9,999-id ceiling is halved until each part fits."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from bio_mcp.features.corpus.windows import ESEARCH_CEILING, count_window, plan_windows, window_ids
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.corpus.corpus_fixtures import corpus_settings

pytestmark = pytest.mark.anyio

CLONES = 10_050


async def test_an_oversized_window_is_split_without_dropping_records(corpus_fakes, bio_home) -> None:
    clones = corpus_fakes.eutils.replicate(CLONES, first_pmid=90_000_000)
    corpus_fakes.eutils.spread_edats(datetime(2023, 3, 1), datetime(2023, 3, 21), pmids=clones)
    eutils = EutilsClient(corpus_settings(bio_home, corpus_fakes))
    try:
        start, end = date(2023, 3, 1), date(2023, 3, 31)
        total = await count_window(eutils, "all[sb]", start, end)
        assert total == CLONES > ESEARCH_CEILING
        plan = await plan_windows(eutils, "all[sb]", start, end)
        assert len(plan.windows) > 1 and not plan.warnings
        assert all(window.count <= ESEARCH_CEILING for window in plan.windows)
        assert plan.total == total
        for before, after in zip(plan.windows, plan.windows[1:]):
            assert before.end < after.start
        fetched = [pmid for window in plan.windows for pmid in await window_ids(eutils, "all[sb]", window, page_size=4000)]
        assert len(fetched) == len(set(fetched)) == CLONES
    finally:
        await eutils.aclose()


async def test_a_single_day_over_the_ceiling_is_reported(corpus_fakes, bio_home) -> None:
    clones = corpus_fakes.eutils.replicate(CLONES, first_pmid=90_000_000)
    for pmid in clones:
        corpus_fakes.eutils.set_edat(pmid, datetime(2023, 5, 5, 12, 0))
    eutils = EutilsClient(corpus_settings(bio_home, corpus_fakes))
    try:
        plan = await plan_windows(eutils, "all[sb]", date(2023, 5, 1), date(2023, 5, 31))
        assert [(w.start, w.end, w.count) for w in plan.windows] == [(date(2023, 5, 5), date(2023, 5, 5), CLONES)]
        assert plan.windows[0].truncated
        assert len(plan.warnings) == 1 and str(CLONES) in plan.warnings[0]
    finally:
        await eutils.aclose()


async def test_max_days_caps_window_spans(corpus_fakes, bio_home) -> None:
    eutils = EutilsClient(corpus_settings(bio_home, corpus_fakes))
    try:
        plan = await plan_windows(eutils, "all[sb]", date(2024, 1, 1), date(2024, 12, 31), max_days=40)
        assert all((w.end - w.start) <= timedelta(days=39) for w in plan.windows)
        assert plan.total == len(corpus_fakes.eutils.records)
    finally:
        await eutils.aclose()


async def test_a_capped_plan_stops_at_the_cap_and_counts_only_what_it_plans(corpus_fakes, bio_home) -> None:
    corpus_fakes.eutils.spread_edats(datetime(2024, 1, 1), datetime(2024, 12, 31))
    eutils = EutilsClient(corpus_settings(bio_home, corpus_fakes))
    try:
        start, end = date(2024, 1, 1), date(2024, 12, 31)
        whole = await plan_windows(eutils, "all[sb]", start, end, max_count=100)
        assert whole.range_count == len(corpus_fakes.eutils.records)
        assert not whole.complete and 0 < whole.total <= 100
        assert all(w.count <= 100 for w in whole.windows) and whole.windows[0].start == start
        counted = len(corpus_fakes.eutils.faults.log.to("esearch.fcgi"))
        corpus_fakes.eutils.faults.reset()
        full = await plan_windows(eutils, "all[sb]", start, end, max_count=None)
        assert full.complete and full.total == len(corpus_fakes.eutils.records)
        assert counted < 20  # the capped plan never counts the months it will not sync
    finally:
        await eutils.aclose()
