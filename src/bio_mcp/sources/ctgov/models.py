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
    statuses: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    page_size: int = 50
    page_token: str | None = None
    count_total: bool = False
    fields: tuple[str, ...] = ()
