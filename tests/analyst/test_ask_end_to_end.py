"""`orchestrate` end to end over the fake E-utilities and ClinicalTrials.gov serving real recorded
records, with the analyst built as the server builds it (SQLite store, filesystem blobs, MeSH).

The recorded data is small, so the three demo questions are asked as the closest questions the
real records answer:
- indication_phase_trials: the seed's own "active phase 2/3 trials in non-small cell lung cancer"
  (two real studies match: NCT06382129, phase 3, and NCT05431270, phase 1/2).
- recent_pubs_by_topic: no recorded record is about GLP-1 and obesity; one (PMID 29915538, a
  semaglutide meta-analysis entered 2018-06-20) is about GLP-1 and type 2 diabetes, so that is the
  topic, asked as of 2018-07-01.
- trials_with_pubs: there is no Alzheimer's study in the recording, and no recorded PubMed record
  names a recorded study in its DataBank [SI] field (the two with one name NCT01245062 and
  NCT02149199, which the CT.gov recording lacks; no recorded study JSON exists for them). So the
  question is a real recruiting phase 3 Phelan-McDermid trial (NCT07281079) and its publications:
  the full three-step plan runs, PubMed is asked `NCT07281079[SI]` and truthfully finds none.
"""

from __future__ import annotations

from datetime import date

import pytest

from bio_mcp.errors import BioMcpError
from bio_mcp.features.analyst.ask import Analyst, orchestrate
from bio_mcp.features.analyst.checkpoints import resolve_checkpoint
from bio_mcp.features.analyst.models import AskRequest, AskResponse

TRIALS = "active phase 2/3 trials in non-small cell lung cancer"
PUBS = "recent publications on GLP-1 and type 2 diabetes"
LINKED = "Phase 3 Phelan-McDermid syndrome trials that are recruiting and their publications"
TODAY = date(2026, 8, 11)
PUBS_TODAY = date(2018, 7, 1)
TABLE_RULE = "|---|"


def upstream_requests(fakes) -> int:
    return len(fakes.eutils.requests) + len(fakes.ctgov.requests)


async def ask(analyst: Analyst, question: str, today: date = TODAY, **options) -> AskResponse:
    return await orchestrate(AskRequest(question=question, **options), analyst, today=today)


async def cold_warm_cached(fakes, analyst: Analyst, question: str, today: date) -> tuple[AskResponse, ...]:
    """Cold, then warm and cache_only with the arrival logs cleared: the last two reach no upstream."""
    cold = await ask(analyst, question, today)
    assert upstream_requests(fakes) > 0
    fakes.reset()
    warm = await ask(analyst, question, today)
    cached = await ask(analyst, question, today, fetch_policy="cache_only")
    assert upstream_requests(fakes) == 0
    assert cold.checkpoint_id == warm.checkpoint_id == cached.checkpoint_id
    assert cold.answer == warm.answer == cached.answer
    assert all(step.cache_hit is True for step in warm.trace.steps + cached.trace.steps)
    assert not warm.trace.partial and not cold.trace.partial
    return cold, warm, cached


@pytest.mark.anyio
async def test_indication_phase_trials(fakes, analyst: Analyst) -> None:
    cold, _, _ = await cold_warm_cached(fakes, analyst, TRIALS, TODAY)
    assert cold.trace.frame.entities.indication == "Carcinoma, Non-Small-Cell Lung"
    assert cold.trace.steps[0].cache_hit is False and cold.trace.steps[0].rows == 2
    assert "| NCT ID | Title | Phase | Status | Sponsor | Conditions |" in cold.answer and TABLE_RULE in cold.answer
    assert "| [NCT06382129] |" in cold.answer and "Sichuan Baili" in cold.answer
    assert "| [NCT05431270] |" in cold.answer and "| 1/2 |" in cold.answer
    assert cold.answer.startswith("Found 2 trial(s)")
    document = resolve_checkpoint(analyst.store, cold.checkpoint_id)
    assert document["registry_version"] == analyst.registry.registry_version
    assert document["inputs"]["steps"][0]["args"]["condition"] == "Carcinoma, Non-Small-Cell Lung"
    assert len(document["blob_uris"]) == 1 and list(document["watermarks"])[0].startswith("ctgov.search:")


@pytest.mark.anyio
async def test_ctgov_query_carries_phases_statuses_and_mesh_spellings(fakes, analyst: Analyst) -> None:
    await ask(analyst, TRIALS)
    [search] = fakes.ctgov.requests
    assert search.param("filter.advanced") == "(AREA[Phase]PHASE2 OR AREA[Phase]PHASE3)"
    assert search.param("filter.overallStatus") == "ACTIVE_NOT_RECRUITING,ENROLLING_BY_INVITATION,RECRUITING"
    condition = search.param("query.cond")
    assert condition.startswith('"Carcinoma, Non-Small-Cell Lung" OR ') and '"Non-Small Cell Lung Cancer"' in condition


@pytest.mark.anyio
async def test_recent_pubs_by_topic(fakes, analyst: Analyst) -> None:
    cold, _, _ = await cold_warm_cached(fakes, analyst, PUBS, PUBS_TODAY)
    assert [s.tool for s in cold.trace.plan.steps] == ["pubmed.search", "pubmed.get"]
    assert cold.trace.plan.steps[0].args["query"] == (
        '(GLP-1 AND type 2 diabetes) AND ("2017/07/01"[EDAT] : "2018/07/01"[EDAT])'
    )
    assert "| PMID | Title | Journal | Date |" in cold.answer and TABLE_RULE in cold.answer
    assert "| [PMID 29915538] | Efficacy and Safety of Once-Weekly Semaglutide" in cold.answer
    assert [s.cache_hit for s in cold.trace.steps] == [False, False]
    # The window is the frame's: a year later the same record is no longer recent.
    later = await ask(analyst, PUBS, date(2019, 8, 1))
    assert "No matching publications found (silence, not evidence of absence)." in later.answer and later.checkpoint_id != cold.checkpoint_id


@pytest.mark.anyio
async def test_the_drug_a_trial_question_names_is_what_every_listed_trial_tests(fakes, analyst: Analyst) -> None:
    response = await ask(analyst, "Which trials study pembrolizumab in melanoma?")
    [search] = fakes.ctgov.requests
    assert search.param("query.intr") == "pembrolizumab" and "Melanoma" in search.param("query.cond")
    assert response.answer.startswith("Found ") and "(Melanoma, testing pembrolizumab)" in response.answer
    listed = [line for line in response.answer.splitlines() if line.startswith("| [NCT")]
    assert listed, response.answer
    for nct in (line.split("]")[0].removeprefix("| [") for line in listed):
        interventions = [i["name"].lower() for i in fakes.ctgov.study(nct)["protocolSection"]
                         .get("armsInterventionsModule", {}).get("interventions", [])]
        assert any("pembrolizumab" in name or "mk-3475" in name or "keytruda" in name for name in interventions), nct


@pytest.mark.anyio
async def test_trials_with_pubs(fakes, analyst: Analyst) -> None:
    cold, _, _ = await cold_warm_cached(fakes, analyst, LINKED, TODAY)
    assert [s.id for s in cold.trace.steps] == ["find_trials", "pubs_by_nct", "hydrate"]
    assert all(s.status == "ok" for s in cold.trace.steps)
    assert "| [NCT07281079] | A Study of NNZ-2591 in Pediatric Participants With Phelan-McDermid Syndrome |" in cold.answer
    assert "### Publications\n\nNo matching publications found (silence, not evidence of absence)." in cold.answer
    fakes.reset()
    await ask(analyst, LINKED, fetch_policy="network_only")
    [esearch] = fakes.eutils.requests
    assert esearch.param("term") == "NCT07281079[SI]"


@pytest.mark.anyio
async def test_cache_only_on_a_cold_store_is_annotated_not_raised(fakes, analyst: Analyst) -> None:
    response = await ask(analyst, TRIALS, fetch_policy="cache_only")
    assert upstream_requests(fakes) == 0
    assert response.trace.steps[0].error_code == "NOT_FOUND"
    assert response.trace.partial and "ClinicalTrials.gov could not be searched, so trials are not covered" in response.answer
    assert "No registered trial matched" not in response.answer
    assert "> Note: Some sources failed" in response.answer
    with pytest.raises(BioMcpError):
        resolve_checkpoint(analyst.store, "0" * 64)


@pytest.mark.anyio
async def test_slow_ctgov_gives_a_partial_answer_on_time(fakes, analyst: Analyst) -> None:
    fakes.ctgov.latency_s = 2.0
    response = await ask(analyst, TRIALS, time_budget_ms=500)
    # The budget ended the wait, not the answer (said by the trace: a clock bound flakes under load).
    assert response.trace.partial
    assert response.trace.steps[0].error_message == "time budget spent"
    assert "> Note: Data still loading" in response.answer


@pytest.mark.anyio
async def test_slow_pubmed_keeps_the_trials_and_drops_the_rest_on_time(fakes, analyst: Analyst) -> None:
    fakes.eutils.latency_s = 2.0
    response = await ask(analyst, LINKED, time_budget_ms=800)
    assert [s.status for s in response.trace.steps] == ["ok", "error", "dropped"]
    assert response.trace.partial and "| [NCT07281079] |" in response.answer
    assert "> Note: Data still loading" in response.answer
