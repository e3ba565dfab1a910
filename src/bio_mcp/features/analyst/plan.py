"""Frame to `Plan`: the seed's three templates (§3.2, M2), filled from the frame, sized to the budget.

Dates are rendered here, from `today`, so a plan is the full statement of what will be asked and two
runs on different days are different plans (and different checkpoints).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from bio_mcp.features.analyst.indications import MeshIndex
from bio_mcp.features.analyst.models import Frame, Plan, PlanStep
from bio_mcp.features.analyst.registry import Registry

TRIALS_PAGE_SIZE = 20
PUBS_PER_TRIAL = 10
PUBS_PER_TOPIC = 20
TRIALS_PER_QUESTION = 10
MIN_MAPPED_TRIALS = 1
# No PubMed record has an Entrez date before this year.
PUBMED_FIRST_YEAR = 1781


def _edat(day: date) -> str:
    return day.strftime("%Y/%m/%d")


def edat_clause(within_days: int | None, today: date) -> str:
    if within_days is None:
        return ""
    # The frame bounds the window; the clamp keeps the date arithmetic total whatever the caller.
    days = min(within_days, (today - date(PUBMED_FIRST_YEAR, 1, 1)).days)
    return f' AND ("{_edat(today - timedelta(days=days))}"[EDAT] : "{_edat(today)}"[EDAT])'


def topic_term(topic: str) -> str:
    """Plain-language joins become PubMed's upper-case operators ("GLP-1 and obesity")."""
    return re.sub(r"\b(and|or|not)\b", lambda m: m.group(1).upper(), topic)


def mapped_trials_cap(frame: Frame, registry: Registry) -> int:
    """How many per-trial searches fit the budget at the PubMed rate cap after the fixed steps."""
    search = registry.tool("pubmed.search")
    fixed_ms = registry.tool("ctgov.search").p95_ms + registry.tool("pubmed.get").p95_ms + search.p95_ms
    spare_s = max(frame.time_budget_ms - fixed_ms, 0) / 1000
    return max(MIN_MAPPED_TRIALS, int(spare_s * registry.source_rps(search.source)))


def _find_trials(frame: Frame, mesh: MeshIndex | None) -> PlanStep:
    entities, filters = frame.entities, frame.filters
    args: dict[str, object] = {"page_size": TRIALS_PAGE_SIZE}
    if entities.trial_nct:
        args["nct_ids"] = [entities.trial_nct]
    if entities.indication:
        args["condition"] = entities.indication
        # Registries record conditions as their sponsors typed them; the MeSH entry terms catch
        # the spellings a search engine without MeSH expansion would miss.
        synonyms = mesh.synonyms(entities.indication) if mesh is not None else []
        if synonyms:
            args["condition_synonyms"] = synonyms
    if entities.intervention:
        args["intervention"] = entities.intervention
    if entities.company:
        args["sponsor"] = entities.company
    if filters.phase:
        args["phase"] = list(filters.phase)
    if filters.status:
        args["status"] = list(filters.status)
    return PlanStep(id="find_trials", tool="ctgov.search", args=args, out={"ncts": "$.results[*].nct_id"})


def plan_from_frame(frame: Frame, registry: Registry, *, today: date, mesh: MeshIndex | None = None) -> Plan:
    if frame.intent == "indication_phase_trials":
        steps = [_find_trials(frame, mesh)]
    elif frame.intent == "trials_with_pubs":
        window = edat_clause(frame.filters.published_within_days, today)
        steps = [
            _find_trials(frame, mesh),
            PlanStep(
                id="pubs_by_nct", tool="pubmed.search", needs=["find_trials"],
                parallel_map_over="$.find_trials.ncts", map_as="nct",
                args={
                    "query_template": "{nct}[SI]" + window,
                    "top_k": PUBS_PER_TRIAL,
                    "max_items": mapped_trials_cap(frame, registry),
                },
                out={"pmids": "$.results[*].pmid"},
            ),
            PlanStep(id="hydrate", tool="pubmed.get", needs=["pubs_by_nct"], args={"pmids": "$.pubs_by_nct[*].pmids"}),
        ]
    elif frame.intent == "free_question":
        topic = frame.entities.topic or ""
        steps = [
            PlanStep(id="search_pubs", tool="pubmed.search", args={"query": f"({topic})" + edat_clause(frame.filters.published_within_days, today),
                           "top_k": PUBS_PER_TOPIC},
                     out={"pmids": "$.results[*].pmid"}),
            PlanStep(id="hydrate", tool="pubmed.get", needs=["search_pubs"], args={"pmids": "$.search_pubs.pmids"}),
            PlanStep(id="find_trials", tool="ctgov.search", args={"term": topic, "page_size": TRIALS_PER_QUESTION},
                     out={"ncts": "$.results[*].nct_id"}),
        ]
    else:
        topic = frame.entities.topic or ""
        steps = [
            PlanStep(
                id="search_pubs", tool="pubmed.search",
                args={"query": f"({topic_term(topic)})" + edat_clause(frame.filters.published_within_days, today),
                      "top_k": PUBS_PER_TOPIC},
                out={"pmids": "$.results[*].pmid"},
            ),
            PlanStep(id="hydrate", tool="pubmed.get", needs=["search_pubs"], args={"pmids": "$.search_pubs.pmids"}),
        ]
    for step in steps:
        registry.tool(step.tool)
    return Plan(version=1, budget_ms=frame.time_budget_ms, steps=steps)
