"""API v2 JSON to `Study` / `StudyPage`, tolerant of the reduced records a `fields=` request returns."""

from __future__ import annotations

import json
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.models import Intervention, Study, StudyPage, StudyReference


def _load(body: bytes | str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BioMcpError(
            ErrorCode.UPSTREAM, "ClinicalTrials.gov returned a body that is not JSON", {"error": str(exc)[:200]}
        ) from None


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


def parse_study_body(body: bytes | str) -> Study:
    """`/studies/{nctId}`."""
    record = _load(body)
    if not isinstance(record, dict):
        raise BioMcpError(ErrorCode.UPSTREAM, "a ClinicalTrials.gov study is not a JSON object")
    return parse_study(record)


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
