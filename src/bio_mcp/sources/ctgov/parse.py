"""API v2 JSON to `Study` / `StudyPage`, tolerant of the reduced records a `fields=` request returns."""

from __future__ import annotations

import json
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.models import (
    AdverseEvent,
    AdverseEvents,
    Arm,
    Eligibility,
    EventGroup,
    Intervention,
    Measurement,
    OutcomeResult,
    PlannedOutcome,
    Study,
    StudyDetail,
    StudyPage,
    StudyReference,
    StudyResults,
)

# A body cut inside a token (`fals`, `1.`, `\u12`) leaves fewer characters than this after the
# position json reports; a longer rest there means the JSON is wrong, not cut.
_LONGEST_TOKEN_CUT = 32


def _load(body: bytes | str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BioMcpError(
            ErrorCode.UPSTREAM, "ClinicalTrials.gov returned a body that is not JSON", {"error": str(exc)[:200]}
        ) from None


def unparsable_json(body: bytes, content_type: str) -> BioMcpError | None:
    """`BioMcpError(UPSTREAM)` when a 2xx body is not whole JSON, else None. Every CT.gov answer is
    JSON, and one that stops short is nearly always a connection cut mid-answer: the client asks
    again. The whole body is parsed (json.loads, C): a cheaper look at its ends cannot tell a body
    cut right after a closing brace from a whole one."""
    try:
        json.loads(body)
    except UnicodeDecodeError as exc:  # a cut can fall inside a multi-byte character
        return _not_json(exc.reason == "unexpected end of data", len(body), exc.start, exc.reason)
    except json.JSONDecodeError as exc:
        return _not_json(_stops_short(exc), len(body), exc.pos, exc.msg)
    return None


def _stops_short(exc: json.JSONDecodeError) -> bool:
    """Whether the parse failed because the text ended: inside a string (the error points at the
    string's start), or within a token's length of the end (a cut `tru`, `1.`, `\\u12`)."""
    return exc.msg.startswith("Unterminated string") or len(exc.doc[exc.pos:].strip()) < _LONGEST_TOKEN_CUT


def _not_json(cut: bool, size: int, position: int, reason: str) -> BioMcpError:
    what = "truncated JSON (the answer stops before it is complete)" if cut else "a body that is not JSON"
    return BioMcpError(ErrorCode.UPSTREAM, f"ClinicalTrials.gov returned {what}",
                       {"bytes": size, "position": position, "error": reason})


def _module(protocol: dict[str, Any], name: str) -> dict[str, Any]:
    value = protocol.get(name)
    return value if isinstance(value, dict) else {}


def _date(struct: Any) -> str | None:
    return struct.get("date") if isinstance(struct, dict) else None


def parse_study(record: dict[str, Any]) -> Study:
    protocol = record.get("protocolSection")
    if not isinstance(protocol, dict):
        raise BioMcpError(ErrorCode.UPSTREAM, "a ClinicalTrials.gov study has no protocolSection")
    ident = _module(protocol, "identificationModule")
    nct_id = ident.get("nctId")
    if not isinstance(nct_id, str) or not nct_id:
        raise BioMcpError(ErrorCode.UPSTREAM, "a ClinicalTrials.gov study has no nctId")
    status = _module(protocol, "statusModule")
    design = _module(protocol, "designModule")
    enrollment = design.get("enrollmentInfo", {}).get("count") if isinstance(design.get("enrollmentInfo"), dict) else None
    interventions = [
        Intervention(name=item["name"], type=item.get("type"))
        for item in _module(protocol, "armsInterventionsModule").get("interventions", [])
        if isinstance(item, dict) and item.get("name")
    ]
    references = [
        StudyReference(pmid=item.get("pmid"), type=item.get("type"), citation=item.get("citation"))
        for item in _module(protocol, "referencesModule").get("references", [])
        if isinstance(item, dict)
    ]
    return Study(
        nct_id=nct_id,
        brief_title=ident.get("briefTitle"),
        official_title=ident.get("officialTitle"),
        overall_status=status.get("overallStatus"),
        phases=list(design.get("phases") or []),
        conditions=list(_module(protocol, "conditionsModule").get("conditions") or []),
        interventions=interventions,
        sponsor=_module(protocol, "sponsorCollaboratorsModule").get("leadSponsor", {}).get("name"),
        start_date=_date(status.get("startDateStruct")),
        completion_date=_date(status.get("completionDateStruct")),
        enrollment=enrollment if isinstance(enrollment, int) else None,
        has_results=bool(record.get("hasResults", False)),
        last_update=_date(status.get("lastUpdatePostDateStruct")),
        references=references,
    )


def _load_record(body: bytes | str) -> dict[str, Any]:
    record = _load(body)
    if not isinstance(record, dict):
        raise BioMcpError(ErrorCode.UPSTREAM, "a ClinicalTrials.gov study is not a JSON object")
    return record


def parse_study_body(body: bytes | str) -> Study:
    """`/studies/{nctId}`."""
    return parse_study(_load_record(body))


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _eligibility(module: dict[str, Any]) -> Eligibility | None:
    if not module:
        return None
    volunteers = module.get("healthyVolunteers")
    return Eligibility(
        criteria=module.get("eligibilityCriteria"), sex=module.get("sex"), minimum_age=module.get("minimumAge"),
        maximum_age=module.get("maximumAge"), healthy_volunteers=volunteers if isinstance(volunteers, bool) else None,
    )


def _planned_outcomes(module: dict[str, Any]) -> list[PlannedOutcome]:
    return [
        PlannedOutcome(kind=kind, measure=item["measure"], time_frame=item.get("timeFrame"))
        for kind, key in (("PRIMARY", "primaryOutcomes"), ("SECONDARY", "secondaryOutcomes"), ("OTHER", "otherOutcomes"))
        for item in _dicts(module.get(key))
        if item.get("measure")
    ]


def _group_titles(groups: Any) -> dict[str, str]:
    return {group["id"]: str(group.get("title") or group["id"]) for group in _dicts(groups) if group.get("id")}


def _outcome_result(measure: dict[str, Any]) -> OutcomeResult:
    groups = _group_titles(measure.get("groups"))
    measurements = [
        Measurement(
            group=groups.get(item.get("groupId", ""), item.get("groupId") or "?"),
            category=category.get("title") or klass.get("title"),
            value=item.get("value"), spread=item.get("spread"),
            lower=item.get("lowerLimit"), upper=item.get("upperLimit"),
        )
        for klass in _dicts(measure.get("classes"))
        for category in _dicts(klass.get("categories"))
        for item in _dicts(category.get("measurements"))
    ]
    return OutcomeResult(
        type=measure.get("type"), title=str(measure.get("title") or "untitled outcome"),
        time_frame=measure.get("timeFrame"), unit=measure.get("unitOfMeasure"), param_type=measure.get("paramType"),
        measurements=measurements,
        p_values=[str(a["pValue"]) for a in _dicts(measure.get("analyses")) if a.get("pValue") is not None],
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def _adverse_events(module: dict[str, Any]) -> AdverseEvents | None:
    if not module:
        return None
    titles = _group_titles(module.get("eventGroups"))
    groups = [
        EventGroup(
            title=titles.get(group.get("id", ""), "?"),
            serious_affected=_count(group.get("seriousNumAffected")), serious_at_risk=_count(group.get("seriousNumAtRisk")),
            other_affected=_count(group.get("otherNumAffected")), other_at_risk=_count(group.get("otherNumAtRisk")),
            deaths=_count(group.get("deathsNumAffected")),
        )
        for group in _dicts(module.get("eventGroups"))
    ]
    events = [
        AdverseEvent(
            term=str(event["term"]), serious=serious, organ_system=event.get("organSystem"),
            affected={
                titles.get(stat.get("groupId", ""), stat.get("groupId") or "?"): stat["numAffected"]
                for stat in _dicts(event.get("stats")) if isinstance(stat.get("numAffected"), int)
            },
        )
        for serious, key in ((True, "seriousEvents"), (False, "otherEvents"))
        for event in _dicts(module.get(key))
        if event.get("term")
    ]
    return AdverseEvents(time_frame=module.get("timeFrame"), groups=groups, events=events)


def _results(section: Any) -> StudyResults | None:
    if not isinstance(section, dict):
        return None
    return StudyResults(
        outcomes=[_outcome_result(m) for m in _dicts(_module(section, "outcomeMeasuresModule").get("outcomeMeasures"))],
        adverse_events=_adverse_events(_module(section, "adverseEventsModule")),
    )


def parse_study_detail(body: bytes | str) -> StudyDetail:
    """`/studies/{nctId}` with eligibility, arms, planned outcomes and the posted results, if any."""
    record = _load_record(body)
    summary = parse_study(record)
    protocol = record["protocolSection"]
    return StudyDetail(
        **summary.model_dump(),
        brief_summary=_module(protocol, "descriptionModule").get("briefSummary"),
        eligibility=_eligibility(_module(protocol, "eligibilityModule")),
        arms=[
            Arm(label=str(arm["label"]), type=arm.get("type"), description=arm.get("description"),
                interventions=[str(name) for name in arm.get("interventionNames") or []])
            for arm in _dicts(_module(protocol, "armsInterventionsModule").get("armGroups"))
            if arm.get("label")
        ],
        planned_outcomes=_planned_outcomes(_module(protocol, "outcomesModule")),
        results=_results(record.get("resultsSection")),
    )


def parse_study_page(body: bytes | str) -> StudyPage:
    """`/studies`: one page; a page may hold no studies."""
    payload = _load(body)
    if not isinstance(payload, dict) or not isinstance(payload.get("studies", []), list):
        raise BioMcpError(ErrorCode.UPSTREAM, "a ClinicalTrials.gov search page has no studies list")
    return StudyPage(
        studies=[parse_study(record) for record in payload.get("studies", [])],
        total_count=payload.get("totalCount"),
        next_page_token=payload.get("nextPageToken"),
    )
