"""Typed ClinicalTrials.gov API v2 records: the fields the orchestrator and its tables need."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CtgovModel(BaseModel):
    model_config = ConfigDict(frozen=True)


class StudyReference(CtgovModel):
    pmid: str | None = None
    type: str | None = Field(default=None, description="BACKGROUND, RESULT or DERIVED")
    citation: str | None = None


class Intervention(CtgovModel):
    name: str
    type: str | None = Field(default=None, description="e.g. DRUG, BIOLOGICAL, DEVICE")


class Study(CtgovModel):
    nct_id: str
    brief_title: str | None = None
    official_title: str | None = None
    overall_status: str | None = Field(default=None, description="API enum, e.g. RECRUITING")
    phases: list[str] = Field(default_factory=list, description="API enums, e.g. ['PHASE2', 'PHASE3']")
    conditions: list[str] = Field(default_factory=list)
    interventions: list[Intervention] = Field(default_factory=list)
    sponsor: str | None = Field(default=None, description="The lead sponsor's name")
    start_date: str | None = Field(default=None, description="As recorded: YYYY-MM or YYYY-MM-DD")
    completion_date: str | None = None
    enrollment: int | None = None
    has_results: bool = False
    last_update: str | None = Field(default=None, description="lastUpdatePostDate, YYYY-MM-DD")
    references: list[StudyReference] = Field(default_factory=list)

    @property
    def reference_pmids(self) -> list[str]:
        return [ref.pmid for ref in self.references if ref.pmid]


class StudyPage(CtgovModel):
    """One page of `/studies`; `total_count` only when the request asked for `countTotal`."""

    studies: list[Study]
    total_count: int | None = None
    next_page_token: str | None = None


class StudyQuery(CtgovModel):
    """The `/studies` criteria this project uses; statuses and phases are API enums."""

    condition: str | None = None
    term: str | None = None
    intervention: str | None = None
    sponsor: str | None = None
    location: str | None = None
    statuses: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    start_from: str | None = Field(default=None, description="Start date on or after, YYYY[-MM[-DD]]")
    start_to: str | None = None
    completion_from: str | None = None
    completion_to: str | None = None
    page_size: int = 50
    page_token: str | None = None
    count_total: bool = False
    fields: tuple[str, ...] = ()


class Eligibility(CtgovModel):
    criteria: str | None = Field(default=None, description="Inclusion and exclusion criteria as registered")
    sex: str | None = None
    minimum_age: str | None = None
    maximum_age: str | None = None
    healthy_volunteers: bool | None = None


class Arm(CtgovModel):
    label: str
    type: str | None = Field(default=None, description="e.g. EXPERIMENTAL, PLACEBO_COMPARATOR")
    description: str | None = None
    interventions: list[str] = Field(default_factory=list)


class PlannedOutcome(CtgovModel):
    kind: str = Field(description="PRIMARY, SECONDARY or OTHER")
    measure: str
    time_frame: str | None = None


class Measurement(CtgovModel):
    group: str = Field(description="The arm or group title")
    category: str | None = Field(default=None, description="The class/category title, when the measure has several")
    value: str | None = None
    spread: str | None = None
    lower: str | None = None
    upper: str | None = None


class OutcomeResult(CtgovModel):
    type: str | None = Field(default=None, description="PRIMARY, SECONDARY, OTHER_PRE_SPECIFIED, POST_HOC")
    title: str
    time_frame: str | None = None
    unit: str | None = None
    param_type: str | None = Field(default=None, description="e.g. MEAN, COUNT_OF_PARTICIPANTS")
    measurements: list[Measurement] = Field(default_factory=list)
    p_values: list[str] = Field(default_factory=list, description="Of the posted statistical analyses")


class EventGroup(CtgovModel):
    title: str
    serious_affected: int | None = None
    serious_at_risk: int | None = None
    other_affected: int | None = None
    other_at_risk: int | None = None
    deaths: int | None = None


class AdverseEvent(CtgovModel):
    term: str
    serious: bool
    organ_system: str | None = None
    affected: dict[str, int] = Field(default_factory=dict, description="Participants affected, by group title")


class AdverseEvents(CtgovModel):
    time_frame: str | None = None
    groups: list[EventGroup] = Field(default_factory=list)
    events: list[AdverseEvent] = Field(default_factory=list)


class StudyResults(CtgovModel):
    outcomes: list[OutcomeResult] = Field(default_factory=list)
    adverse_events: AdverseEvents | None = None


class StudyDetail(Study):
    """One study as `/studies/{nctId}` returns it, with its protocol's detail and posted results."""

    brief_summary: str | None = None
    eligibility: Eligibility | None = None
    arms: list[Arm] = Field(default_factory=list)
    planned_outcomes: list[PlannedOutcome] = Field(default_factory=list)
    results: StudyResults | None = Field(default=None, description="Posted results; null when none are posted")
