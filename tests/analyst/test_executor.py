"""Waves, budget drops with partial results, error annotation, concurrency cap, per-source pacing, spans."""

from __future__ import annotations

import asyncio
import time
from datetime import date
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.executor import Executor, StepContext, ToolResult, render_args, waves
from bio_mcp.features.analyst.models import Frame, Plan, PlanStep
from bio_mcp.features.analyst.plan import plan_from_frame
from bio_mcp.features.analyst.projection import flatten_unique, project, select
from bio_mcp.features.analyst.registry import load_registry
from bio_mcp.features.analyst.telemetry import Telemetry
from bio_mcp.sources.ratelimit import LocalRateLimiter

REGISTRY = load_registry()
NCTS = ["NCT00000001", "NCT00000002", "NCT00000003", "NCT00000004", "NCT00000005", "NCT00000006"]


def _limiters(rps: int = 100) -> dict[str, LocalRateLimiter]:
    return {source: LocalRateLimiter(source, rps) for source in REGISTRY.sources()}


def _trials_plan(budget_ms: int = 5000) -> Plan:
    frame = Frame.model_validate({"intent": "trials_with_pubs", "entities": {"indication": "Melanoma"},
                                  "filters": {"phase": ["3"], "published_within_days": 180}, "time_budget_ms": budget_ms})
    return plan_from_frame(frame, REGISTRY, today=date(2025, 1, 31))


class FakeTools:
    def __init__(self, search_delay_s: float = 0.0, fail: set[str] = frozenset()) -> None:
        self.search_delay_s = search_delay_s
        self.fail = fail
        self.active = 0
        self.peak = 0
        self.starts: list[float] = []

    async def ctgov(self, args: dict[str, Any], context: StepContext) -> ToolResult:
        return ToolResult({"results": [{"nct_id": n} for n in NCTS]}, cache_hit=False, rows=len(NCTS), watermarks={"c": "1"})

    async def search(self, args: dict[str, Any], context: StepContext) -> ToolResult:
        await context.limiter.pace(context.deadline)
        self.starts.append(time.monotonic())
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await asyncio.sleep(self.search_delay_s)
            nct = args["query_template"].split("[SI]")[0]
            if nct in self.fail:
                raise BioMcpError(ErrorCode.UPSTREAM, f"boom {nct}")
            return ToolResult({"results": [{"pmid": str(int(nct[3:]) + 100)}]}, cache_hit=False, rows=1)
        finally:
            self.active -= 1

    async def get(self, args: dict[str, Any], context: StepContext) -> ToolResult:
        return ToolResult({"results": [{"pmid": p, "title": f"t{p}"} for p in args["pmids"]]}, cache_hit=True, rows=len(args["pmids"]))

    def tools(self) -> dict[str, Any]:
        return {"ctgov.search": self.ctgov, "pubmed.search": self.search, "pubmed.get": self.get}


def test_projection_subset() -> None:
    doc = {"results": [{"nct_id": "A"}, {"x": 1}, {"nct_id": "B"}], "find_trials": {"ncts": ["A", "B"]},
           "pubs_by_nct": [{"pmids": ["1", "2"]}, {"pmids": ["2", "3"]}, {}]}
    assert select(doc, "$.results[*].nct_id") == ["A", "B"]
    assert select(doc, "$.find_trials.ncts") == ["A", "B"]
    assert select(doc, "$.pubs_by_nct[*].pmids") == [["1", "2"], ["2", "3"]]
    assert flatten_unique(select(doc, "$.pubs_by_nct[*].pmids")) == ["1", "2", "3"]
    assert select(doc, "$.results[2].nct_id") == "B"
    assert select(doc, "$.nope.ncts") is None
    assert project({"ncts": "$.results[*].nct_id"}, doc) == {"ncts": ["A", "B"]}
    with pytest.raises(BioMcpError):
        select(doc, "results")
    with pytest.raises(BioMcpError):
        select(doc, "$.results[?]")


def test_planner_templates_and_waves() -> None:
    plan = _trials_plan()
    assert [s.id for s in plan.steps] == ["find_trials", "pubs_by_nct", "hydrate"]
    assert plan.steps[0].args == {"page_size": 20, "condition": "Melanoma", "phase": ["3"]}
    assert plan.steps[0].out == {"ncts": "$.results[*].nct_id"}
    assert plan.steps[1].parallel_map_over == "$.find_trials.ncts"
    assert plan.steps[1].args["query_template"] == '{nct}[SI] AND ("2024/08/04"[EDAT] : "2025/01/31"[EDAT])'
    assert plan.steps[1].args["max_items"] == 8
    assert plan.steps[2].args == {"pmids": "$.pubs_by_nct[*].pmids"}
    assert [[s.id for s in w] for w in waves(plan)] == [["find_trials"], ["pubs_by_nct"], ["hydrate"]]
    trials_only = plan_from_frame(Frame(intent="indication_phase_trials", entities={"indication": "X"}), REGISTRY,
                                  today=date(2025, 1, 31))
    assert [s.tool for s in trials_only.steps] == ["ctgov.search"]
    pubs = plan_from_frame(Frame(intent="recent_pubs_by_topic", entities={"topic": "GLP-1 and obesity"},
                                 filters={"published_within_days": 10}), REGISTRY, today=date(2025, 1, 31))
    assert pubs.steps[0].args["query"] == '(GLP-1 AND obesity) AND ("2025/01/21"[EDAT] : "2025/01/31"[EDAT])'
    assert [s.tool for s in pubs.steps] == ["pubmed.search", "pubmed.get"]


def test_waves_reject_cycles_and_unknown_needs() -> None:
    cyclic = Plan(budget_ms=100, steps=[PlanStep(id="a", tool="t", needs=["b"]), PlanStep(id="b", tool="t", needs=["a"])])
    with pytest.raises(BioMcpError):
        waves(cyclic)
    with pytest.raises(BioMcpError):
        waves(Plan(budget_ms=100, steps=[PlanStep(id="a", tool="t", needs=["z"])]))
    independent = Plan(budget_ms=100, steps=[PlanStep(id="a", tool="t"), PlanStep(id="b", tool="t"),
                                             PlanStep(id="c", tool="t", needs=["a", "b"])])
    assert [[s.id for s in w] for w in waves(independent)] == [["a", "b"], ["c"]]


def test_render_args_binds_items_and_selectors() -> None:
    rendered = render_args({"q": "{nct}[SI]", "pmids": "$.s[*].pmids", "k": 3}, {"s": [{"pmids": ["1"]}, {"pmids": ["1", "2"]}]},
                           {"nct": "NCT1"})
    assert rendered == {"q": "NCT1[SI]", "pmids": ["1", "2"], "k": 3}


@pytest.mark.anyio
async def test_full_run_maps_and_hydrates_with_concurrency_cap() -> None:
    tools = FakeTools(search_delay_s=0.05)
    execution = await Executor(tools.tools(), REGISTRY, _limiters(), Telemetry(None)).run(_trials_plan(), "cache_then_network")
    assert [t.status for t in execution.traces] == ["ok", "ok", "ok"]
    assert execution.traces[1].calls == 6
    assert tools.peak == REGISTRY.map_concurrency
    assert [e["item"] for e in execution.outputs["pubs_by_nct"]] == NCTS
    assert [r["pmid"] for r in execution.results["hydrate"][0].payload["results"]] == [str(i + 100) for i in range(1, 7)]
    assert execution.partial is False and execution.notes == []
    assert execution.traces[2].cache_hit is True and execution.traces[1].cache_hit is False


@pytest.mark.anyio
async def test_error_is_annotated_and_other_branches_go_on() -> None:
    tools = FakeTools(fail={"NCT00000002"})
    execution = await Executor(tools.tools(), REGISTRY, _limiters(), Telemetry(None)).run(_trials_plan(), "cache_then_network")
    search = execution.traces[1]
    assert search.status == "ok" and search.error_code == "UPSTREAM" and "boom" in search.error_message
    assert len(execution.outputs["pubs_by_nct"]) == 5
    assert execution.traces[2].status == "ok"
    assert execution.partial and any("failed" in n for n in execution.notes)


@pytest.mark.anyio
async def test_failed_step_drops_its_dependents() -> None:
    async def broken(args: dict[str, Any], context: StepContext) -> ToolResult:
        raise BioMcpError(ErrorCode.RATE_LIMIT, "slow down")

    tools = FakeTools().tools() | {"ctgov.search": broken}
    execution = await Executor(tools, REGISTRY, _limiters(), Telemetry(None)).run(_trials_plan(), "cache_then_network")
    assert [(t.status, t.error_code) for t in execution.traces] == [("error", "RATE_LIMIT"), ("dropped", None), ("dropped", None)]


@pytest.mark.anyio
async def test_budget_drops_remaining_steps_and_returns_partials_on_time() -> None:
    tools = FakeTools(search_delay_s=0.25)
    execution = await Executor(tools.tools(), REGISTRY, _limiters(), Telemetry(None)).run(_trials_plan().model_copy(update={"budget_ms": 400}), "cache_then_network")
    # The budget, not the last search, ended the run: the searches of the second wave were dropped.
    assert execution.partial
    assert any("still loading" in note for note in execution.notes)
    assert execution.traces[0].status == "ok"
    assert len(execution.outputs["pubs_by_nct"]) == 4
    assert execution.traces[1].error_message == "time budget spent"
    assert execution.traces[2].status == "dropped"


@pytest.mark.anyio
async def test_per_source_limiter_paces_live_calls() -> None:
    tools = FakeTools()
    limiters = _limiters(rps=2)
    execution = await Executor(tools.tools(), REGISTRY, limiters, Telemetry(None)).run(_trials_plan(), "cache_then_network")
    assert execution.traces[1].calls == 6
    starts = sorted(tools.starts)
    # 2 per second: the 3rd and 5th starts wait a full window after the 1st and 3rd.
    assert starts[2] - starts[0] >= 0.99 and starts[4] - starts[2] >= 0.99


@pytest.mark.anyio
async def test_one_span_per_tool_call_with_seed_attributes() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = Telemetry(provider)
    with telemetry.question("trials_with_pubs"):
        await Executor(FakeTools(fail={"NCT00000003"}).tools(), REGISTRY, _limiters(), telemetry).run(_trials_plan(), "cache_then_network")
    spans = exporter.get_finished_spans()
    tool_spans = [s for s in spans if s.name.startswith("tool ")]
    assert len(tool_spans) == 1 + 6 + 1
    assert len({s.context.trace_id for s in spans}) == 1
    root = [s for s in spans if s.name == "analyst.ask"][0]
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in tool_spans)
    ok = [s for s in tool_spans if "error_code" not in s.attributes]
    assert all({"tool", "args_hash", "cache_hit", "rows", "latency_ms"} <= set(s.attributes) for s in ok)
    failed = [s for s in tool_spans if "error_code" in s.attributes]
    assert len(failed) == 1 and failed[0].attributes["error_code"] == "UPSTREAM"
