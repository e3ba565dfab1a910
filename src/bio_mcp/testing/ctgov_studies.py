"""Real ClinicalTrials.gov API v2 study records, their searchable areas, and `fields=` projection.

Studies come from the shared data: complete records (ctgov/aact, ctgov/mcode), single-study
responses (ctgov/biomcp/get_*) and the studies inside recorded search pages (ctgov/biomcp/search_*).
When an NCT id appears more than once the most complete copy wins. Upstream's trimmed fragments
and the legacy v1 XML are not v2 studies and are skipped.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

CTGOV = Path("ctgov")
OPENAPI_SPEC = CTGOV / "mcode" / "ctg-oas-v2.yaml"

Study = dict[str, Any]


class AreaKind(Enum):
    TEXT = "text"
    ENUM = "enum"
    DATE = "date"
    NUMBER = "number"
    AGE = "age"


@dataclass(frozen=True)
class Area:
    """A field ("piece") of the study data structure, as AREA[...] and `fields=` name it."""

    name: str
    path: tuple[str, ...]
    kind: AreaKind = AreaKind.TEXT

    @property
    def projection(self) -> tuple[str, ...]:
        """What `fields=` keeps: the whole date struct for a date, otherwise the value itself."""
        if self.kind is AreaKind.DATE and self.path[-1] == "date" and self.path[-2].endswith("Struct"):
            return self.path[:-1]
        return self.path


def _areas() -> dict[str, Area]:
    ps = ("protocolSection",)
    ident, status, sponsors = (
        ps + ("identificationModule",),
        ps + ("statusModule",),
        ps + ("sponsorCollaboratorsModule",),
    )
    design, arms, outcomes = (
        ps + ("designModule",),
        ps + ("armsInterventionsModule",),
        ps + ("outcomesModule",),
    )
    eligibility, locations = ps + ("eligibilityModule",), ps + ("contactsLocationsModule",)
    conditions, description = ps + ("conditionsModule",), ps + ("descriptionModule",)
    condition_browse = ("derivedSection", "conditionBrowseModule")
    intervention_browse = ("derivedSection", "interventionBrowseModule")
    enum, day, number, age = AreaKind.ENUM, AreaKind.DATE, AreaKind.NUMBER, AreaKind.AGE
    areas = [
        Area("NCTId", ident + ("nctId",), enum),
        Area("NCTIdAlias", ident + ("nctIdAliases",), enum),
        Area("OrgStudyId", ident + ("orgStudyIdInfo", "id")),
        Area("SecondaryId", ident + ("secondaryIdInfos", "id")),
        Area("BriefTitle", ident + ("briefTitle",)),
        Area("OfficialTitle", ident + ("officialTitle",)),
        Area("Acronym", ident + ("acronym",)),
        Area("OrgFullName", ident + ("organization", "fullName")),
        Area("OverallStatus", status + ("overallStatus",), enum),
        Area("WhyStopped", status + ("whyStopped",)),
        Area("StartDate", status + ("startDateStruct", "date"), day),
        Area("PrimaryCompletionDate", status + ("primaryCompletionDateStruct", "date"), day),
        Area("CompletionDate", status + ("completionDateStruct", "date"), day),
        Area("StudyFirstSubmitDate", status + ("studyFirstSubmitDate",), day),
        Area("StudyFirstPostDate", status + ("studyFirstPostDateStruct", "date"), day),
        Area("ResultsFirstPostDate", status + ("resultsFirstPostDateStruct", "date"), day),
        Area("LastUpdateSubmitDate", status + ("lastUpdateSubmitDate",), day),
        Area("LastUpdatePostDate", status + ("lastUpdatePostDateStruct", "date"), day),
        Area("LeadSponsorName", sponsors + ("leadSponsor", "name")),
        Area("LeadSponsorClass", sponsors + ("leadSponsor", "class"), enum),
        Area("CollaboratorName", sponsors + ("collaborators", "name")),
        Area("BriefSummary", description + ("briefSummary",)),
        Area("DetailedDescription", description + ("detailedDescription",)),
        Area("Condition", conditions + ("conditions",)),
        Area("Keyword", conditions + ("keywords",)),
        Area("StudyType", design + ("studyType",), enum),
        Area("Phase", design + ("phases",), enum),
        Area("DesignAllocation", design + ("designInfo", "allocation"), enum),
        Area("DesignPrimaryPurpose", design + ("designInfo", "primaryPurpose"), enum),
        Area("EnrollmentCount", design + ("enrollmentInfo", "count"), number),
        Area("ArmGroupLabel", arms + ("armGroups", "label")),
        Area("ArmGroupInterventionName", arms + ("armGroups", "interventionNames")),
        Area("InterventionType", arms + ("interventions", "type"), enum),
        Area("InterventionName", arms + ("interventions", "name")),
        Area("InterventionOtherName", arms + ("interventions", "otherNames")),
        Area("InterventionDescription", arms + ("interventions", "description")),
        Area("PrimaryOutcomeMeasure", outcomes + ("primaryOutcomes", "measure")),
        Area("SecondaryOutcomeMeasure", outcomes + ("secondaryOutcomes", "measure")),
        Area("OtherOutcomeMeasure", outcomes + ("otherOutcomes", "measure")),
        Area("EligibilityCriteria", eligibility + ("eligibilityCriteria",)),
        Area("HealthyVolunteers", eligibility + ("healthyVolunteers",), enum),
        Area("Sex", eligibility + ("sex",), enum),
        Area("MinimumAge", eligibility + ("minimumAge",), age),
        Area("MaximumAge", eligibility + ("maximumAge",), age),
        Area("StdAge", eligibility + ("stdAges",), enum),
        Area("OverallOfficialName", locations + ("overallOfficials", "name")),
        Area("LocationFacility", locations + ("locations", "facility")),
        Area("LocationCity", locations + ("locations", "city")),
        Area("LocationState", locations + ("locations", "state")),
        Area("LocationZip", locations + ("locations", "zip")),
        Area("LocationCountry", locations + ("locations", "country")),
        Area("LocationStatus", locations + ("locations", "status"), enum),
        Area("ConditionMeshTerm", condition_browse + ("meshes", "term")),
        Area("ConditionAncestorTerm", condition_browse + ("ancestors", "term")),
        Area("InterventionMeshTerm", intervention_browse + ("meshes", "term")),
        Area("InterventionAncestorTerm", intervention_browse + ("ancestors", "term")),
        Area("HasResults", ("hasResults",), enum),
    ]
    return {area.name.lower(): area for area in areas}


AREAS = _areas()

# The areas each query.* parameter searches (ClinicalTrials.gov's "search areas").
SEARCH_AREAS: dict[str, tuple[str, ...]] = {
    "query.cond": (
        "Condition",
        "BriefTitle",
        "OfficialTitle",
        "Keyword",
        "ConditionMeshTerm",
        "ConditionAncestorTerm",
    ),
    "query.intr": (
        "InterventionName",
        "InterventionOtherName",
        "InterventionDescription",
        "ArmGroupInterventionName",
        "InterventionMeshTerm",
        "InterventionAncestorTerm",
    ),
    "query.spons": ("LeadSponsorName", "CollaboratorName"),
    "query.lead": ("LeadSponsorName",),
    "query.titles": ("BriefTitle", "OfficialTitle", "Acronym"),
    "query.id": ("NCTId", "NCTIdAlias", "OrgStudyId", "SecondaryId"),
    "query.outc": ("PrimaryOutcomeMeasure", "SecondaryOutcomeMeasure", "OtherOutcomeMeasure"),
    "query.locn": ("LocationFacility", "LocationCity", "LocationState", "LocationZip", "LocationCountry"),
}
_BASIC_SEARCH = (
    "NCTId",
    "NCTIdAlias",
    "OrgStudyId",
    "SecondaryId",
    "BriefTitle",
    "OfficialTitle",
    "Acronym",
    "Condition",
    "Keyword",
    "BriefSummary",
    "DetailedDescription",
    "LeadSponsorName",
    "CollaboratorName",
    "InterventionName",
    "InterventionOtherName",
    "InterventionDescription",
    "ArmGroupLabel",
    "PrimaryOutcomeMeasure",
    "SecondaryOutcomeMeasure",
    "ConditionMeshTerm",
    "ConditionAncestorTerm",
    "InterventionMeshTerm",
    "InterventionAncestorTerm",
    "LocationFacility",
    "LocationCity",
    "LocationCountry",
    "OverallOfficialName",
)
SEARCH_AREAS["query.term"] = _BASIC_SEARCH
SEARCH_AREAS["query.patient"] = _BASIC_SEARCH

SECTIONS = (
    "protocolSection",
    "resultsSection",
    "annotationSection",
    "documentSection",
    "derivedSection",
    "hasResults",
)


def values_at(study: Any, path: tuple[str, ...]) -> list[Any]:
    """Every leaf value under `path`, walking into lists along the way."""
    if not path:
        if isinstance(study, list):
            return [value for item in study for value in values_at(item, path)]
        return [] if study is None else [study]
    if isinstance(study, list):
        return [value for item in study for value in values_at(item, path)]
    if isinstance(study, dict) and path[0] in study:
        return values_at(study[path[0]], path[1:])
    return []


def nct_id(study: Study) -> str:
    return study["protocolSection"]["identificationModule"]["nctId"]


class UnknownField(ValueError):
    """A field path that is not in the API v2 study model."""


def _module_paths(studies: list[Study]) -> dict[str, tuple[str, ...]]:
    modules: dict[str, tuple[str, ...]] = {}
    for study in studies:
        for section, content in study.items():
            if isinstance(content, dict):
                for module in content:
                    modules.setdefault(module.lower(), (section, module))
    return modules


def field_paths(names: list[str], studies: list[Study]) -> list[tuple[str, ...]]:
    """Resolve `fields=` names: sections, modules, piece names, or dotted paths."""
    modules = _module_paths(studies)
    sections = {section.lower(): section for section in SECTIONS}
    paths = []
    for name in names:
        lowered = name.strip().lower()
        if lowered in sections:
            paths.append((sections[lowered],))
        elif lowered in modules:
            paths.append(modules[lowered])
        elif lowered in AREAS:
            paths.append(AREAS[lowered].projection)
        elif "." in name:
            paths.append(tuple(name.strip().split(".")))
        else:
            raise UnknownField(name)
    return paths


def project(study: Any, paths: list[tuple[str, ...]]) -> Any:
    """Keep only the parts of `study` under `paths`, as ClinicalTrials.gov's `fields=` does."""
    keep: dict[str, Any] = {}
    for path in paths:
        node = keep
        for step in path[:-1]:
            existing = node.get(step)
            if existing is True:
                break
            node = node.setdefault(step, {})
        else:
            node[path[-1]] = True
    return _apply(study, keep)


def _apply(value: Any, keep: dict[str, Any] | bool) -> Any:
    if keep is True:
        return copy.deepcopy(value)
    if isinstance(value, list):
        return [_apply(item, keep) for item in value]
    if not isinstance(value, dict):
        return None
    kept = {}
    for key, child in keep.items():
        if key in value:
            projected = _apply(value[key], child)
            if projected not in (None, {}, []):
                kept[key] = projected
    return kept


def _completeness(study: Study) -> int:
    return len(json.dumps(study))


@lru_cache(maxsize=4)
def load_real_studies(data_dir: Path) -> tuple[Study, ...]:
    """The v2 studies of `data_dir`, one per NCT id (the most complete copy), ordered by NCT id."""
    root = data_dir / CTGOV
    if not root.is_dir():
        raise FileNotFoundError(f"ClinicalTrials.gov records not found at {root}")
    best: dict[str, Study] = {}
    for path in sorted(root.glob("*/*.json")):
        if "trimmed_fragment" in path.name:
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        for study in document.get("studies", [document]):
            if "protocolSection" not in study:
                continue
            key = nct_id(study)
            if key not in best or _completeness(study) > _completeness(best[key]):
                best[key] = study
    return tuple(best[key] for key in sorted(best))


@dataclass(frozen=True)
class ApiContract:
    """What the recorded OpenAPI spec says about parameters, enums and the API version."""

    api_version: str
    search_parameters: frozenset[str]
    study_parameters: frozenset[str]
    statuses: frozenset[str]


@lru_cache(maxsize=4)
def load_api_contract(data_dir: Path) -> ApiContract | None:
    path = data_dir / OPENAPI_SPEC
    if not path.is_file():
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spec = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    paths = spec["paths"]
    return ApiContract(
        api_version=spec["info"]["version"],
        search_parameters=frozenset(
            parameter["name"] for parameter in paths["/studies"]["get"]["parameters"]
        ),
        study_parameters=frozenset(
            parameter["name"] for parameter in paths["/studies/{nctId}"]["get"]["parameters"]
        ),
        statuses=frozenset(spec["components"]["schemas"]["Status"]["enum"]),
    )
