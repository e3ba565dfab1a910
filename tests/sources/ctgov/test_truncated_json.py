"""A CT.gov answer cut short is fetched again, like a 5xx; cut on every attempt, it is a typed UPSTREAM
error that says so. Checked against the fake ClinicalTrials.gov server's truncation fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.client import CtgovClient
from bio_mcp.sources.ctgov.models import StudyQuery
from bio_mcp.sources.ctgov.parse import parse_study_body, parse_study_page, unparsable_json

RECORDED_STUDY = "get_nct06382129_20260811.json"


def _client(fakes, **env) -> CtgovClient:
    return CtgovClient(load_settings(CTGOV_BASE_URL=fakes.ctgov_base_url, CTGOV_RPS=50, **env))


def test_every_cut_of_a_real_answer_is_refused_and_the_whole_answer_passes(data_dir: Path) -> None:
    body = (data_dir / "ctgov" / "biomcp" / RECORDED_STUDY).read_bytes()
    assert unparsable_json(body, "application/json") is None
    # Non-ASCII text, so some cuts fall inside a multi-byte character.
    assert any(byte >= 0x80 for byte in body)
    for keep in range(1, len(body), max(1, len(body) // 997)):
        error = unparsable_json(body[:keep], "application/json")
        assert error is not None and error.code == ErrorCode.UPSTREAM, keep
        assert "truncated" in error.message, (keep, error.message)
        assert error.details["bytes"] == keep


def test_a_body_that_is_not_json_is_named_as_such() -> None:
    error = unparsable_json(b"<html><body>Service maintenance</body></html>", "text/html")
    assert error is not None and error.code == ErrorCode.UPSTREAM
    assert "not JSON" in error.message and "truncated" not in error.message


@pytest.mark.anyio
async def test_a_truncated_search_page_is_fetched_again(fakes, bio_home) -> None:
    fakes.ctgov.inject(fakes.ctgov.truncated(0.5), path="/studies")
    client = _client(fakes)
    try:
        response = await client.search(StudyQuery(condition="melanoma", page_size=5))
    finally:
        await client.aclose()
    page = parse_study_page(response.body)
    assert response.attempts == 2 and page.studies
    assert [(a.fault, a.status) for a in fakes.ctgov.requests] == [("truncated", 200), (None, 200)]


@pytest.mark.anyio
async def test_a_truncated_study_is_fetched_again(fakes, bio_home) -> None:
    nct_id = fakes.ctgov.nct_ids[0]
    fakes.ctgov.inject(fakes.ctgov.truncated(0.3))
    client = _client(fakes)
    try:
        response = await client.get_study(nct_id)
    finally:
        await client.aclose()
    assert parse_study_body(response.body).nct_id == nct_id and response.attempts == 2
    assert [a.fault for a in fakes.ctgov.requests] == ["truncated", None]


@pytest.mark.anyio
async def test_json_truncated_on_every_attempt_is_a_typed_upstream_error(fakes, bio_home) -> None:
    fakes.ctgov.inject(fakes.ctgov.truncated(0.5), path="/studies", times=None)
    client = _client(fakes, CTGOV_MAX_RETRIES=2)
    try:
        with pytest.raises(BioMcpError) as info:
            await client.search(StudyQuery(condition="melanoma", page_size=5))
    finally:
        await client.aclose()
    error = info.value
    assert error.code == ErrorCode.UPSTREAM and "ClinicalTrials.gov returned truncated JSON" in error.message
    assert error.details["attempts"] == 3 and "query.cond=melanoma" in error.details["url"]
    assert [a.fault for a in fakes.ctgov.requests] == ["truncated"] * 3
