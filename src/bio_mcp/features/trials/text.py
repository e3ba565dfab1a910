"""Markdown of trials: one line per study in a search, the sections of one study."""

from __future__ import annotations

from pydantic import BaseModel

from bio_mcp.features.overflow import STRUCTURED_FACTOR, json_size
from bio_mcp.sources.ctgov.models import AdverseEvent, OutcomeResult, Study, StudyDetail


def budget_share(text: str, model: BaseModel) -> int:
    """An item's share of the result budget: its text line, or its JSON over STRUCTURED_FACTOR if more."""
    return max(len(text) + 1, -(-json_size(model.model_dump(mode="json")) // STRUCTURED_FACTOR))


def study_line(study: Study) -> str:
    phases = "/".join(study.phases) or "no phase"
    drugs = ", ".join(i.name for i in study.interventions[:4])
    when = f"{study.start_date or '?'} → {study.completion_date or '?'}"
    return (
        f"- [{study.nct_id}] {study.brief_title or study.official_title or 'untitled'} — {study.overall_status or '?'}, "
        f"{phases}, {when}; sponsor {study.sponsor or '?'}"
        + (f"; {drugs}" if drugs else "")
        + (" (results posted)" if study.has_results else "")
    )


def outcome_text(outcome: OutcomeResult) -> str:
    rows = "; ".join(
        f"{m.group}{' / ' + m.category if m.category else ''}: {m.value or '—'}"
        + (f" ({m.spread})" if m.spread else "")
        + (f" [{m.lower}, {m.upper}]" if m.lower or m.upper else "")
        for m in outcome.measurements
    )
    unit = f" ({outcome.param_type or ''} {outcome.unit or ''})".replace("( ", "(").replace(" )", ")")
    p_values = f"; p = {', '.join(outcome.p_values)}" if outcome.p_values else ""
    return f"- {outcome.type or ''} **{outcome.title}**{unit if unit != ' ()' else ''}, {outcome.time_frame or '?'}: {rows}{p_values}"


def event_text(event: AdverseEvent) -> str:
    counts = ", ".join(f"{group} {n}" for group, n in event.affected.items())
    return (
        f"- {'serious' if event.serious else 'other'}: {event.term} ({event.organ_system or '?'}): {counts}"
    )


def study_text(study: StudyDetail) -> str:
    lines = [
        f"## [{study.nct_id}] {study.official_title or study.brief_title or 'untitled'}",
        study_line(study),
    ]
    if study.brief_summary:
        lines += ["", study.brief_summary.strip()]
    if study.eligibility:
        e = study.eligibility
        heading = (
            f"### Eligibility (sex {e.sex or '?'}, age {e.minimum_age or '?'}–{e.maximum_age or '?'}"
            f"{', healthy volunteers' if e.healthy_volunteers else ''})"
        )
        lines += ["", heading, (e.criteria or "not given").strip()]
    if study.arms:
        lines += ["", "### Arms"] + [
            f"- {arm.label} ({arm.type or '?'}): {arm.description or ''} [{'; '.join(arm.interventions)}]"
            for arm in study.arms
        ]
    if study.planned_outcomes:
        lines += ["", "### Planned outcomes"] + [
            f"- {o.kind}: {o.measure} ({o.time_frame or '?'})" for o in study.planned_outcomes
        ]
    if study.results is None:
        lines += ["", "### Results", "No results are posted for this study."]
        return "\n".join(lines)
    lines += ["", "### Results: outcome measures"] + [outcome_text(o) for o in study.results.outcomes]
    events = study.results.adverse_events
    if events is not None:
        lines += (
            ["", f"### Adverse events ({events.time_frame or 'time frame not given'})"]
            + [
                f"- {g.title}: serious {g.serious_affected}/{g.serious_at_risk}, other {g.other_affected}/{g.other_at_risk}, "
                f"deaths {g.deaths}"
                for g in events.groups
            ]
            + [event_text(event) for event in events.events]
        )
    return "\n".join(lines)
