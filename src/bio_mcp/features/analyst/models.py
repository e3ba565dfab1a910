"""Contracts of the analyst orchestrator (seed 004 §3): Frame, Plan, the ask request and response."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bio_mcp.models import ToolInput, ToolOutput

FetchPolicy = Literal["cache_only", "cache_then_network", "network_only"]
Intent = Literal["recent_pubs_by_topic", "indication_phase_trials", "trials_with_pubs", "free_question"]
StepStatus = Literal["ok", "error", "dropped"]


class AnalystModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Entities(AnalystModel):
    company: str | None = Field(default=None, description="Free text; used as the CT.gov lead sponsor")
    ticker: str | None = None
    indication: str | None = Field(default=None, description="MeSH preferred name when one matched")
    trial_nct: str | None = None
    topic: str | None = None
    intervention: str | None = Field(
        default=None, description="What the trials must test (CT.gov query.intr): a MeSH drug or chemical the "
                                  "question names, or the words it names beside the indication")


# PubMed's records reach back about 250 years; a longer window is a typo, not a question.
MAX_WINDOW_DAYS = 250 * 365


class Filters(AnalystModel):
    phase: list[str] = Field(default_factory=list, description="e.g. ['2', '3'], or ['early_1']")
    status: list[str] = Field(default_factory=list, description="CT.gov display names, e.g. 'Recruiting'")
    published_within_days: int | None = Field(default=None, ge=1, le=MAX_WINDOW_DAYS)


class Frame(AnalystModel):
    intent: Intent
    entities: Entities = Field(default_factory=Entities)
    filters: Filters = Field(default_factory=Filters)
    fetch_policy: FetchPolicy = "cache_then_network"
    time_budget_ms: int = 5000


class PlanStep(AnalystModel):
    id: str
    tool: str
    needs: list[str] = Field(default_factory=list)
    args: dict[str, Any] = Field(default_factory=dict)
    parallel_map_over: str | None = None
    # The template variable each mapped item binds (seed: `{nct}` in the query template).
    map_as: str | None = None
    out: dict[str, str] = Field(default_factory=dict)


class Plan(AnalystModel):
    version: int = 1
    budget_ms: int
    steps: list[PlanStep]


class AskRequest(ToolInput):
    """The `analyst.ask` tool's input."""

    question: str = Field(
        min_length=3, max_length=1000,
        description="A question in plain English about trials and/or publications",
    )
    fetch_policy: FetchPolicy = Field(
        default="cache_then_network",
        description="cache_then_network (default): cache first, upstream for the rest; cache_only: offline, from "
        "what earlier calls cached; network_only: always fresh",
    )
    time_budget_ms: int = Field(
        default=5000, ge=100, le=120_000,
        description="Wall-clock budget in milliseconds; steps not done by then are dropped and the answer says "
        "it is partial",
    )


class StepTrace(AnalystModel):
    id: str
    tool: str
    status: StepStatus
    calls: int = 0
    cache_hit: bool | None = Field(default=None, description="True only when every call of the step hit the cache")
    rows: int = 0
    latency_ms: int = 0
    error_code: str | None = None
    error_message: str | None = None


class StepFailure(AnalystModel):
    """A source that failed during an answer: which, in which step, and why."""

    source: str = Field(description="The upstream that failed: PubMed (NCBI E-utilities) or ClinicalTrials.gov")
    step: str
    tool: str
    code: str = Field(description="The error code (UPSTREAM, RATE_LIMIT, ENTREZ, NOT_FOUND, ...)")
    message: str
    skipped_steps: list[str] = Field(default_factory=list, description="Later steps that could not run without it")


class Trace(AnalystModel):
    trace_id: str | None = Field(default=None, description="OpenTelemetry trace id, when telemetry is on")
    frame: Frame
    plan: Plan
    steps: list[StepTrace]
    elapsed_ms: int
    partial: bool
    notes: list[str] = Field(default_factory=list)


class AskResponse(ToolOutput):
    """The `analyst.ask` tool's output: markdown with [NCT...] / [PMID ...] citations, the checkpoint, the trace."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    answer: str
    checkpoint_id: str
    trace: Trace
    failures: list[StepFailure] = Field(
        default_factory=list, description="Sources that failed: the answer lacks what they would have given"
    )
