"""Execution to copy-ready markdown (seed 004 M5): trial and publication tables with inline citations."""

from __future__ import annotations

from typing import Any

from bio_mcp.features.analyst.executor import Execution
from bio_mcp.features.analyst.models import Frame
from bio_mcp.features.analyst.quotes import best_quote, on_question

MISSING = "—"
# Fewer quoted publications than this is said to be thin evidence.
THIN_EVIDENCE = 3
QUOTED_PUBLICATIONS = 8
TRIALS_NOT_SEARCHED = "ClinicalTrials.gov could not be searched, so trials are not covered (see the notes)."
_PHASE_LABEL = {"EARLY_PHASE1": "Early 1", "PHASE1": "1", "PHASE2": "2", "PHASE3": "3", "PHASE4": "4", "NA": "N/A"}


def _cell(value: Any) -> str:
    if value is None or value == "" or value == []:
        return MISSING
    text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    return " ".join(text.replace("|", "\\|").split())


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def trials_table(trials: list[dict[str, Any]]) -> str:
    rows = [
        [
            f"[{t['nct_id']}]", _cell(t.get("brief_title")),
            _cell("/".join(_PHASE_LABEL.get(p, p) for p in t.get("phases") or []) or None),
            _cell((t.get("overall_status") or "").replace("_", " ").capitalize() or None),
            _cell(t.get("sponsor")), _cell(t.get("conditions")),
        ]
        for t in trials
    ]
    return _table(["NCT ID", "Title", "Phase", "Status", "Sponsor", "Conditions"], rows)


def publications_table(articles: list[dict[str, Any]]) -> str:
    rows = [
        [f"[PMID {a['pmid']}]", _cell(a.get("title")), _cell(a.get("journal")), _cell(a.get("date"))]
        for a in articles
    ]
    return _table(["PMID", "Title", "Journal", "Date"], rows)


def _describe(frame: Frame) -> str:
    parts = []
    if frame.filters.phase:
        parts.append("phase " + "/".join(frame.filters.phase))
    if frame.filters.status:
        parts.append(" or ".join(s.lower() for s in frame.filters.status))
    subject = frame.entities.indication or frame.entities.trial_nct or frame.entities.company or frame.entities.topic
    tested = [f"testing {frame.entities.intervention}"] if frame.entities.intervention else []
    return ", ".join(parts + ([subject] if subject else []) + tested)


def free_answer(frame: Frame, trials: list[dict[str, Any]], articles: list[dict[str, Any]],
                searched: set[str]) -> list[str]:
    """What the literature and the registry say, each publication by a verbatim sentence of its record;
    no verdict, and thin or absent evidence said to be so."""
    terms = frame.entities.topic or ""
    quoted = [(a, *best_quote(a, terms)) for a in articles]
    quoted = sorted((q for q in quoted if on_question(q[2], terms)), key=lambda q: -q[2])[:QUOTED_PUBLICATIONS]
    lines = [f"Searched PubMed and ClinicalTrials.gov for: {terms}. What the records say, quoted; not a verdict."]
    if "search_pubs" not in searched:
        lines.append("PubMed could not be searched, so the literature is not covered (see the notes).")
    elif not articles:
        lines.append("> Evidence: none found. PubMed returned no record on these words: silence, not a negative finding.")
    elif not quoted:
        lines.append(f"> Evidence: none quoted. PubMed returned {len(articles)} record(s), but no sentence of theirs "
                     f"names all of: {terms}; nothing is stated from them (silence, not a negative finding).")
    else:
        if len(quoted) < THIN_EVIDENCE:
            lines.append(f"> Evidence is thin: {len(quoted)} publication(s) found; read them before drawing any conclusion.")
        lines.append("### Publications")
        lines += [f"- [PMID {a['pmid']}] \"{_cell(sentence)}\" ({_cell(a.get('journal'))}, {_cell(a.get('date'))})"
                  for a, sentence, _ in quoted]
    lines.append("### Trials")
    if trials:
        lines.append(trials_table(trials))
    elif "find_trials" not in searched:
        lines.append(TRIALS_NOT_SEARCHED)
    else:
        lines.append("No registered trial matched these words (silence, not evidence of absence).")
    return lines


def synthesize(frame: Frame, execution: Execution) -> str:
    outputs = execution.results
    sections: list[str] = []
    trials = [row for r in outputs.get("find_trials", []) for row in r.payload.get("results", [])]
    articles = sorted(
        (row for r in outputs.get("hydrate", []) for row in r.payload.get("results", [])),
        key=lambda a: (a.get("date") or "", a["pmid"]), reverse=True,
    )
    if frame.intent == "free_question":
        notes = [f"> Note: {note}" for note in execution.notes]
        return "\n\n".join([*free_answer(frame, trials, articles, set(execution.outputs)), *notes])
    answered = {trace.id for trace in execution.traces if trace.status == "ok"}
    if frame.intent != "recent_pubs_by_topic":
        title = f"### Trials ({_describe(frame)})" if _describe(frame) else "### Trials"
        if trials:
            body = trials_table(trials)
        elif "find_trials" not in answered:
            body = TRIALS_NOT_SEARCHED
        else:
            body = "No registered trial matched (silence, not evidence of absence)."
        sections.append(f"{title}\n\n{body}")
    if frame.intent != "indication_phase_trials":
        within = frame.filters.published_within_days
        title = "### Publications" + (f" (entered in the last {within} days)" if within else "")
        pubs_step = "pubs_by_nct" if frame.intent == "trials_with_pubs" else "search_pubs"
        if articles:
            body = publications_table(articles)
        elif frame.intent == "trials_with_pubs" and not trials:
            body = TRIALS_NOT_SEARCHED if "find_trials" not in answered else "No trials, so no linked publications to look up."
        elif not {pubs_step, "hydrate"} <= answered:
            # An outage is said to be one: never "no publications".
            body = "PubMed could not be searched, so publications are not covered (see the notes)."
        else:
            body = "No matching publications found (silence, not evidence of absence)."
        sections.append(f"{title}\n\n{body}")
        links = _trial_links(execution, articles)
        if links:
            sections.append("Linked: " + "; ".join(links))
    summary = _summary(frame, trials, articles)
    notes = [f"> Note: {note}" for note in execution.notes]
    return "\n\n".join([summary, *sections, *notes])


def _trial_links(execution: Execution, articles: list[dict[str, Any]]) -> list[str]:
    known = {a["pmid"] for a in articles}
    links = []
    for entry in execution.outputs.get("pubs_by_nct", []) or []:
        pmids = [p for p in entry.get("pmids") or [] if p in known]
        if pmids:
            links.append(f"[{entry['item']}] → " + ", ".join(f"[PMID {p}]" for p in pmids))
    return links


def _summary(frame: Frame, trials: list[dict[str, Any]], articles: list[dict[str, Any]]) -> str:
    if frame.intent == "recent_pubs_by_topic":
        cites = " ".join(f"[PMID {a['pmid']}]" for a in articles[:5])
        return f"Found {len(articles)} publication(s) on {frame.entities.topic}. {cites}".strip()
    cites = " ".join(f"[{t['nct_id']}]" for t in trials[:5])
    text = f"Found {len(trials)} trial(s) ({_describe(frame)}). {cites}".strip()
    if frame.intent == "trials_with_pubs":
        text += f" Linked publications: {len(articles)}."
    return text
