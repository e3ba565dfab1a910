"""`trials_search`: one page of ClinicalTrials.gov studies, with its page token and total count."""

from __future__ import annotations

from bio_mcp.features.overflow import Overflow, spill
from bio_mcp.features.trials.models import TrialsOverflow, TrialsSearchRequest, TrialsSearchResponse
from bio_mcp.features.trials.text import budget_share, study_line
from bio_mcp.sources.ctgov.client import CtgovClient
from bio_mcp.sources.ctgov.models import StudyQuery
from bio_mcp.sources.ctgov.parse import parse_study_page


def _query(request: TrialsSearchRequest) -> StudyQuery:
    return StudyQuery(
        condition=request.condition,
        term=request.term,
        intervention=request.intervention,
        sponsor=request.sponsor,
        location=request.location,
        statuses=tuple(request.statuses),
        phases=tuple(request.phases),
        start_from=request.start_from,
        start_to=request.start_to,
        completion_from=request.completion_from,
        completion_to=request.completion_to,
        page_size=request.page_size,
        page_token=request.page_token,
        count_total=True,
    )


async def search_trials(
    request: TrialsSearchRequest, ctgov: CtgovClient, overflow: Overflow | None = None
) -> TrialsSearchResponse:
    response = await ctgov.search(_query(request))
    page = parse_study_page(response.body)
    spilled = await spill(
        overflow,
        page.studies,
        lambda study: budget_share(study_line(study), study),
        lambda rest: "\n".join(study.model_dump_json() for study in rest),
        "application/x-ndjson",
    )
    return TrialsSearchResponse(
        total_count=page.total_count,
        studies=spilled.kept,
        next_page_token=page.next_page_token,
        overflow=TrialsOverflow(uri=spilled.uri, items=len(spilled.rest), chars=spilled.chars)
        if spilled.uri
        else None,
    )


def search_text(response: TrialsSearchResponse) -> str:
    total = (
        "total not given on later pages"
        if response.total_count is None
        else f"{response.total_count} studies match"
    )
    lines = [f"ClinicalTrials.gov: {total}; this page {len(response.studies)}."]
    if not response.studies:
        lines.append("No study on this page matches.")
    lines += [study_line(study) for study in response.studies]
    if response.overflow:
        lines.append(f"{response.overflow.items} more studies of this page: {response.overflow.uri}")
    lines.append(
        f"next_page_token: `{response.next_page_token}`" if response.next_page_token else "Last page."
    )
    return "\n".join(lines)
