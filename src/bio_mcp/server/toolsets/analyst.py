"""The `analyst` toolset (seed 004): `analyst.ask`, checkpoints as resources, and the ClinicalTrials.gov
tools `trials_search` and `trials_get` over the analyst's CT.gov client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, date, datetime

from bio_mcp.features.analyst.ask import Analyst, orchestrate
from bio_mcp.features.analyst.checkpoints import resolve_checkpoint
from bio_mcp.features.analyst.models import AskRequest, AskResponse
from bio_mcp.features.overflow import Overflow
from bio_mcp.features.trials.models import (
    TrialsGetRequest,
    TrialsGetResponse,
    TrialsSearchRequest,
    TrialsSearchResponse,
)
from bio_mcp.features.trials.search import search_text, search_trials
from bio_mcp.features.trials.study import get_text, get_trial
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec
from bio_mcp.sources.ctgov.client import CtgovClient

CHECKPOINT_RESOURCE_URI = "analyst://checkpoint/{checkpoint_id}"


def utc_today() -> date:
    return datetime.now(UTC).date()


def summarize(response: AskResponse) -> str:
    """The whole cited answer, its checkpoint, its notes and what each step did."""
    trace = response.trace
    lines = [response.answer.rstrip(), "", "---",
             f"checkpoint_id: `{response.checkpoint_id}`" + (" (**partial answer**)" if trace.partial else "")]
    lines += [f"- note: {note}" for note in trace.notes]
    lines += ["", "| step | tool | status | calls | cache hit | rows | ms |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {step.id} | {step.tool} | {step.status}{': ' + step.error_message if step.error_message else ''} | "
              f"{step.calls} | {'—' if step.cache_hit is None else 'yes' if step.cache_hit else 'no'} | {step.rows} | "
              f"{step.latency_ms} |" for step in trace.steps]
    return "\n".join(lines)


def build_analyst_toolset(analyst: Analyst, today: Callable[[], date] = utc_today) -> Toolset:
    async def ask(request: AskRequest) -> AskResponse:
        return await orchestrate(request, analyst, today=today())

    async def read_checkpoint(checkpoint_id: str) -> str:
        document = await asyncio.to_thread(resolve_checkpoint, analyst.store, checkpoint_id)
        return json.dumps(document, ensure_ascii=False, sort_keys=True)

    return Toolset(
        name="analyst",
        tools=[
            ToolSpec(
                name="analyst.ask",
                title="Ask the biotech analyst",
                description="Answers a question about clinical trials and/or recent publications ('active phase 2/3 "
                "trials in non-small cell lung cancer', 'recent publications on semaglutide') or a free one (any "
                "language Thai included) from ClinicalTrials.gov and PubMed: [NCT...] and quoted [PMID ...] citations, a checkpoint_id "
                "(analyst://checkpoint/{checkpoint_id}) and the trace; partial past time_budget_ms, and says so.",
                input_model=AskRequest, output_model=AskResponse, run=ask, summarize=summarize,
                # It writes only caches and content-addressed checkpoints: same question, same effect.
                read_only=True,
            ),
        ],
        resources=[
            ResourceSpec(
                CHECKPOINT_RESOURCE_URI, "analystCheckpoint",
                "What an analyst answer rests on: tool and registry versions, inputs, source watermarks, blob URIs",
                "application/json", read_checkpoint,
            ),
        ],
    )


def trials_tools(ctgov: CtgovClient, overflow: Overflow | None) -> list[ToolSpec]:
    async def search(request: TrialsSearchRequest) -> TrialsSearchResponse:
        return await search_trials(request, ctgov, overflow)

    async def get(request: TrialsGetRequest) -> TrialsGetResponse:
        return await get_trial(request, ctgov, overflow)

    return [
        ToolSpec(
            name="trials_search", title="Search ClinicalTrials.gov",
            description="ClinicalTrials.gov studies by condition, intervention, phase, status, location, sponsor "
            "and start/completion dates: one page with total_count and next_page_token.",
            input_model=TrialsSearchRequest, output_model=TrialsSearchResponse, run=search, summarize=search_text,
        ),
        ToolSpec(
            name="trials_get", title="One ClinicalTrials.gov study",
            description="One study by NCT id: eligibility, arms, planned outcomes and, when posted, its results "
            "(outcome measures, adverse events).",
            input_model=TrialsGetRequest, output_model=TrialsGetResponse, run=get, summarize=get_text,
        ),
    ]


def analyst_toolset(runtime: Runtime) -> Toolset:
    toolset = build_analyst_toolset(runtime.analyst)
    toolset.tools += trials_tools(runtime.ctgov, runtime.overflow)
    return toolset
