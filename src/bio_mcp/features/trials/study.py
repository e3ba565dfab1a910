"""`trials_get`: one study by NCT id with eligibility, arms, outcomes and its posted results.

A study's results can be far larger than a result (one recorded study lists 2,029 adverse
events): outcome measures and then adverse events are kept while they fit, the rest goes to one
scratch text as JSON lines.
"""

from __future__ import annotations

import json

from bio_mcp.features.overflow import Overflow, json_size, spill
from bio_mcp.features.trials.models import TrialsGetRequest, TrialsGetResponse, TrialsOverflow
from bio_mcp.features.trials.text import budget_share, event_text, outcome_text, study_text
from bio_mcp.sources.ctgov.client import CtgovClient
from bio_mcp.sources.ctgov.models import AdverseEvent, OutcomeResult, StudyDetail, StudyResults
from bio_mcp.sources.ctgov.parse import parse_study_detail


async def get_trial(
    request: TrialsGetRequest, ctgov: CtgovClient, overflow: Overflow | None = None
) -> TrialsGetResponse:
    response = await ctgov.get_study(request.nct_id)
    study = parse_study_detail(response.body)
    if study.results is None or overflow is None:
        return TrialsGetResponse(study=study)
    results = study.results
    events = results.adverse_events.events if results.adverse_events else []
    bare = _with_rows(study, [], [])
    rows = [("outcome", o) for o in results.outcomes] + [("adverse_event", e) for e in events]
    spilled = await spill(
        overflow,
        rows,
        lambda row: budget_share(outcome_text(row[1]) if row[0] == "outcome" else event_text(row[1]), row[1]),
        lambda rest: "\n".join(
            json.dumps({kind: item.model_dump(mode="json")}, ensure_ascii=False) for kind, item in rest
        ),
        "application/x-ndjson",
        reserved=max(len(study_text(bare)), json_size(bare.model_dump(mode="json")) // 4),
    )
    if not spilled.uri:
        return TrialsGetResponse(study=study)
    kept = _with_rows(
        study,
        [item for kind, item in spilled.kept if kind == "outcome"],
        [item for kind, item in spilled.kept if kind == "adverse_event"],
    )
    return TrialsGetResponse(
        study=kept, overflow=TrialsOverflow(uri=spilled.uri, items=len(spilled.rest), chars=spilled.chars)
    )


def _with_rows(study: StudyDetail, outcomes: list[OutcomeResult], events: list[AdverseEvent]) -> StudyDetail:
    results = study.results or StudyResults()
    adverse = results.adverse_events.model_copy(update={"events": events}) if results.adverse_events else None
    return study.model_copy(
        update={"results": results.model_copy(update={"outcomes": outcomes, "adverse_events": adverse})}
    )


def get_text(response: TrialsGetResponse) -> str:
    text = study_text(response.study)
    if response.overflow:
        text += (
            f"\n\n{response.overflow.items} more results rows (outcomes, adverse events) did not fit: "
            f"{response.overflow.uri}"
        )
    return text
