"""An upstream outage is not "no results": the answer names the source that failed and why, and a
question for which nothing at all could be fetched is an UPSTREAM error; faults injected in the
fake E-utilities and ClinicalTrials.gov over real records."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.ask import orchestrate
from bio_mcp.features.analyst.models import AskRequest
from bio_mcp.features.analyst.service import build_analyst
from bio_mcp.sources.ncbi.client import EutilsClient

pytestmark = pytest.mark.anyio

LINKED = "Phase 3 Phelan-McDermid syndrome trials that are recruiting and their publications"
TODAY = date(2026, 8, 11)


@pytest.fixture
async def analyst(fakes, bio_home: Path, mesh_path: Path):
    settings = load_settings(
        BIO_MCP_HOME=str(bio_home), NCBI_EUTILS_BASE_URL=fakes.eutils_base_url, CTGOV_BASE_URL=fakes.ctgov_base_url,
        BIO_MCP_MESH_PATH=str(mesh_path), NCBI_MAX_RETRIES=0, CTGOV_MAX_RETRIES=0,
    )
    eutils = EutilsClient(settings)
    built = build_analyst(settings, eutils)
    yield built
    await built.aclose()
    await eutils.aclose()


async def ask(analyst, question: str = LINKED):
    request = AskRequest(question=question, fetch_policy="network_only", time_budget_ms=30_000)
    return await orchestrate(request, analyst, today=TODAY)


async def test_a_failed_pubmed_step_is_named_with_its_reason(fakes, analyst) -> None:
    fakes.eutils.inject(fakes.eutils.server_error(503), times=None)
    response = await ask(analyst)
    assert "| [NCT07281079] |" in response.answer
    [failure] = response.failures
    assert failure.source == "PubMed (NCBI E-utilities)" and failure.step == "pubs_by_nct"
    assert failure.code == "UPSTREAM" and "503" in failure.message
    assert failure.skipped_steps == ["hydrate"]
    assert "PubMed (NCBI E-utilities) failed in step pubs_by_nct" in response.answer
    assert "503" in response.answer and "steps not run because of it: hydrate" in response.answer
    # An outage is said to be one in the table too, never "no publications".
    assert "### Publications\n\nPubMed could not be searched, so publications are not covered (see the notes)." in response.answer
    assert "No matching publications" not in response.answer


async def test_nothing_fetched_because_ctgov_is_down_is_an_upstream_error(fakes, analyst) -> None:
    fakes.ctgov.inject(fakes.ctgov.server_error(503), times=None)
    with pytest.raises(BioMcpError) as raised:
        await ask(analyst)
    assert raised.value.code is ErrorCode.UPSTREAM
    assert "ClinicalTrials.gov failed" in raised.value.message
    [failure] = raised.value.details["failures"]
    assert failure["source"] == "ClinicalTrials.gov" and failure["step"] == "find_trials"
    assert failure["skipped_steps"] == ["pubs_by_nct", "hydrate"]


async def test_a_healthy_answer_has_no_failures(fakes, analyst) -> None:
    response = await ask(analyst)
    assert response.failures == [] and "failed" not in response.answer
