"""The contracts of `trials_search` and `trials_get`."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from bio_mcp.models import NonBlank, ToolInput, ToolOutput
from bio_mcp.sources.ctgov.models import Study, StudyDetail

Phase = Literal["NA", "EARLY_PHASE1", "PHASE1", "PHASE2", "PHASE3", "PHASE4"]
Status = Literal[
    "ACTIVE_NOT_RECRUITING",
    "COMPLETED",
    "ENROLLING_BY_INVITATION",
    "NOT_YET_RECRUITING",
    "RECRUITING",
    "SUSPENDED",
    "TERMINATED",
    "WITHDRAWN",
    "UNKNOWN",
]
DatePattern = r"^\d{4}(-\d{2}){0,2}$"


def _without_null_of_optionals(schema: dict[str, Any]) -> dict[str, Any]:
    """An optional property that is None is left out of the body (`omit_none`), so its schema need not
    allow null: `anyOf: [X, null]` becomes X, which keeps the listing short."""
    for obj in [schema, *schema.get("$defs", {}).values()]:
        required = set(obj.get("required", []))
        for name, prop in obj.get("properties", {}).items():
            options = prop.get("anyOf", [])
            if name not in required and len(options) == 2 and {"type": "null"} in options:
                prop.pop("anyOf")
                prop.pop("default", None)
                prop.update(next(option for option in options if option != {"type": "null"}))
    return schema


class TrialsOutput(ToolOutput):
    omit_none: ClassVar[bool] = True

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        return _without_null_of_optionals(super().json_schema())


class TrialsSearchRequest(ToolInput):
    condition: str | None = Field(default=None, description="Disease or condition, e.g. 'melanoma'")
    intervention: str | None = Field(default=None, description="Drug, device or procedure")
    term: str | None = Field(default=None, description="Other words, Essie syntax passed through")
    sponsor: str | None = Field(default=None, description="Lead sponsor or collaborator")
    location: str | None = Field(default=None, description="Facility, city, state or country")
    phases: list[Phase] = Field(default_factory=list, description="Trial phases, any of")
    statuses: list[Status] = Field(default_factory=list, description="Overall statuses, any of")
    start_from: str | None = Field(
        default=None, pattern=DatePattern, description="Start on/after YYYY[-MM[-DD]]"
    )
    start_to: str | None = Field(default=None, pattern=DatePattern, description="Start on/before")
    completion_from: str | None = Field(default=None, pattern=DatePattern, description="Completion on/after")
    completion_to: str | None = Field(default=None, pattern=DatePattern, description="Completion on/before")
    page_size: int = Field(default=10, ge=1, le=100, description="Studies per page")
    page_token: str | None = Field(
        default=None, description="next_page_token of the previous page, same criteria"
    )


class TrialsOverflow(TrialsOutput):
    uri: str = Field(description="bio-mcp://scratch/... holding what did not fit the result budget")
    items: int
    chars: int


class TrialsSearchResponse(TrialsOutput):
    total_count: int | None = Field(description="Studies matching, on the first page only")
    studies: list[Study]
    next_page_token: str | None = Field(description="Pass as page_token for the next page; null on the last")
    overflow: TrialsOverflow | None = None


class TrialsGetRequest(ToolInput):
    nct_id: NonBlank = Field(description="e.g. NCT02552212")


class TrialsGetResponse(TrialsOutput):
    study: StudyDetail
    overflow: TrialsOverflow | None = Field(
        default=None, description="Results rows that did not fit, as JSON lines"
    )
