"""The async DAG executor (seed 004 §4, M3): waves in topological order under one global budget.

Independent steps of a wave run together; a `parallel_map_over` step fans out over a list with a
concurrency cap. Upstream pacing is the per-source `RateLimiter` handed to each tool call, which
the tool acquires only before a live fetch, so cache hits never wait for a slot. When the budget
runs out, calls still in flight are cancelled and later steps dropped: what finished is returned,
marked partial, with a note. A failing step is annotated with its error code and the branches that
do not need it go on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bio_mcp.canonical import canonical_sha256
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.models import FetchPolicy, Plan, PlanStep, StepFailure, StepStatus, StepTrace
from bio_mcp.features.analyst.projection import flatten_unique, project, select
from bio_mcp.features.analyst.registry import Registry
from bio_mcp.features.analyst.telemetry import Telemetry
from bio_mcp.sources.ratelimit import RateLimiter


@dataclass(frozen=True)
class StepContext:
    """What one plan step's tool call runs under: the plan's deadline, the fetch policy and its
    source's rate limiter (not the server's per-call `server.toolset.CallContext`)."""

    deadline: float
    fetch_policy: FetchPolicy
    limiter: RateLimiter

    def time_left_s(self) -> float:
        return self.deadline - time.monotonic()


@dataclass(frozen=True)
class ToolResult:
    payload: dict[str, Any]
    cache_hit: bool
    rows: int
    # Content hashes of what the answer rests on, keyed by what they describe: the checkpoint's watermarks.
    watermarks: dict[str, str] = field(default_factory=dict)
    blob_uris: list[str] = field(default_factory=list)
    # What the answer should say about the data even though nothing failed (records dropped...).
    warnings: list[str] = field(default_factory=list)


Tool = Callable[[dict[str, Any], StepContext], Awaitable[ToolResult]]


SOURCE_NAMES = {"pubmed": "PubMed (NCBI E-utilities)", "ctgov": "ClinicalTrials.gov"}
TIME_BUDGET_SPENT = "time budget spent"
# Failures of the upstream itself (not a cache miss, not our own time budget).
UPSTREAM_CODES = frozenset({ErrorCode.UPSTREAM.value, ErrorCode.RATE_LIMIT.value, ErrorCode.ENTREZ.value})


@dataclass
class Execution:
    outputs: dict[str, Any]
    results: dict[str, list[ToolResult]]
    traces: list[StepTrace]
    notes: list[str]
    partial: bool
    elapsed_ms: int
    failures: list[StepFailure] = field(default_factory=list)

    def nothing_fetched_because_upstream_failed(self) -> bool:
        """No step gave anything, and what failed was the upstream itself: an outage, not "no results"."""
        return (
            bool(self.failures)
            and not any(trace.status == "ok" or trace.rows for trace in self.traces)
            and all(failure.code in UPSTREAM_CODES and failure.message != TIME_BUDGET_SPENT for failure in self.failures)
        )

    def watermarks(self) -> dict[str, str]:
        return {key: value for results in self.results.values() for r in results for key, value in r.watermarks.items()}

    def blob_uris(self) -> list[str]:
        return sorted({uri for results in self.results.values() for r in results for uri in r.blob_uris})


def failure_note(failure: StepFailure) -> str:
    note = (
        f"Some sources failed: {failure.source} failed in step {failure.step} ({failure.tool}) with "
        f"{failure.code}: {failure.message}. What it would have returned is missing from this answer"
    )
    if failure.skipped_steps:
        note += f"; steps not run because of it: {', '.join(failure.skipped_steps)}"
    return note + "."


def waves(plan: Plan) -> list[list[PlanStep]]:
    """Steps grouped so each runs after everything it needs; a cycle or unknown need is an invariant failure."""
    by_id = {step.id: step for step in plan.steps}
    for step in plan.steps:
        unknown = [need for need in step.needs if need not in by_id]
        if unknown:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, f"step {step.id!r} needs unknown steps {unknown}")
    done: set[str] = set()
    ordered: list[list[PlanStep]] = []
    while len(done) < len(by_id):
        wave = [step for step in plan.steps if step.id not in done and set(step.needs) <= done]
        if not wave:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "the plan has a dependency cycle")
        ordered.append(wave)
        done.update(step.id for step in wave)
    return ordered


def render_args(args: Mapping[str, Any], outputs: Mapping[str, Any], bindings: Mapping[str, str]) -> dict[str, Any]:
    """Selectors (`$....`) resolve against earlier outputs; `{name}` placeholders take the mapped item."""
    rendered: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str) and value.startswith("$."):
            rendered[key] = flatten_unique(select(dict(outputs), value))
        elif isinstance(value, str):
            for name, bound in bindings.items():
                value = value.replace("{" + name + "}", bound)
            rendered[key] = value
        else:
            rendered[key] = value
    return rendered


class Executor:
    def __init__(
        self,
        tools: Mapping[str, Tool],
        registry: Registry,
        limiters: Mapping[str, RateLimiter],
        telemetry: Telemetry,
    ) -> None:
        self.tools = tools
        self.registry = registry
        self.limiters = limiters
        self.telemetry = telemetry

    async def run(self, plan: Plan, fetch_policy: FetchPolicy) -> Execution:
        started = time.monotonic()
        deadline = started + plan.budget_ms / 1000
        outputs: dict[str, Any] = {}
        results: dict[str, list[ToolResult]] = {}
        traces: dict[str, StepTrace] = {}
        notes: list[str] = []
        failed: set[str] = set()
        for wave in waves(plan):
            runnable = []
            for step in wave:
                blocked = [need for need in step.needs if need in failed]
                if blocked:
                    failed.add(step.id)
                    traces[step.id] = StepTrace(
                        id=step.id, tool=step.tool, status="dropped", error_message=f"needs failed step(s) {blocked}"
                    )
                elif time.monotonic() >= deadline:
                    failed.add(step.id)
                    traces[step.id] = StepTrace(id=step.id, tool=step.tool, status="dropped", error_message=TIME_BUDGET_SPENT)
                else:
                    runnable.append(step)
            finished = await asyncio.gather(
                *(self._run_step(step, outputs, StepContext(deadline, fetch_policy, self._limiter(step))) for step in runnable)
            )
            for step, (output, step_results, trace_row) in zip(runnable, finished):
                traces[step.id] = trace_row
                results[step.id] = step_results
                if trace_row.status == "ok":
                    outputs[step.id] = output
                else:
                    failed.add(step.id)
                    if output is not None:
                        outputs[step.id] = output
        ordered = [traces[step.id] for step in plan.steps]
        if any(row.error_message == TIME_BUDGET_SPENT for row in ordered):
            notes.append("Data still loading: the time budget ran out before every call finished; results are partial.")
        failures = self._failures(plan, ordered)
        notes.extend(failure_note(failure) for failure in failures if failure.message != TIME_BUDGET_SPENT)
        partial = bool(notes)
        # Warnings do not make the answer partial: what they describe was left out on purpose.
        notes.extend(dict.fromkeys(
            warning for step in plan.steps for result in results.get(step.id, []) for warning in result.warnings
        ))
        return Execution(
            outputs=outputs, results=results, traces=ordered, notes=notes, partial=partial,
            elapsed_ms=int((time.monotonic() - started) * 1000), failures=failures,
        )

    def _failures(self, plan: Plan, traces: list[StepTrace]) -> list[StepFailure]:
        """Each step that failed (wholly or for some of its calls), with the later steps it left unrun."""
        dropped = {row.id for row in traces if row.status == "dropped"}
        failures = []
        for row in traces:
            if row.status == "dropped" or row.error_code is None:
                continue
            # Plan steps are in dependency order, so one pass collects everything downstream.
            affected = [row.id]
            for step in plan.steps:
                if step.id in dropped and any(need in affected for need in step.needs):
                    affected.append(step.id)
            failures.append(
                StepFailure(
                    source=SOURCE_NAMES.get(self.registry.tool(row.tool).source, self.registry.tool(row.tool).source),
                    step=row.id, tool=row.tool, code=row.error_code, message=row.error_message or "",
                    skipped_steps=affected[1:],
                )
            )
        return failures

    def _limiter(self, step: PlanStep) -> RateLimiter:
        return self.limiters[self.registry.tool(step.tool).source]

    async def _run_step(
        self, step: PlanStep, outputs: dict[str, Any], context: StepContext
    ) -> tuple[Any, list[ToolResult], StepTrace]:
        tool = self.tools.get(step.tool)
        if tool is None:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, f"no client for tool {step.tool!r}")
        started = time.monotonic()
        items: list[str | None] = [None]
        if step.parallel_map_over is not None:
            items = [str(item) for item in flatten_unique(select(outputs, step.parallel_map_over))]
            cap = step.args.get("max_items")
            items = items[:cap] if isinstance(cap, int) else items
        calls = [
            render_args(step.args, outputs, {} if item is None else {step.map_as or "item": item}) for item in items
        ]
        semaphore = asyncio.Semaphore(self.registry.map_concurrency)
        tasks = [asyncio.ensure_future(self._call(step, tool, args, context, semaphore)) for args in calls]
        if tasks:
            await asyncio.wait(tasks, timeout=max(context.time_left_s(), 0))
        done: list[tuple[str | None, ToolResult]] = []
        errors: list[BioMcpError] = []
        timed_out = 0
        for item, task in zip(items, tasks):
            if not task.done():
                task.cancel()
                timed_out += 1
                continue
            exc = task.exception()
            if exc is None:
                done.append((item, task.result()))
            elif isinstance(exc, BioMcpError):
                errors.append(exc)
            else:
                errors.append(BioMcpError(ErrorCode.UNKNOWN, f"{step.tool} failed unexpectedly: {type(exc).__name__}"))
        if timed_out:
            await asyncio.gather(*tasks, return_exceptions=True)
        step_results = [result for _, result in done]
        if step.parallel_map_over is None:
            output = project(step.out, step_results[0].payload) if step_results else None
        else:
            output = [{"item": item, **project(step.out, result.payload)} for item, result in done]
        status: StepStatus = "ok"
        error_code = error_message = None
        if errors and not done:
            status, error_code, error_message = "error", errors[0].code.value, errors[0].message
        elif timed_out and not done:
            status, error_code, error_message = "error", ErrorCode.UPSTREAM.value, TIME_BUDGET_SPENT
        elif errors or timed_out:
            error_code = errors[0].code.value if errors else None
            error_message = TIME_BUDGET_SPENT if timed_out else errors[0].message
        trace_row = StepTrace(
            id=step.id, tool=step.tool, status=status, calls=len(calls),
            cache_hit=all(r.cache_hit for r in step_results) if step_results else None,
            rows=sum(r.rows for r in step_results), latency_ms=int((time.monotonic() - started) * 1000),
            error_code=error_code, error_message=error_message,
        )
        return output, step_results, trace_row

    async def _call(
        self, step: PlanStep, tool: Tool, args: dict[str, Any], context: StepContext, semaphore: asyncio.Semaphore
    ) -> ToolResult:
        async with semaphore:
            started = time.monotonic()
            with self.telemetry.tool_call(step.tool, canonical_sha256(args)) as span:
                try:
                    result = await tool(args, context)
                except BioMcpError as exc:
                    span.set_attributes({"error_code": exc.code.value, "latency_ms": int((time.monotonic() - started) * 1000)})
                    raise
                span.set_attributes({
                    "cache_hit": result.cache_hit, "rows": result.rows,
                    "latency_ms": int((time.monotonic() - started) * 1000),
                })
                return result
